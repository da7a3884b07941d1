"""`git memory install --agent NAME [--remove]` (also `agent install|uninstall`): project
scope keeps its undo records in the git directory, user scope in $XDG_STATE_HOME."""

from __future__ import annotations

import os
from pathlib import Path

import click

from git_memory import ui
from git_memory.agents import integrations
from git_memory.agents.integrations import SCOPES, shared, undo
from git_memory.cli import options
from git_memory.errors import BadInput, NotARepository, UsageProblem
from git_memory.store.locate import discover


def _state(scope: str, common_dir: Path | None) -> Path:
    if scope == "project" and common_dir is not None:
        return common_dir / "git-memory" / "agent-installs"
    base = os.environ.get("XDG_STATE_HOME") or os.path.join(os.path.expanduser("~"), ".local", "state")
    return Path(base) / "git-memory" / "agent-installs"


def run(*, scope: str, remove: bool, agent: str = "claude") -> int:
    try:
        integration = integrations.get(agent)
    except BadInput as exc:
        raise UsageProblem(str(exc)) from None
    if scope not in SCOPES:
        raise UsageProblem(f"unknown scope {scope!r}; expected project or user")
    base, common = shared.home(), None
    if scope == "project":
        dirs = discover()
        if dirs.work_tree is None:
            raise NotARepository("--scope project needs a repository with a working tree")
        base, common = dirs.work_tree, dirs.common_dir
    state = _state(scope, common)
    changes = integration.files(scope, base)
    # Undo in reverse, so a folder the first file's install created is empty (and goes)
    # when that file's turn comes.
    for change in reversed(changes) if remove else changes:
        if remove:
            outcome = undo.remove(change, state)
            ui.out({"restored": f"{change.path}: restored as it was before install",
                    "unmerged": f"{change.path}: removed the git-memory parts (the file changed"
                                " since install, so its formatting may differ)",
                    "absent": f"nothing to remove: {change.path} has no git-memory parts"}[outcome])
        elif undo.install(change, state):
            ui.out(f"{change.path}: added git-memory for {agent}")
        else:
            ui.out(f"{change.path}: already has git-memory for {agent}")
    return 0


@click.group("agent")
def agent_cmd() -> None:
    """Hooks for coding agents (Claude Code)."""


@agent_cmd.command("install")
@options.agent("claude", "Which agent.")
@options.scope()
def agent_install_cmd(agent: str, scope: str) -> int:
    """Merge our hooks into Claude Code settings (keeps every other key and hook)."""
    return run(scope=scope, remove=False, agent=agent)


@agent_cmd.command("uninstall")
@options.agent("claude", "Which agent.")
@options.scope()
def agent_uninstall_cmd(agent: str, scope: str) -> int:
    """Remove only our hooks from Claude Code settings."""
    return run(scope=scope, remove=True, agent=agent)

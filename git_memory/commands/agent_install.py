"""`git memory install --agent NAME [--remove]` (also `agent install|uninstall`).

Agents: claude, cursor, gemini, codex, vscode (see `agents.installers`). Project scope
writes under the work tree and keeps its undo records in the git directory; user
scope writes under the home directory and keeps them in $XDG_STATE_HOME.
"""

from __future__ import annotations

import os
from pathlib import Path

from git_memory import ui
from git_memory.agents import installers
from git_memory.errors import NotARepository, UsageProblem
from git_memory.store.locate import discover


def _state(scope: str, common_dir: Path | None) -> Path:
    if scope == "project" and common_dir is not None:
        return common_dir / "git-memory" / "agent-installs"
    base = os.environ.get("XDG_STATE_HOME") or os.path.join(os.path.expanduser("~"), ".local", "state")
    return Path(base) / "git-memory" / "agent-installs"


def run(*, scope: str, remove: bool, agent: str = "claude") -> int:
    if agent not in installers.AGENTS:
        raise UsageProblem(f"unknown agent {agent!r}; supported: {', '.join(installers.AGENTS)}")
    if scope not in ("project", "user"):
        raise UsageProblem(f"unknown scope {scope!r}; expected project or user")
    root = common = None
    if scope == "project":
        dirs = discover()
        if dirs.work_tree is None:
            raise NotARepository("--scope project needs a repository with a working tree")
        root, common = dirs.work_tree, dirs.common_dir
    state = _state(scope, common)
    plans = installers.plans(agent, scope, root)
    # Undo in reverse, so a folder the first file's install created is empty (and goes)
    # when that file's turn comes.
    for plan in reversed(plans) if remove else plans:
        if remove:
            outcome = installers.remove(plan, state)
            ui.out({"restored": f"{plan.path}: restored as it was before install",
                    "unmerged": f"{plan.path}: removed the git-memory parts (the file changed"
                                " since install, so its formatting may differ)",
                    "absent": f"nothing to remove: {plan.path} has no git-memory parts"}[outcome])
        elif installers.install(plan, state):
            ui.out(f"{plan.path}: added git-memory for {agent}")
        else:
            ui.out(f"{plan.path}: already has git-memory for {agent}")
    return 0

"""`git memory install` and `uninstall [--hooks a,b]`: the git hook shims in place, or out
again with any hook they chained put back (`--agent`: `agent_install`)."""

from __future__ import annotations

import os
from collections.abc import Iterable

import click

from git_memory import ui
from git_memory.cli import options
from git_memory.commands import agent_install
from git_memory.errors import UsageProblem
from git_memory.githooks.install import HookChange, install, parse_names, uninstall
from git_memory.store import gitrun
from git_memory.store.locate import discover, memory_ref
from git_memory.sync.refspec import ensure


def _shown(path: object) -> str:
    text = str(path)
    try:
        rel = os.path.relpath(text)
    except ValueError:
        return text
    return rel if not rel.startswith("../..") else text


def _say(changes: Iterable[HookChange], verbs: dict[str, str]) -> None:
    for change in changes:
        detail = f" ({change.detail})" if change.detail else ""
        verb = verbs.get(change.action, change.action)
        ui.out(f"{change.name}: {verb} at {_shown(change.path)}{detail}")


def run(*, hooks: str | None, auto_sync: bool | None = None) -> int:
    names = parse_names(hooks)
    if auto_sync is not None:
        if auto_sync and "pre-push" not in names:
            raise UsageProblem("--auto-sync works through the pre-push hook; include it in --hooks")
        _set_auto_sync(auto_sync)
    _say(install(names), {"unchanged": "already installed", "kept": "left alone"})
    _fetch_memory()
    return 0
def _fetch_memory() -> None:
    """Make each remote's fetch bring the memory branch (a --single-branch clone does not),
    so a plain `git fetch` or `git pull` shows teammates' entries in recall."""
    dirs = discover()
    for item, added in ensure(dirs, memory_ref(dirs)):
        if added:
            ui.out(f"{item.remote}: fetch now brings the memory branch (added {item.refspec})")
        else:
            ui.out(f"{item.remote}: fetch already brings the memory branch")


def _set_auto_sync(on: bool) -> None:
    """Record the choice in this repository's git config, where the pre-push hook reads it."""
    dirs = discover()
    gitrun.run(["config", "memory.autoSync", "true" if on else "false"], git_dir=dirs.common_dir,
               check=True, what="set memory.autoSync")
    ui.out(f"memory.autoSync: {'on (git push also syncs the memory branch)' if on else 'off'}")


@click.command("install")
@click.option("--hooks", metavar="A,B", help=options.HOOKS_HELP)
@click.option("--auto-sync/--no-auto-sync", "auto_sync", default=None,
              help="Also set memory.autoSync, so a plain `git push` syncs the memory branch"
              " (off unless asked).")
@options.agent(None, options.AGENT_HOOKS_HELP)
@options.scope("With --agent, ")
@click.option("--remove", is_flag=True, help="With --agent, take ours out again (the files as"
              " they were before install, byte for byte, unless edited since).")
def install_cmd(hooks: str | None, auto_sync: bool | None, agent: str | None, scope: str,
                remove: bool) -> int:
    """Install the git hook shims (idempotent; an existing hook is kept and chained).

    With --agent NAME, merge our hooks and MCP server into that agent's configuration
    instead."""
    if remove and not agent:
        raise click.UsageError("--remove goes with --agent; for git hooks use uninstall")
    if agent:
        return agent_install.run(scope=scope, remove=remove, agent=agent)
    return run(hooks=hooks, auto_sync=auto_sync)


@click.command("uninstall")
@click.option("--hooks", metavar="A,B", help=options.HOOKS_HELP)
@options.agent(None, options.AGENT_HOOKS_HELP)
@options.scope("With --agent, ")
def uninstall_cmd(hooks: str | None, agent: str | None, scope: str) -> int:
    """Remove the git hook shims and put back any hook they chained.

    With --agent NAME, take ours out of that agent's configuration."""
    if agent:
        return agent_install.run(scope=scope, remove=True, agent=agent)
    _say(uninstall(parse_names(hooks)), {"absent": "nothing to remove", "kept": "left alone"})
    return 0

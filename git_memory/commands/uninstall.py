"""`git memory uninstall [--hooks a,b]`: remove our shims, restoring chained hooks."""

from __future__ import annotations

import sys

import click

from git_memory import ui
from git_memory.cli import options
from git_memory.commands import agent_install
from git_memory.commands.install import _shown
from git_memory.githooks.install import parse_names, uninstall


def run(*, hooks: str | None) -> int:
    names = parse_names(hooks)
    for change in uninstall(names):
        detail = f" ({change.detail})" if change.detail else ""
        verb = {"absent": "nothing to remove", "kept": "left alone"}.get(change.action, change.action)
        ui.out(f"{change.name}: {verb} at {_shown(change.path)}{detail}")
    return 0


@click.command("uninstall")
@click.option("--hooks", metavar="A,B", help=options.HOOKS_HELP)
@options.agent(None, options.AGENT_HOOKS_HELP)
@options.scope("With --agent, ")
def uninstall_cmd(hooks: str | None, agent: str | None, scope: str) -> None:
    """Remove the git hook shims and put back any hook they chained.

    With --agent NAME, take ours out of that agent's configuration."""
    if agent:
        sys.exit(agent_install.run(scope=scope, remove=True, agent=agent))
    sys.exit(run(hooks=hooks))

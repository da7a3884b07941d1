"""`git memory uninstall [--hooks a,b]`: remove our shims, restoring chained hooks."""

from __future__ import annotations

from git_memory import ui
from git_memory.commands.install import _shown
from git_memory.githooks.install import parse_names, uninstall


def run(*, hooks: str | None) -> int:
    names = parse_names(hooks)
    for change in uninstall(names):
        detail = f" ({change.detail})" if change.detail else ""
        verb = {"absent": "nothing to remove", "kept": "left alone"}.get(change.action, change.action)
        ui.out(f"{change.name}: {verb} at {_shown(change.path)}{detail}")
    return 0

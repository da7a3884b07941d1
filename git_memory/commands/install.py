"""`git memory install [--hooks a,b]`: put the git hook shims in place."""

from __future__ import annotations

import os

from git_memory import ui
from git_memory.githooks.install import install, parse_names


def _shown(path: object) -> str:
    text = str(path)
    try:
        rel = os.path.relpath(text)
    except ValueError:
        return text
    return rel if not rel.startswith("../..") else text


def run(hooks: str | None) -> int:
    names = parse_names(hooks)
    for change in install(names):
        detail = f" ({change.detail})" if change.detail else ""
        verb = {"unchanged": "already installed", "kept": "left alone"}.get(change.action, change.action)
        ui.out(f"{change.name}: {verb} at {_shown(change.path)}{detail}")
    return 0

"""`git memory context`: the block an agent gets at session start (text, json, or the
JSON a SessionStart hook of claude, cursor, vscode or codex prints)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

from git_memory import ui
from git_memory.agents.agent_hooks import hook_output, payload_dir
from git_memory.agents.context import build
from git_memory.errors import NotARepository, UsageProblem
from git_memory.store.locate import GitDirs, discover

HOOK_FORMATS = ("claude", "cursor", "vscode", "codex")  # a SessionStart hook's JSON
FORMATS = ("text", "json", *HOOK_FORMATS)


def _payload_repo() -> GitDirs | None:
    """A hook started outside the repository (Cursor runs user hooks in ~/.cursor): the
    repository of the folder its payload names, if any."""
    folder = payload_dir()
    try:
        return discover(Path(folder)) if folder else None
    except NotARepository:
        return None


def run(*, budget: int, fmt: str) -> int:
    if fmt not in FORMATS:
        raise UsageProblem(f"unknown format {fmt!r}; expected one of: {', '.join(FORMATS)}")
    try:
        dirs = discover()
    except NotARepository:
        if fmt not in HOOK_FORMATS:
            raise
        found = _payload_repo()
        if found is None:
            return 0  # a session outside a repository: nothing to add, nothing to complain about
        dirs = found
    ctx = build(dirs, budget)
    if fmt in HOOK_FORMATS:
        payload = hook_output(fmt, ctx.text)
        sys.stdout.write(json.dumps(payload, ensure_ascii=False) + "\n")
    elif fmt == "json":
        ui.out_json(ctx.as_json())
    else:
        ui.out(ctx.text)
    return 0

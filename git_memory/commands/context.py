"""`git memory context`: the block an agent gets at session start (text, json, or the
JSON a SessionStart hook of claude, cursor, vscode or codex prints)."""

from __future__ import annotations

import json
import sys

from git_memory import ui
from git_memory.agents.agent_hooks import hook_output
from git_memory.agents.context import build
from git_memory.errors import NotARepository, UsageProblem
from git_memory.store.locate import discover

HOOK_FORMATS = ("claude", "cursor", "vscode", "codex")  # a SessionStart hook's JSON
FORMATS = ("text", "json", *HOOK_FORMATS)


def run(*, budget: int, fmt: str) -> int:
    if fmt not in FORMATS:
        raise UsageProblem(f"unknown format {fmt!r}; expected one of: {', '.join(FORMATS)}")
    try:
        dirs = discover()
    except NotARepository:
        if fmt in HOOK_FORMATS:
            return 0  # a session outside a repository: nothing to add, nothing to complain about
        raise
    ctx = build(dirs, budget)
    if fmt in HOOK_FORMATS:
        payload = hook_output(fmt, ctx.text)
        sys.stdout.write(json.dumps(payload, ensure_ascii=False) + "\n")
    elif fmt == "json":
        ui.out_json(ctx.as_json())
    else:
        ui.out(ctx.text)
    return 0

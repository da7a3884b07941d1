"""`git memory context`: the block an agent gets at session start (text, json, claude)."""

from __future__ import annotations

import json
import sys

from git_memory import ui
from git_memory.agents.context import build
from git_memory.errors import NotARepository, UsageProblem
from git_memory.store.locate import discover

FORMATS = ("text", "json", "claude")


def run(*, budget: int, fmt: str) -> int:
    if fmt not in FORMATS:
        raise UsageProblem(f"unknown format {fmt!r}; expected one of: {', '.join(FORMATS)}")
    try:
        dirs = discover()
    except NotARepository:
        if fmt == "claude":
            return 0  # a session outside a repository: nothing to add, nothing to complain about
        raise
    ctx = build(dirs, budget)
    if fmt == "claude":
        payload = {"hookSpecificOutput": {"hookEventName": "SessionStart",
                                          "additionalContext": ctx.text}}
        sys.stdout.write(json.dumps(payload, ensure_ascii=False) + "\n")
    elif fmt == "json":
        ui.out_json(ctx.as_json())
    else:
        ui.out(ctx.text)
    return 0

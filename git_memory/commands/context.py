"""`git memory context`: the block an agent gets at session start (text, json, or the
JSON an agent's SessionStart hook prints: `agents.integrations.context_formats()`)."""

from __future__ import annotations

import json
import os
import select
import sys
from pathlib import Path

import click

from git_memory import ui
from git_memory.agents import integrations
from git_memory.agents.context import build
from git_memory.errors import NotARepository
from git_memory.limits import MAX_COUNT
from git_memory.store.locate import GitDirs, discover

HOOK_FORMATS = integrations.context_formats()
FORMATS = ("text", "json", *HOOK_FORMATS)


def _payload_repo() -> GitDirs | None:
    """The repository of the folder a SessionStart hook's JSON on stdin names (`cwd`, else
    Cursor's first `workspace_roots`), for a hook started outside it (a user-scope Cursor
    hook runs in ~/.cursor). None when stdin is a terminal, stays silent for a second, or
    names no repository: the hook must never hang or fail the session."""
    try:
        if sys.stdin.isatty() or not select.select([sys.stdin], [], [], 1.0)[0]:
            return None
        data = json.loads(sys.stdin.read() or "null")
    except (OSError, ValueError):
        return None
    if not isinstance(data, dict):
        return None
    roots = data.get("workspace_roots")
    found = data.get("cwd") or (roots[0] if isinstance(roots, list) and roots else None)
    if not (isinstance(found, str) and os.path.isdir(found)):
        return None
    try:
        return discover(Path(found))
    except NotARepository:
        return None


@click.command("context")
@click.option("--budget", default=3000, show_default=True, type=click.IntRange(200, MAX_COUNT),
              help="Most characters to print (the whole block, wrapper included).")
@click.option("--format", "fmt", type=click.Choice(FORMATS),
              default="text", show_default=True,
              help="An agent's name: the JSON that agent's SessionStart hook prints.")
def context_cmd(*, budget: int, fmt: str) -> int:
    """What an agent should know at session start: this branch's handoff, preventions
    from recent failures, and entries relevant to the branch, its changes and recent
    commits, wrapped as untrusted knowledge."""
    try:
        dirs = discover()
    except NotARepository:
        if fmt not in HOOK_FORMATS:
            raise
        found = _payload_repo()
        if found is None:
            return 0  # a session outside a repository: nothing to add, nothing to complain about
        dirs = found
    # Not through Memory: an agent's session start waits for this, and api.memory's imports
    # (the writer, pygit2) would add ~80 ms to it; build reads the index itself.
    ctx = build(dirs, budget)
    if fmt in HOOK_FORMATS:
        payload = integrations.get(fmt).hook_output(ctx.text)
        sys.stdout.write(json.dumps(payload, ensure_ascii=False) + "\n")
    elif fmt == "json":
        ui.out_json(ctx.as_json())
    else:
        ui.out(ctx.text)
    return 0

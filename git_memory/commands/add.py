"""`git memory add TEXT`: one entry from an argument or stdin."""

from __future__ import annotations

import sys

from git_memory import ui
from git_memory.model import typed_text
from git_memory.sanitize.chars import check_text, decode_bytes
from git_memory.store.locate import discover
from git_memory.writer import NewEntry, write_entries


def read_text(text: str) -> str:
    """The entry text: the argument, or stdin for `-`."""
    if text == "-":
        return decode_bytes(sys.stdin.buffer.read(), "standard input")
    return text


def run(text: str, *, type_: str | None, tags: list[str], redact_secrets: bool = False,
        truncate: bool = False) -> int:
    """Add one entry. A secret in the text or a tag is refused (rule, field and line
    named, never the value) unless `redact_secrets`, which keeps the entry with the
    secret replaced by `[REDACTED:rule]`. A text over 8,000 characters is refused
    unless `truncate`, which keeps its first 8,000."""
    dirs = discover()
    body = check_text(read_text(text), "content")
    kind, rest = typed_text(body, type_)
    origin: dict[str, str] = {}
    if kind.lower() == "handoff":
        # A handoff is for the next session on this branch: context looks it up by branch.
        from git_memory.agents.gitinfo import current_branch

        branch = current_branch(dirs)
        if branch:
            origin["branch"] = branch
    entry = NewEntry(
        content=rest, type=kind, tags=list(tags), source="manual", origin=origin, label="text",
        allow_cut=truncate,
    )
    outcome = write_entries(dirs, [entry], f"memory: add {kind}", redact_secrets=redact_secrets)
    if outcome.redacted:
        ui.warn("a secret was replaced by [REDACTED:rule] (see `git memory audit`)")
    if outcome.added:
        for _, kept in outcome.cut:
            ui.warn(f"cut to {kept} characters (--truncate); the rest of the text was not stored")
        ui.out(outcome.added[0].id)
    else:
        existing = outcome.duplicates[0][1]
        ui.warn(f"already known as {existing}; reinforced it instead of adding a copy")
        ui.out(existing)
    return 0

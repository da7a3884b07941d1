"""`git memory add TEXT`: one entry from an argument or stdin."""

from __future__ import annotations

import sys

from git_memory import ui
from git_memory.curation.proposal_branch import SHORT_PREFIX, name_of, propose_entry, ref_for
from git_memory.curation.record_builders import check_reason
from git_memory.errors import BadInput, NotFound, UsageProblem
from git_memory.index.db import open_index
from git_memory.index.entries import find_entry
from git_memory.model import short_id, typed_text
from git_memory.sanitize.chars import check_text, decode_bytes
from git_memory.store.locate import GitDirs
from git_memory.store.sources import memory_dirs
from git_memory.writer import NewEntry, write_entries


def read_text(text: str) -> str:
    """The entry text: the argument, or stdin for `-`."""
    if text == "-":
        return decode_bytes(sys.stdin.buffer.read(), "standard input")
    return text


def run(text: str, *, type_: str | None, tags: list[str], redact_secrets: bool = False,
        truncate: bool = False, propose: str | None = None, supersedes: str | None = None,
        reason: str | None = None, personal: bool = False) -> int:
    """Add one entry. A secret in the text or a tag is refused (rule, field and line
    named, never the value) unless `redact_secrets`, which keeps the entry with the
    secret replaced by `[REDACTED:rule]`. A text over 8,000 characters is refused
    unless `truncate`, which keeps its first 8,000. With `propose`, the entry goes to
    the proposal branch `git-memory-proposals/NAME` for review instead, with
    `supersedes` (and its `reason`) as the entry it would replace. With `personal`, the
    entry goes to personal memory (created at the first one), never to this repository."""
    if propose is not None:
        ref_for(propose)  # a bad name is refused before stdin is read or anything written
    elif supersedes is not None or reason is not None:
        raise UsageProblem("--supersedes and --reason go with --propose NAME")
    if supersedes is not None:
        reason = check_reason(reason)
    elif reason is not None:
        raise UsageProblem("--reason goes with --supersedes ID")
    if personal and propose is not None:
        raise UsageProblem("--personal and --propose do not go together")
    dirs = memory_dirs(personal, create=True)
    body = check_text(read_text(text), "content")
    kind, rest = typed_text(body, type_)
    origin: dict[str, str] = {}
    if kind.lower() == "handoff" and not personal:
        # A handoff is for the next session on this branch: context looks it up by branch.
        from git_memory.agents.gitinfo import current_branch

        branch = current_branch(dirs)
        if branch:
            origin["branch"] = branch
    entry = NewEntry(
        content=rest, type=kind, tags=list(tags), source="manual", origin=origin, label="text",
        allow_cut=truncate,
    )
    if propose is not None:
        if redact_secrets:
            raise UsageProblem("--redact-secrets does not go with --propose: a proposal is"
                               " reviewed as written")
        return _propose(dirs, entry, propose, supersedes, reason or "")
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


def _replaced(dirs: GitDirs, ref: str | None) -> str | None:
    """The id of the entry a proposal would supersede: it must exist and be live."""
    if ref is None:
        return None
    index = open_index(dirs)
    try:
        row = find_entry(index, ref.strip())
    finally:
        index.close()
    if row is None:
        raise NotFound(f"no entry {ref!r}")
    if row["status"] in ("superseded", "redacted"):
        raise BadInput(f"entry {short_id(row['id'])} is {row['status']} already")
    return str(row["id"])


def _propose(dirs: GitDirs, entry: NewEntry, name: str, supersedes: str | None,
             reason: str) -> int:
    replaces = _replaced(dirs, supersedes)
    proposed = propose_entry(dirs, entry, name, replaces, reason)
    where = name_of(proposed.ref)
    if proposed.duplicate_of is not None:
        on = "the memory branch" if proposed.where == "memory" else proposed.where
        ui.warn(f"already known as {proposed.duplicate_of} on {on}; nothing proposed")
        ui.out(proposed.duplicate_of)
        return 0
    ui.warn(f"proposed on {SHORT_PREFIX}{where} (review: git memory diff"
            f" git-memory..{SHORT_PREFIX}{where})")
    ui.out(proposed.record.id)
    return 0

"""Handoffs: open items for the next session on a branch (`origin.branch`); the newest per
branch wins. Clearing writes one more handoff with `fields: {clear: true}`, so nothing is
deleted and the history of handoffs stays on the branch."""

from __future__ import annotations

import json

from git_memory.index.entries import latest_handoff
from git_memory.index.files import Index
from git_memory.index.schema import Row
from git_memory.model import Record
from git_memory.sanitize.scan import redact_string
from git_memory.store.branch import MemoryBranch
from git_memory.store.locate import GitDirs
from git_memory.write.append import NewEntry, prepare, write_entries


DETACHED = "(detached)"


def latest(index: "Index", branch: str) -> "Row | None":
    """The branch's current handoff, or None (none yet, or cleared)."""
    row = latest_handoff(index, branch)
    if row is None or json.loads(row["fields"] or "{}").get("clear"):
        return None
    return row


def record(dirs: GitDirs, text: str, branch: str, *, clear: bool = False) -> "Record":
    """Append a handoff (or a clear) for `branch` and return it."""
    item = NewEntry(
        content=text,
        type="handoff",
        source="manual",
        origin={"branch": branch},
        fields={"clear": True} if clear else {},
        label="handoff",
    )
    # A branch name is not ours to refuse: in the message it is redacted like in `origin`.
    message = (f"memory: {'clear the' if clear else 'record a'} handoff for"
               f" {redact_string(branch)[0]}")
    outcome = write_entries(dirs, [item], message, reinforce_duplicates=False)
    if outcome.added:
        return outcome.added[0]
    # The same words as an older entry. A handoff states what is open *now*, so it
    # is written again (pointing at the older one) rather than folded into it.
    branch_store = MemoryBranch(dirs)
    again = prepare(item, dirs, branch_store.author())
    again.fields["repeats"] = outcome.duplicates[0][1]
    branch_store.append([again], message)
    return again

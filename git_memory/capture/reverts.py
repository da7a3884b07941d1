"""Reverts of captured commits (docs/curation.md, "Reverts"). A commit whose message holds
git's `This reverts commit <sha>.` line undoes that commit: the entries captured from it
(found by their keys, which survive an amend or a rebase), when they name this branch or
none, get a `status` record `needs_review` naming the revert (`reverted_by`, `reverts`,
and `was`, the status before). A revert of that revert puts the change back, and a status
record puts back the status it had (`restored_by`). Each revert is counted once per entry,
so capturing a range again adds nothing. Imports `store` (the code history, the branch
writer), `index` (entries by key, their revert records) and `write` (the index refresh).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field

from git_memory.capture.commit import parse_message
from git_memory.index.db import open_index
from git_memory.index.entries import by_key, revert_marks
from git_memory.model import Record, new_id, utc_now
from git_memory.store.branch import MemoryBranch
from git_memory.store.commits import CodeCommit, History
from git_memory.store.locate import GitDirs
from git_memory.write.append import refresh_index

# git's own line (`git revert`, also "..., reversing changes made to <sha>." for a merge).
REVERT_LINE = re.compile(r"^This reverts commit ([0-9a-f]{7,40})\b", re.MULTILINE)
MAX_CHAIN = 32  # reverts of reverts followed back, at most


@dataclass
class RevertOutcome:
    """What one reverting commit did to the entries of the commit it undoes or restores."""

    revert: str  # the reverting commit
    undoes: bool  # True: the base commit's change is undone; False: it is back
    base: str  # the commit the entries were captured from (the end of the chain)
    flagged: list[str] = field(default_factory=list)
    cleared: list[str] = field(default_factory=list)
    elsewhere: list[tuple[str, str]] = field(default_factory=list)  # (id, its branch): left alone
    commit: str | None = None  # the memory commit, when something was written


def reverted_commit(message: str) -> str | None:
    """The commit `message` says it reverts (as written: short or full), or None."""
    found = REVERT_LINE.search(message)
    return found.group(1) if found else None


def _chain(history: History, commit: CodeCommit) -> tuple[list[str], str] | None:
    """The reverted commits, nearest first, and the base: the first that reverts nothing
    readable. None when `commit` reverts no commit git can read."""
    chain: list[str] = []
    seen = {commit.id}
    message = commit.message
    while len(chain) < MAX_CHAIN:
        named = reverted_commit(message)
        full = history.resolve(named) if named else None
        if full is None or full in seen:
            break
        chain.append(full)
        seen.add(full)
        message = history.read(full)[0]
    return (chain, chain[-1]) if chain else None


def follow_revert(dirs: GitDirs, commit: CodeCommit, branch: str | None) -> RevertOutcome | None:
    """Flag or clear the entries a reverting `commit` on `branch` concerns; None when it
    reverts nothing (no line, or a commit that cannot be read: nothing is written)."""
    if reverted_commit(commit.message) is None:
        return None
    history = History(dirs)
    found = _chain(history, commit)
    if found is None:
        return None
    chain, base = found
    undoes = len(chain) % 2 == 1  # a revert of a revert puts the change back
    outcome = RevertOutcome(commit.id, undoes, base)
    keys = list(dict.fromkeys(m.key for m in parse_message(history.read(base)[0])))
    if not keys:
        return outcome
    branch_ = MemoryBranch(dirs)
    if branch_.tip() is None:
        return outcome  # no memory yet: nothing was captured from it
    records = _records(dirs, keys, commit.id, chain[0], base, undoes, branch, outcome,
                       branch_.author())
    if records:
        written: dict[str, str] = {}
        verb = "flag" if undoes else "clear"
        noun = "entry" if len(records) == 1 else "entries"
        outcome.commit = branch_.append(
            records, f"memory: {verb} {len(records)} {noun}: {commit.id[:12]} reverts"
            f" {chain[0][:12]}", trailers=_trailers(records), written=written)
        refresh_index(dirs, {r.path: (written[r.path], r) for r in records if r.path in written})
    return outcome


def _records(dirs: GitDirs, keys: list[str], revert: str, reverted: str, base: str, undoes: bool,
             branch: str | None, outcome: RevertOutcome, author: str) -> list[Record]:
    records: list[Record] = []
    index = open_index(dirs)
    try:
        rows = {row["id"]: row for row in (by_key(index, key) for key in keys)
                if row is not None and row["kind"] == "entry"}
        for eid, row in rows.items():
            if row["status"] in ("superseded", "redacted"):
                continue
            named = (json.loads(row["origin"] or "{}") or {}).get("branch")
            if named and named != branch:
                outcome.elsewhere.append((eid, str(named)))
                continue
            state = json.loads(row["state"] or "{}")
            flagged_by, restored_by = revert_marks(index, eid)
            if undoes and revert not in flagged_by:
                was = (state.get("reverted") or {}).get("was") or row["status"]
                records.append(_status(eid, "needs_review", author, was=was, reverted_by=revert,
                                       reverts=base, review_reason=f"reverted by commit"
                                       f" {revert[:12]} (it undoes {base[:12]}, which this"
                                       " was captured from)"))
                outcome.flagged.append(eid)
            elif (not undoes and revert not in restored_by
                  and (state.get("reverted") or {}).get("by") == reverted):
                was = state["reverted"].get("was") or "active"
                records.append(_status(eid, was, author, restored_by=revert,
                                       review_reason=f"the revert {reverted[:12]} was reverted by"
                                       f" {revert[:12]}: the change is back"))
                outcome.cleared.append(eid)
    finally:
        index.close()
    return records


def _status(target: str, status: str, author: str, **fields: str) -> Record:
    return Record(id=new_id(), kind="status", created=utc_now(), author=author, source="commit",
                  fields={"target": target, "status": status, **fields})


def _trailers(records: list[Record]) -> list[tuple[str, str]]:
    out: list[tuple[str, str]] = []
    for record in records:
        out.append(("Status", f"{record.fields['target']} -> {record.fields['status']}"))
        out.append(("Review-Reason", str(record.fields["review_reason"])))
    return out

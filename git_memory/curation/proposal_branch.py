"""Proposal branches (`git-memory-proposals/NAME`, docs/curation.md, "Review through pull
requests"): entries written there for review, read back, applied with the duplicate check a
plain `git merge` skips, and traced after a merge (`arrival`, for `doctor`)."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from git_memory.curation import record_builders as build
from git_memory.errors import BadInput, ConcurrentUpdate
from git_memory.index.db import open_index
from git_memory.index.entries import by_hash
from git_memory.model import Record, content_hash, short_id
from git_memory.store.branch import CommitInfo, MemoryBranch, valid_ref_name
from git_memory.store.locate import GitDirs
from git_memory.store.record_format import MalformedRecord, dump_record, parse_record, record_path
from git_memory.write.append import NewEntry, prepare, redacted_reason

PREFIX = "refs/heads/git-memory-proposals/"
SHORT_PREFIX = "git-memory-proposals/"
TRAILER = "Proposal-Branch"  # on every commit a proposal branch gets, so a merge can be traced
LINKS = ("target", "by")  # record fields naming one entry
LIST_LINKS = ("merged_from", "supersedes")  # record fields naming several
MAX_WALK = 5000  # commits of first-parent history `arrival` reads before it gives up


class ProposalConflict(BadInput):
    """The proposal branch moved, or cannot be applied as it is."""


def ref_for(name: str) -> str:
    """`refs/heads/git-memory-proposals/NAME`; BadInput for an empty or invalid NAME."""
    name = name.strip()
    name = name.removeprefix(PREFIX) if name.startswith(PREFIX) else name.removeprefix(SHORT_PREFIX)
    ref = PREFIX + name
    if not name or not valid_ref_name(ref) or name.startswith("-"):
        raise BadInput(f"{name!r} is not a valid proposal name (git-memory-proposals/NAME must"
                       " be a valid branch name)")
    return ref


def name_of(ref: str) -> str:
    return ref.removeprefix(PREFIX)


@dataclass
class Proposed:
    """What the writer did with one proposed entry."""

    record: Record
    ref: str
    commit: str | None = None
    duplicate_of: str | None = None  # the entry that already holds this text
    where: str = ""  # "memory" or the proposal branch, for a duplicate


def added_records(branch: MemoryBranch, base: str | None, tip: str) -> list[Record]:
    """The records `tip` adds since `base` (all of them when base is None), oldest
    first; a malformed file is refused: a proposal must be readable to be reviewed."""
    files = branch.changes(base, tip)[0] if base else list(branch.iter_files(tip))
    records = []
    for change in files:
        try:
            records.append(parse_record(branch.read_blob(change.blob), change.path))
        except (MalformedRecord, KeyError) as exc:
            raise ProposalConflict(f"{change.path} on the proposal is not a readable record"
                                   f" ({exc})") from None
    return sorted(records, key=lambda r: (r.created, r.id))


def commit_records(
    branch: MemoryBranch, ref: str, parent: str, records: list[Record], message: str,
    trailers: list[tuple[str, str]], moved: BadInput, create: bool = False,
) -> str:
    """One commit of `records` on `parent`, moving `ref` only if it still points at it
    (else `moved` is raised: nothing was written)."""
    files = {r.path or record_path(r): dump_record(r).encode("utf-8") for r in records}
    try:
        return branch.commit_once(ref, parent, files, message, trailers, create)
    except ConcurrentUpdate:
        raise moved from None


def _duplicate_in_memory(dirs: GitDirs, record: Record) -> str | None:
    """The live entry holding this text on the memory branch (not one the record merges:
    a merge keeps the wording of one of its sources); a redacted one is refused."""
    sources = {str(i) for i in record.fields.get("merged_from") or []}
    index = open_index(dirs)
    try:
        rows = [r for r in by_hash(index, content_hash(record.content)) if r["kind"] == "entry"]
    finally:
        index.close()
    for row in rows:
        if row["status"] == "redacted":
            raise BadInput(redacted_reason(row["id"]))
    live = [r for r in rows if r["status"] != "superseded" and r["id"] not in sources]
    return live[0]["id"] if live else None


def propose_entry(
    dirs: GitDirs, item: NewEntry, name: str | None = None, replaces: str | None = None,
    reason: str = "",
) -> Proposed:
    """Put one entry on `git-memory-proposals/NAME` (default `agent-<short id>`), sanitized
    as `add` does; text the memory or the proposal holds already is not proposed twice
    (`duplicate_of`). With `replaces` (an entry id, checked by the caller), a supersede
    record of it by the new entry goes in the same commit, with `reason`."""
    ref = ref_for(name) if name is not None else None
    branch = MemoryBranch(dirs)
    record = prepare(item, dirs, branch.author())
    record.path = record.path or record_path(record)
    ref = ref or ref_for(f"agent-{short_id(record.id)}")
    proposed = Proposed(record, ref)
    existing = _duplicate_in_memory(dirs, record)
    if existing is not None:
        proposed.duplicate_of, proposed.where = existing, "memory"
        return proposed
    memory_tip = branch.ensure_init()
    parent = branch.ref_target(ref)
    if parent is not None:
        base = branch.merge_base(memory_tip, parent)
        digest = content_hash(record.content)
        for other in added_records(branch, base, parent):
            if other.kind == "entry" and content_hash(other.content) == digest:
                proposed.duplicate_of, proposed.where = other.id, name_of(ref)
                return proposed
    records = [record]
    if replaces:
        records.append(build.supersede(replaces, record.id, reason, record.author or "",
                                       created=record.created))
    message = f"memory: propose {record.type} {short_id(record.id)} on {name_of(ref)}"
    trailers = build.trailers(records[1:]) + [(TRAILER, name_of(ref))]
    moved = ProposalConflict(f"{name_of(ref)} moved while writing; nothing was written"
                             " (run it again)")
    proposed.commit = commit_records(branch, ref, parent or memory_tip, records, message,
                                     trailers, moved, create=parent is None)
    return proposed


# -- applying a proposal branch ---------------------------------------------------


@dataclass
class Applied:
    name: str
    base: str  # where the proposal left the memory branch
    records: list[Record] = field(default_factory=list)  # what was appended
    dropped: dict[str, str] = field(default_factory=dict)  # proposed id -> existing id
    commit: str | None = None


def _relink(record: Record, renamed: dict[str, str]) -> None:
    """Point a record's links at the entries that replace dropped duplicates."""
    for name in LINKS:
        value = record.fields.get(name)
        if isinstance(value, str) and value in renamed:
            record.fields[name] = renamed[value]
    for name in LIST_LINKS:
        values = record.fields.get(name)
        if isinstance(values, list):
            record.fields[name] = [renamed.get(str(v), v) for v in values]


def plan(dirs: GitDirs, name: str) -> Applied:
    """What applying the proposal would append: its records, less the entries whose
    text is live on the memory now (their links are moved to the entry that is there)."""
    ref = ref_for(name)
    branch = MemoryBranch(dirs)
    head = branch.ref_target(ref)
    if head is None:
        raise BadInput(f"no proposal branch {name_of(ref)}")
    tip = branch.ensure_init()
    base = branch.merge_base(tip, head)
    if base is None:
        raise ProposalConflict(f"{name_of(ref)} shares no history with the memory branch")
    removed = branch.changes(base, head)[1]
    if removed:
        raise ProposalConflict(f"{name_of(ref)} removes or changes {removed[0].path}; records"
                               " are never edited, so it cannot be applied")
    applied = Applied(name_of(ref), tip)
    records = added_records(branch, base, head)
    for record in records:
        if record.kind != "entry":
            continue
        existing = _duplicate_in_memory(dirs, record)
        if existing is not None and existing != record.id:
            applied.dropped[record.id] = existing
    for record in records:
        if record.id in applied.dropped or (record.path and branch.blob_at(tip, record.path)):
            continue  # a duplicate, or a file the memory has already (applied before)
        _relink(record, applied.dropped)
        applied.records.append(record)
    return applied


def apply_branch(dirs: GitDirs, applied: Applied) -> Applied:
    """Append a planned proposal's records to the memory branch in one commit, on the
    very tip the plan was made against (ProposalConflict if it moved: plan again)."""
    if not applied.records:
        raise BadInput(f"{applied.name} adds nothing the memory does not hold; nothing applied")
    branch = MemoryBranch(dirs)
    count = len(applied.records)
    message = f"memory: apply proposal {applied.name} ({count} record{'s' if count != 1 else ''})"
    trailers = build.trailers(applied.records) + [(TRAILER, applied.name)]
    moved = ProposalConflict("the memory branch moved while applying; nothing was written"
                             " (run it again)")
    applied.commit = commit_records(branch, branch.ref, applied.base, applied.records, message,
                                    trailers, moved)
    return applied


# -- tracing an entry back to the proposal that brought it --------------------------


@dataclass
class Arrival:
    """How an entry's file came onto the memory branch."""

    commit: str | None = None  # the first-parent commit that added it (a merge, or not)
    merge: bool = False
    proposal: str | None = None  # the proposal branch it came from, when known


_MERGED_NAME = re.compile(r"git-memory-proposals/([^\s'\"]+)")


def _trailer(message: str) -> str | None:
    for line in reversed(message.splitlines()):
        if line.startswith(TRAILER + ":"):
            return line.split(":", 1)[1].strip() or None
    return None


def arrival(branch: MemoryBranch, tip: str, path: str) -> Arrival:
    """The commit on the memory branch's first-parent line from `tip` that added `path`. A
    merge commit means it arrived from another history: the proposal is the
    `Proposal-Branch:` trailer of the commit that wrote it there, else the merge message's."""
    info = _adding(branch, tip, path)
    if info is None:
        return Arrival()
    found = Arrival(info.id, len(info.parents) > 1, _trailer(info.message))
    if found.merge:
        for parent in info.parents[1:]:
            source = _adding(branch, parent, path) if branch.blob_at(parent, path) else None
            if source is not None:
                found.proposal = _trailer(source.message) or found.proposal
                break
        if found.proposal is None:
            match = _MERGED_NAME.search(info.message)
            found.proposal = match.group(1) if match else None
    return found


def _adding(branch: MemoryBranch, sha: str, path: str) -> CommitInfo | None:
    """The commit on `sha`'s first-parent line that added `path` (None past MAX_WALK)."""
    for _ in range(MAX_WALK):
        info = branch.commit(sha)
        if not info.parents or branch.blob_at(info.parents[0], path) is None:
            return info
        sha = info.parents[0]
    return None

"""`Reads`: the part of `Memory` that reads entries, records and history; each answer is the
shape `--json` prints."""

from __future__ import annotations

import builtins
import json
from dataclasses import dataclass
from typing import Any, Callable, Generator, Iterable, Iterator, Sequence

from git_memory import ui
from git_memory.agents import embedding
from git_memory.api.watch import Warm
from git_memory.curation.candidates import LOW_CONFIDENCE
from git_memory.errors import BadInput, NotFound, UsageProblem
from git_memory.fold import EXPLICIT_STATUSES
from git_memory.index import stats
from git_memory.index.build.update import export_snapshot, iter_export_records, records_by_ids
from git_memory.index.db import Index
from git_memory.index.entries import (
    by_hash,
    by_id,
    entry_dict,
    find_entry,
    hashes,
    iter_entries,
    known_ids,
    review_queue,
    source_label,
    state_of,
)
from git_memory.embed import query as by_meaning
from git_memory.index.rank.search import find
from git_memory.index.vectors import store_path
from git_memory.index.schema import Row
from git_memory.index.sessions import search_sessions
from git_memory.isotime import parse_since
from git_memory.limits import MAX_COUNT
from git_memory.model import Record, content_hash
from git_memory.sanitize import audit
from git_memory.store.branch import CommitInfo, MemoryBranch
from git_memory.store.locate import repo_path
from git_memory.store.record_format import MalformedRecord, parse_record

AUDIT_FIELDS = ("time", "rule", "action", "detail", "source", "ref")
BULK = 2000  # from this many texts on, `text_holders` reads every hash at once
STATUSES = (*EXPLICIT_STATUSES, "superseded", "redacted")  # every status the fold gives
MACHINE_SOURCES = ("distill", "agent")  # written by a program, not typed by a person
SOURCE_NAMES = {"distill": "distilled", "agent": "agent-written"}


@dataclass(frozen=True)
class Diff:
    """The records between two memory commits: each file's path and record (None when
    it does not parse)."""

    old: str  # the merge base when `merge_base`
    new: str
    merge_base: bool
    added: list[tuple[str, Record | None]]
    removed: list[tuple[str, Record | None]]


class Reads(Warm):
    def recall(self, query: str = "", *, types: Sequence[str] = (), tags: Sequence[str] = (),
               paths: Sequence[str] = (), since: str | None = None, limit: int = 10,
               include_all: bool = False, recent: int | None = None,
               cwd: str | None = None, explain: bool = False) -> list[dict[str, Any]]:
        """Entries ranked for `query`, best first: by keywords, fused with the nearest
        entries by meaning once this memory has vectors (docs/recall.md). `paths` rank
        entries anchored there higher (relative to `cwd`, default the repository's top);
        `since`: a date or an age (7d, 2w, 3mo); `recent`: only the N newest; `explain`: each
        entry gets an `explain` dict (terms, keyword score, cosine, model, found_by)."""
        if not 1 <= limit <= MAX_COUNT:
            raise UsageProblem(f"limit must be between 1 and {MAX_COUNT}")
        if not (query.strip() or recent or paths):
            raise UsageProblem("recall needs a query (or recent, or paths)")
        stamp = parse_since(since) if since else None
        top = cwd or (str(self.dirs.work_tree) if self.dirs.work_tree else None)
        wanted = [p for p in (repo_path(self.dirs, p, top) for p in paths) if p]
        index = self.index()
        meaning = None
        if query.strip() and not recent and store_path(self.dirs).exists():
            meaning = by_meaning.hits(index, query, types=list(types), tags=list(tags),
                                      include_all=include_all, since=stamp)
            if meaning is not None and meaning.near.coverage[0] < meaning.near.coverage[1]:
                embedding.start(self.dirs)  # what a pull brought, embedded in the background
        return find(index, query, types=types, tags=tags, since=stamp,
                    include_all=include_all, paths=wanted, limit=limit, recent=recent,
                    memo=self.memo, meaning=meaning, explain=explain)

    def list(self, *, types: Sequence[str] = (), tags: Sequence[str] = (),
             statuses: Sequence[str] = (), include_all: bool = False,
             limit: int | None = None, brief: bool = False) -> Iterator[dict[str, Any]]:
        """Entries newest first, streamed (current ones unless `include_all` or `statuses`
        say otherwise); `brief`: only what a listing line shows."""
        wanted = check_statuses(statuses)
        index = self.index()
        rows = iter_entries(index, tuple(types), tuple(tags), include_all, limit,
                            statuses=wanted)
        adopted = index.adopted()
        shape: Callable[[Row], dict[str, Any]] = (
            _Brief(adopted) if brief else lambda row: entry_dict(row, adopted))
        return (shape(row) for row in rows)

    def show(self, ref: str) -> dict[str, Any]:
        """One entry by id, short id or key (NotFound): its fields, what it replaces and what
        replaced it, transitively."""
        index = self.index()
        row = find_entry(index, ref.strip())
        if row is None:
            raise NotFound(f"no entry {ref!r}")
        return _gather(index, row)

    def entry(self, entry_id: str) -> dict[str, Any] | None:
        """One entry by its full id as `list --json` shapes it, or None."""
        index = self.index()
        row = by_id(index, entry_id)
        return None if row is None else entry_dict(row, index.adopted())

    def snapshot(self) -> tuple[int, Generator[Record, None, None]]:
        """How many records there are and the records, from one read (export's header
        states the count before the records stream); close the generator when done."""
        return export_snapshot(self.index())

    def records(self) -> Iterator[Record]:
        """Every record (entries and curation events), as `export` writes them."""
        return iter_export_records(self.index())

    def known_ids(self, ids: Sequence[str]) -> set[str]:
        """Which of these record ids the memory holds (any kind)."""
        return known_ids(self.index(), builtins.list(ids))

    def entries_by_ids(self, ids: Sequence[str]) -> dict[str, Record]:
        return records_by_ids(self.index(), ids)

    def text_holders(self, texts: Sequence[str]) -> dict[str, builtins.list[tuple[str, str]]]:
        """For each text's hash, the (status, id) of the entries holding that text."""
        index = self.index()
        if len(texts) < BULK:
            digests = [content_hash(text) for text in texts]
            return {digest: [(row["status"], row["id"]) for row in by_hash(index, digest)
                             if row["kind"] == "entry"] for digest in digests}
        # one read of every hash beats a query per text
        return {h: [(s, i) for s, i, _ in rows] for h, rows in hashes(index).items()}

    def diff(self, spec: str) -> Diff:
        """The records between two memory commits, `A..B` as in git (an empty side or a lone
        `A` is the memory tip); when B is not a descendant of A, what B adds since their merge
        base, as a pull request shows it."""
        branch = MemoryBranch(self.dirs)
        left, sep, right = spec.partition("..")
        old, new = _revision(branch, left), _revision(branch, right if sep else "")
        base = None if branch.is_ancestor(old, new) else branch.merge_base(old, new)
        added, removed = branch.changes(base or old, new)
        return Diff(base or old, new, base is not None, _read(branch, added),
                    _read(branch, removed))

    def log(self) -> Iterator[tuple[CommitInfo, int, int]]:
        """The memory branch's history, newest first, streamed: each commit with the record
        files it added (or changed) and removed against its first parent."""
        branch = MemoryBranch(self.dirs)
        tip = branch.tip()
        for commit in branch.history(tip) if tip is not None else ():
            added, removed = branch.count_changes(commit.parents[0] if commit.parents else None,
                                                  commit.id)
            yield commit, added, removed

    def audit(self, *, rule: str | None = None) -> builtins.list[dict[str, str]]:
        """The local audit log (every sanitizer and hook action), oldest first."""
        return [{name: str(item.get(name, "")) for name in AUDIT_FIELDS}
                for item in audit.read(self.dirs) if not rule or item.get("rule") == rule]

    def sessions(self, query: str, *, limit: int = 10) -> builtins.list[dict[str, Any]]:
        """Archived agent sessions ranked for `query` (session, path, title, snippet, score)."""
        return search_sessions(self.dirs, query, limit)

    def sizes(self) -> dict[str, int]:
        """entries, records (entries and curation) and malformed files skipped."""
        return stats.sizes(self.index())

    def review_queue(self) -> builtins.list[dict[str, Any]]:
        """The entries waiting for review, oldest first, each with `waiting`: why, in words."""
        found = []
        for row in review_queue(self.index(), MACHINE_SOURCES, LOW_CONFIDENCE):
            entry = entry_dict(row)
            entry["waiting"] = _waiting_why(row)
            found.append(entry)
        return found


def check_statuses(statuses: Sequence[str]) -> tuple[str, ...]:
    """The statuses asked for, each one the fold knows (else a usage error naming them)."""
    wanted = tuple(dict.fromkeys(s.strip().lower().replace("-", "_") for s in statuses))
    for status in wanted:
        if status not in STATUSES:
            raise UsageProblem(f"unknown status {status!r}; expected one of: {', '.join(STATUSES)}")
    return wanted


def _waiting_why(row: Row) -> list[str]:
    why = []
    if row["status"] == "needs_review":
        why.append("needs review")
    if row["source"] in SOURCE_NAMES:
        why.append(SOURCE_NAMES[row["source"]])
    if row["confidence"] is not None and row["confidence"] < LOW_CONFIDENCE:
        why.append(f"low confidence {row['confidence']:.2f}")
    return why


def _revision(branch: MemoryBranch, rev: str) -> str:
    """The commit `rev` names (NotFound, BadInput); "" is the memory tip."""
    if not rev:
        tip = branch.tip()
        if tip is None:
            raise NotFound("no memory branch yet")
        return tip
    commit = branch.resolve(rev)
    if commit is None:
        raise BadInput(f"unknown revision {rev!r}")
    return commit


def _read(branch: MemoryBranch, changes: Iterable[Any]) -> list[tuple[str, Record | None]]:
    out: list[tuple[str, Record | None]] = []
    for change in changes:
        try:
            out.append((change.path, parse_record(branch.read_blob(change.blob), change.path)))
        except (MalformedRecord, KeyError):
            out.append((change.path, None))
    return out


def _chain(index: Index, start: str, field: str) -> list[str]:
    """Follow supersedes/superseded_by links transitively, cycle-safe, nearest first."""
    seen: list[str] = []
    todo = [start]
    while todo:
        current = todo.pop(0)
        for nxt in state_of(index, current).get(field, []):
            if nxt not in seen and nxt != start:
                seen.append(nxt)
                todo.append(nxt)
    return seen


def _summary(index: Index, entry_id: str) -> dict[str, Any]:
    row = by_id(index, entry_id)
    if row is None:
        return {"id": entry_id, "status": "unknown", "content": ""}
    return {"id": entry_id, "status": row["status"], "type": row["type"],
            "content": row["content"] if row["status"] != "redacted" else "(redacted)"}


def _gather(index: Index, row: Row) -> dict[str, Any]:
    entry = entry_dict(row, index.adopted())
    state = json.loads(row["state"]) if row["state"] else {}
    forward = _chain(index, entry["id"], "superseded_by")
    backward = _chain(index, entry["id"], "supersedes")
    entry["replaced_by_chain"] = forward
    entry["replaces_chain"] = backward
    entry["merged_into"] = state.get("merged_into", [])
    entry["current"] = [
        eid for eid in forward if not state_of(index, eid).get("superseded_by")
    ]
    entry["provenance"] = {
        "replaces": [_summary(index, eid) for eid in backward],
        "replaced_by": [_summary(index, eid) for eid in forward],
    }
    entry["anchors"] = row["anchors"].split() if row["anchors"] else []
    entry["reinforcements"] = state.get("reinforcements", 0)
    entry["contradictions"] = state.get("contradictions", 0)
    entry["reasons"] = state.get("reasons", [])
    if state.get("reverted"):
        entry["reverted"] = state["reverted"]  # by, reverts, was: docs/curation.md, "Reverts"
    if entry["status"] == "redacted":
        entry["content"] = "(redacted)"
    return entry


class _Brief:
    """The fields a listing line shows, read from a row without `entry_dict`'s four JSON
    parses; tag lists and ages are remembered by their stored text (a long listing
    repeats them)."""

    LIMIT = 10_000  # remembered values of each kind; cleared when full

    def __init__(self, adopted: str | None) -> None:
        self.adopted = adopted  # the label of local rows when a remote's copy stands in
        self.tags: dict[str, list[str]] = {}
        self.ages: dict[str, str] = {}

    def __call__(self, row: Row) -> dict[str, Any]:
        raw, created = row["tags"], row["created"]
        tags = self.tags.get(raw)
        if tags is None:
            tags = self.tags[raw] = json.loads(raw)
        when = self.ages.get(created)
        if when is None:
            when = self.ages[created] = ui.age(created)
        if len(self.tags) > self.LIMIT or len(self.ages) > self.LIMIT:
            self.tags.clear()
            self.ages.clear()
        return {"id": row["id"], "type": row["type"], "content": row["content"], "tags": tags,
                "status": row["status"], "created": created, "age": when,
                "from": source_label(row) or self.adopted}

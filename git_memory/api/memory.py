"""`Memory`: one repository's memory as a Python object, the library under every front end.

`Memory(path)` opens the memory of the repository holding `path` (NotARepository when
there is none). Its methods are the product's operations: reads return the shapes
`--json` prints (plain dicts, lists of them, or `graph.values.Graph`), writes return
frozen dataclasses naming what was written; none prints, every failure is a
`GitMemoryError` subclass. The index stays open between calls (warm) and is reopened,
and so caught up, only when what it must reflect changed (`api.watch.Watch`), so one
object may serve many calls (the MCP server keeps one for its whole life). An open
SQLite handle belongs to its thread: make one `Memory` per thread.
docs/api.md shows each method with a runnable example.
"""

from __future__ import annotations

import builtins
import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Generator, Iterable, Iterator, Sequence

from git_memory import ui
from git_memory.agents import handoff as handoffs
from git_memory.agents.gitinfo import current_branch
from git_memory.api import curating, promoting
from git_memory.api.promoting import Demoted, Promoted
from git_memory.api.watch import Watch, inode
from git_memory.curation import proposal as prop
from git_memory.curation import promotion
from git_memory.curation.in_git_hook import running_hook
from git_memory.curation.promotion import Promotion
from git_memory.curation.proposal import Proposal
from git_memory.curation.proposal_branch import Applied, apply_branch, plan, propose_entry, ref_for
from git_memory.curation.purge import purge
from git_memory.curation.record_builders import trailers
from git_memory.curation.record_builders import check_reason as clean_reason
from git_memory.curation.record_builders import event
from git_memory.errors import BadInput, NotFound, UsageProblem
from git_memory.fold import EXPLICIT_STATUSES
from git_memory.index import stats
from git_memory.index.db import Index, build_in_background, current_stamp, open_index
from git_memory.index.entries import (
    by_hash,
    by_id,
    entry_dict,
    find_entry,
    hashes,
    iter_entries,
    known_ids,
    redaction_of,
    review_queue,
    source_label,
    state_of,
)
from git_memory.index.graph import entries_by_ids
from git_memory.index.schema import Row
from git_memory.index.rank.search import find
from git_memory.index.sessions import search_sessions
from git_memory.index.build.update import export_snapshot, iter_export_records, records_by_ids
from git_memory.isotime import parse_since
from git_memory.limits import MAX_COUNT
from git_memory.model import Record, content_hash, short_id, split_marker, typed_text
from git_memory.sanitize import audit
from git_memory.sanitize.chars import check_text
from git_memory.sanitize.scan import redact_string
from git_memory.store.branch import CommitInfo, MemoryBranch
from git_memory.store.commits import Objects
from git_memory.store.locate import GitDirs, discover, repo_path
from git_memory.store.record_format import MalformedRecord, parse_record
from git_memory.store.rewrite import forget, note_applied
from git_memory.write.append import NewEntry, write_entries


if TYPE_CHECKING:
    from git_memory.agents.context import Context
    from git_memory.graph.values import Graph
    from git_memory.agents.session_capture import CaptureResult
    from git_memory.write.bulk_items import LineSource
    from git_memory.write.bulk import BulkOutcome
    from git_memory.capture.history import RangeReport
    from git_memory.githooks.push import PushFinding
    from git_memory.sync.engine import SyncReport

# Imports marked "lazy: not for add, list, show" (and the type-checking block above): the
# graph, session capture, context, curate's candidates, doctor's checks, capture, the push
# scan, import and sync cost 2-11 ms each to import, which `add`, `list` and `show` through `Memory` must not pay: with them all at
# the top, `git memory add` took 1.39x the CPU time (medians of 15, issue #30's imports
# piece).

AUDIT_FIELDS = ("time", "rule", "action", "detail", "source", "ref")
BULK = 2000  # from this many texts on, `text_holders` reads every hash at once

# Every status the fold gives an entry.
STATUSES = (*EXPLICIT_STATUSES, "superseded", "redacted")


@dataclass(frozen=True)
class Added:
    """What `add` did: the new entry's id, or the existing entry it reinforced."""

    id: str
    duplicate_of: str | None = None  # the entry that already held this text (reinforced)
    redacted: bool = False  # a secret was replaced by [REDACTED:rule] (redact_secrets)
    cut_to: int | None = None  # characters kept (truncate)


@dataclass(frozen=True)
class Proposed:
    """What `propose` did: the entry on a proposal branch, or the entry already holding it."""

    id: str
    ref: str  # refs/heads/git-memory-proposals/NAME
    duplicate_of: str | None = None
    where: str = ""  # for a duplicate: "memory" or the proposal branch holding it


@dataclass(frozen=True)
class Curated:
    """The records a curation appended (in one commit) and a line saying what it did."""

    ids: tuple[str, ...]
    summary: str


@dataclass(frozen=True)
class Purged:
    """What `purge` rewrote: the file and blob gone from history, and refs it could not
    rewrite that still hold them."""

    path: str
    blob: str
    rewritten: int  # commits
    still_holding: list[str]


@dataclass(frozen=True)
class Diff:
    """The records between two memory commits: each file's path and record (None when
    it does not parse)."""

    old: str  # the merge base when `merge_base`
    new: str
    merge_base: bool
    added: builtins.list[tuple[str, Record | None]]
    removed: builtins.list[tuple[str, Record | None]]


@dataclass(frozen=True)
class Handoff:
    id: str
    branch: str
    cleared: bool


@dataclass(frozen=True)
class Near:
    """An entry near another in the knowledge graph (`related`), best first."""

    id: str
    score: float
    reasons: list[str]
    type: str
    status: str
    content: str


class Memory:
    """One repository's memory; see the module docstring and docs/api.md."""

    def __init__(self, path: str | os.PathLike[str] | None = None) -> None:
        """The memory of the repository holding `path`; None: as git finds it from the
        working directory (`GIT_DIR` honoured)."""
        self._open(discover(path))

    @classmethod
    def at(cls, dirs: GitDirs) -> Memory:
        """The memory of repository directories already found (personal memory's too)."""
        memory = cls.__new__(cls)
        memory._open(dirs)
        return memory

    def _open(self, dirs: GitDirs) -> None:
        self.dirs = dirs
        self._index: Index | None = None
        self._inode: int | None = None  # of the index file the open connection reads
        self._watch = Watch(dirs)
        # What searches keep for the open index (index.search.find's `memo`); a new one
        # whenever the index is reopened, so nothing in it outlives the index state.
        self.memo: dict[str, Any] = {}

    def __enter__(self) -> Memory:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        if self._index is not None:
            self._index.close()
            self._index = None

    def index(self) -> Index:
        """The open index, reopened (and so caught up) when the memory branch moved,
        a fetch moved a source, or the index file was replaced (a rebuild swaps a new
        file in: the open connection would go on reading the old one)."""
        replaced = self._index is not None and inode(self._index.path) != self._inode
        if self._index is not None and not replaced and not self._watch.changed():
            return self._index
        self._watch.look()
        if self._index is not None and (
                replaced or (self._index.stamp, self._index.sources) != current_stamp(self.dirs)):
            self.close()
        if self._index is None:
            self._index = open_index(self.dirs)
            self._inode = inode(self._index.path)
            self.memo = {}
        return self._index

    # -- reading -------------------------------------------------------------

    def recall(self, query: str = "", *, types: Sequence[str] = (), tags: Sequence[str] = (),
               paths: Sequence[str] = (), since: str | None = None, limit: int = 10,
               include_all: bool = False, recent: int | None = None,
               cwd: str | None = None) -> list[dict[str, Any]]:
        """Entries ranked for `query`, best first, as `recall --json` prints them. `paths`
        rank entries anchored there higher (relative to `cwd`, default the repository's
        top); `since`: a date or an age (7d, 2w, 3mo); `recent`: only the N newest."""
        if not 1 <= limit <= MAX_COUNT:
            raise UsageProblem(f"limit must be between 1 and {MAX_COUNT}")
        if not (query.strip() or recent or paths):
            raise UsageProblem("recall needs a query (or recent, or paths)")

        stamp = parse_since(since) if since else None
        top = cwd or (str(self.dirs.work_tree) if self.dirs.work_tree else None)
        wanted = [p for p in (repo_path(self.dirs, p, top) for p in paths) if p]
        return find(self.index(), query, types=types, tags=tags, since=stamp,
                    include_all=include_all, paths=wanted, limit=limit, recent=recent,
                    memo=self.memo)

    def list(self, *, types: Sequence[str] = (), tags: Sequence[str] = (),
             statuses: Sequence[str] = (), include_all: bool = False,
             limit: int | None = None, brief: bool = False) -> Iterator[dict[str, Any]]:
        """Entries newest first, as `list --json` prints them, streamed from the index
        (current ones unless `include_all` or `statuses` say otherwise). `brief`: only
        what a listing line shows (id, type, content, tags, status, created, age, from),
        without four JSON parses a row."""
        wanted = check_statuses(statuses)
        index = self.index()
        rows = iter_entries(index, tuple(types), tuple(tags), include_all, limit,
                            statuses=wanted)
        adopted = index.adopted()
        shape: Callable[[Row], dict[str, Any]] = (
            _Brief(adopted) if brief else lambda row: entry_dict(row, adopted))
        return (shape(row) for row in rows)

    def show(self, ref: str) -> dict[str, Any]:
        """One entry by id, short id or key (NotFound), as `show --json` prints it: its
        fields, what it replaces and what replaced it, transitively."""
        index = self.index()
        row = find_entry(index, ref.strip())
        if row is None:
            raise NotFound(f"no entry {ref!r}")
        return _gather(index, row)

    def related(self, ref: str, *, limit: int = 10) -> builtins.list[Near]:
        """The entries nearest to one entry in the knowledge graph (shared paths,
        identifiers, tags, provenance), with scores and reasons."""
        from git_memory.graph import query  # lazy: not for add, list, show

        index = self.index()
        found = query.related(index, entry_id=ref.strip(), limit=limit)
        rows = entries_by_ids(index, [r.entry_id for r in found])
        return [Near(r.entry_id, r.score, r.reasons, rows[r.entry_id]["type"],
                     rows[r.entry_id]["status"], str(rows[r.entry_id]["content"]))
                for r in found if r.entry_id in rows]

    def graph(self, ref: str | None = None, *, path: str | None = None, tag: str | None = None,
              depth: int = 1, limit: int = 1000) -> Graph:
        """The knowledge graph around entry `ref`, a path or a tag (`depth` steps out), or
        all of it; at most `limit` nodes (a cut is said in its `note`)."""
        from git_memory.graph import query  # lazy: not for add, list, show

        return query.neighbourhood(self.index(), entry_id=ref, path=path, tag=tag, depth=depth,
                                   limit=limit)

    def provenance(self, ref: str) -> Graph:
        """An entry's provenance: what it replaces and merged, what replaced it."""
        from git_memory.graph import query  # lazy: not for add, list, show

        return query.provenance(self.index(), entry_id=ref)

    def entry(self, entry_id: str) -> dict[str, Any] | None:
        """One entry by its full id as `list --json` shapes it, or None."""
        index = self.index()
        row = by_id(index, entry_id)
        return None if row is None else entry_dict(row, index.adopted())

    def snapshot(self) -> tuple[int, Generator[Record, None, None]]:
        """How many records there are and the records, from one read (export's header
        states the count before the records stream); close the generator when done."""
        return export_snapshot(self.index())

    def known_ids(self, ids: Sequence[str]) -> set[str]:
        """Which of these record ids the memory holds (any kind)."""
        return known_ids(self.index(), builtins.list(ids))

    def entries_by_ids(self, ids: Sequence[str]) -> dict[str, Record]:
        """The entries with these ids, as records."""
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
        """The records between two memory commits, `A..B` as in git (an empty side is the
        memory tip; `A` alone is `A..tip`; any revision git accepts). When B is not a
        descendant of A (a proposal made before the memory moved on), what B adds since
        their merge base, as a pull request would show it."""
        branch = MemoryBranch(self.dirs)
        left, sep, right = spec.partition("..")
        old, new = _revision(branch, left), _revision(branch, right if sep else "")
        base = None if branch.is_ancestor(old, new) else branch.merge_base(old, new)
        added, removed = branch.changes(base or old, new)
        return Diff(base or old, new, base is not None, _read(branch, added),
                    _read(branch, removed))

    def import_transcript(self, path: str | Path, *,
                          archive: str = "always") -> CaptureResult:
        """The knowledge markers of an agent transcript (Claude Code's JSON lines) captured
        through the writer, and the session archived (`archive`: "always" refreshes the
        archived copy, "missing" writes it only when not archived yet); importing again
        adds only what is new."""
        from git_memory.agents.session_capture import capture_file  # lazy: not for add, list, show

        return capture_file(self.dirs, path, archive_mode=archive)

    def sessions(self, query: str, *, limit: int = 10) -> builtins.list[dict[str, Any]]:
        """Archived agent sessions ranked for `query` (session, path, title, snippet, score)."""
        return search_sessions(self.dirs, query, limit)

    def sizes(self) -> dict[str, int]:
        """entries, records (entries and curation) and malformed files skipped."""
        return stats.sizes(self.index())

    def doctor(self) -> dict[str, Any]:
        """Every check of `git memory doctor`, as `doctor --json` prints it, masked for
        secrets, plus `problems`: how many were found (api/health.py)."""
        from git_memory.api import health  # lazy: not for add, list, show

        return health.report(self.dirs)

    def records(self) -> Iterator[Record]:
        """Every record as the index holds it (entries and curation events), as `export`
        writes them."""
        return iter_export_records(self.index())

    def review_queue(self) -> builtins.list[dict[str, Any]]:
        """The entries waiting for review, oldest first, as `list --json` shapes them plus
        `waiting` (why, in words)."""
        from git_memory.curation.candidates import LOW_CONFIDENCE  # lazy: not for add, list, show

        found = []
        for row in review_queue(self.index(), MACHINE_SOURCES, LOW_CONFIDENCE):
            entry = entry_dict(row)
            entry["waiting"] = waiting_why(row)
            found.append(entry)
        return found

    def context(self, budget: int = 3000) -> Context:
        """What an agent gets at session start on this branch (as `git memory context`)."""
        from git_memory.agents.context import build  # lazy: not for add, list, show

        if budget < 200:
            raise UsageProblem("budget must be at least 200 characters")
        if self._index is not None:
            self.index()  # kept warm and current; build opens its own short-lived handle
        return build(self.dirs, budget)

    def curate(self) -> Proposal:
        """What curation would change (a dry run: nothing written); `digest` names it for
        `git memory curate --apply --proposal DIGEST`."""
        return prop.compute(self.dirs)

    def review_text(self, ref: str) -> str:
        """The text of an entry a review may decide about (in view, not redacted)."""
        return str(curating.reviewable(self.index(), ref)["content"])

    def apply_curation(self, digest: str) -> tuple[Proposal, str]:
        """Append the proposal the dry run named `digest` (ProposalChanged when the memory
        moved since), in one commit: (the proposal, the commit)."""
        return prop.apply(self.dirs, digest)

    def propose_curation(self, name: str) -> tuple[Proposal, str, str]:
        """The proposal written on branch `git-memory-proposals/NAME`, one commit per change,
        for a pull request: (the proposal, the ref, its tip)."""
        return prop.propose(self.dirs, name)

    def plan_proposal(self, name: str) -> Applied:
        """What applying proposal branch NAME would append (nothing written): its records,
        less entries whose text the memory holds by now (their links moved to that entry)."""
        return plan(self.dirs, name)

    def apply_proposal(self, planned: Applied) -> Applied:
        """A planned proposal branch's records appended, on the tip it was planned against
        (ProposalConflict when the memory moved: plan again)."""
        return apply_branch(self.dirs, planned)

    def promotions(self) -> builtins.list[Promotion]:
        """Promotions to personal memory and demotions curate proposes (each one command)."""
        return promotion.find(self.index())

    # -- writing -------------------------------------------------------------

    def add(self, text: str, *, type: str | None = None, tags: Sequence[str] = (),
            source: str = "manual", on_branch: bool | None = None,
            redact_secrets: bool = False, truncate: bool = False) -> Added:
        """One entry: `text` starts with a marker (LEARNED:, DECISION:, ...) or `type` names
        it. A secret is refused (SecretFound) unless `redact_secrets`; a text over 8,000
        characters is refused unless `truncate`. The same text twice reinforces the first.
        `on_branch`: record the current branch in its origin (None: for a handoff only)."""
        entry = self._new_entry(text, type, tags, source, on_branch, truncate)
        label = f" ({source})" if source != "manual" else ""
        outcome = write_entries(self.dirs, [entry], f"memory: add {entry.type}{label}",
                                redact_secrets=redact_secrets)
        cut = outcome.cut[0][1] if outcome.cut else None
        if outcome.added:
            return Added(outcome.added[0].id, None, bool(outcome.redacted), cut)
        existing = outcome.duplicates[0][1]
        return Added(existing, existing, bool(outcome.redacted), cut)

    def propose(self, text: str, name: str | None = None, *, type: str | None = None,
                tags: Sequence[str] = (), supersedes: str | None = None,
                reason: str | None = None, source: str = "manual",
                on_branch: bool | None = None) -> Proposed:
        """One entry on the proposal branch `git-memory-proposals/NAME` for review (created
        or appended to; default name `agent-<short id>`), with the writer's checks; with
        `supersedes`, the live entry it would replace, and a `reason`."""
        if name is not None:
            ref_for(name)  # a bad name is refused before anything is sanitized or written
        why = clean_reason(reason) if supersedes is not None else ""
        if supersedes is None and reason is not None:
            raise UsageProblem("a reason goes with supersedes")
        replaces = self._replaced(supersedes)
        entry = self._new_entry(text, type, tags, source, on_branch)
        done = propose_entry(self.dirs, entry, name, replaces, why)
        return Proposed(done.duplicate_of or done.record.id, done.ref, done.duplicate_of,
                        done.where)

    def handoff(self, text: str = "", *, clear: bool = False,
                branch: str | None = None) -> Handoff:
        """Open items for the next session on `branch` (default: the current one; newest
        wins), or with `clear` an end to them."""
        if clear == bool(text if not clear else text.strip()):
            raise UsageProblem("give either text or clear")
        name = branch or current_branch(self.dirs) or handoffs.DETACHED
        if clear:
            shown = redact_string(name)[0]  # a branch named after a token is not written as is
            record = handoffs.record(self.dirs, f"Handoff cleared for branch {shown}.", name,
                                     clear=True)
            return Handoff(record.id, name, True)
        marker, rest = split_marker(check_text(text, "handoff"))
        if marker not in (None, "handoff"):
            raise UsageProblem(f"a handoff cannot start with {marker.upper()}:")
        return Handoff(handoffs.record(self.dirs, rest, name).id, name, False)

    def supersede(self, old: str, new: str, *, reason: str) -> Curated:
        """Entry `old` replaced by entry `new` (no cycles, nothing redacted)."""
        return self.write_records(
            reason, "memory: supersede",
            lambda index, author, why: curating.supersede(index, old, new, author, why))

    def merge(self, refs: Sequence[str], *, content: str, reason: str) -> Curated:
        """Two or more entries replaced by one new entry holding `content`."""
        if len(refs) < 2:
            raise UsageProblem("merge needs at least two entries")
        body = check_text(content, "--content")
        return self.write_records(
            reason, "memory: merge",
            lambda index, author, why: curating.merge(index, list(refs), body, author, why))

    def flag(self, ref: str, *, status: str, reason: str) -> Curated:
        """An entry's status set (needs_review, deprecated, canonical, ...)."""
        return self.write_records(
            reason, "memory: flag",
            lambda index, author, why: curating.flag(index, ref, status, author, why))

    def redact(self, ref: str, *, reason: str) -> Curated:
        """An entry (or a curation record) hidden everywhere; its text stays in history
        until `git memory purge`."""
        return self.write_records(
            reason, "memory: redact",
            lambda index, author, why: curating.redact(index, ref, author, why))

    def reinforce(self, ref: str, *, reason: str | None = None) -> Curated:
        return self.write_records(
            reason, "memory: reinforce",
            lambda index, author, why: curating.event(index, "reinforce", ref, author, why),
            required=False)

    def contradict(self, ref: str, *, reason: str) -> Curated:
        return self.write_records(
            reason, "memory: contradict",
            lambda index, author, why: curating.event(index, "contradict", ref, author, why))

    def write_records(self, reason: str | None, message: str, make: curating.Builder,
                      required: bool = True) -> Curated:
        """Check the reason (a secret is refused and logged), build the records from the
        index, append them in one commit whose trailers name the provenance."""
        why = curating.check_reason(self.dirs, reason, required)
        branch = MemoryBranch(self.dirs)
        made, summary = make(self.index(), branch.author(), why)
        branch.ensure_init()
        branch.append(made, message, trailers=trailers(made))
        return Curated(tuple(record.id for record in made), summary)

    def accept(self, refs: Sequence[str], *, reason: str | None = None) -> Curated:
        """Review: each entry made `canonical`, the reviewer as the record's author."""
        return self.write_records(
            reason, "memory: review, accept",
            lambda index, author, why: curating.accept(index, builtins.list(refs), author, why),
            required=False)

    def reject(self, refs: Sequence[str], *, reason: str) -> Curated:
        """Review: each entry redacted (hidden, its text refused from then on)."""
        return self.write_records(
            reason, "memory: review, reject",
            lambda index, author, why: curating.reject(index, builtins.list(refs), author, why))

    def edit(self, ref: str, text: str, *, reason: str | None = None) -> Curated:
        """Review: a new canonical entry with `text` superseding entry `ref` (or the
        visible entry holding that text already)."""
        return self.write_records(
            reason, "memory: review, edit",
            lambda index, author, why: curating.edit(index, ref, text, author, why),
            required=False)

    def promote(self, ref: str, *, to: str) -> Promoted:
        """A copy of an entry in personal (`to="personal"`) or this repository's memory
        (`"team"`), with `promoted_from` (repository, id, commit)."""
        return promoting.promote(self.index(), ref, to)

    def demote(self, ref: str, *, reason: str | None = None) -> Demoted:
        """A promoted copy marked needs_review where it lives."""
        return promoting.demote(self.index(), ref, reason)

    def purge(self, ref: str, *, confirm: Callable[[str], bool]) -> Purged | None:
        """History rewritten without a redacted entry (or curation record), and a purge
        record left on the branch: `confirm(path)` is asked first; None when it says no.
        Never from a git hook. Every clone's next sync rewrites its own copy."""
        hook = running_hook()
        if hook:
            raise BadInput(f"refused: purge never runs from a git hook (running inside {hook})")
        index = self.index()
        row = curating.resolve_any(index, ref)
        path, blob, entry_id, status = row["path"], row["blob"], row["id"], row["status"]
        if row["kind"] != "entry" and redaction_of(index, entry_id) is not None:
            status = "redacted"  # a curation record: hidden by a redact record aimed at it
        if status != "redacted":
            raise BadInput(f"entry {short_id(entry_id)} is not redacted; run"
                           f" `git memory redact {short_id(entry_id)} --reason ...` first")
        if not confirm(path):
            return None
        self.close()
        branch = MemoryBranch(self.dirs)
        result = purge(branch, blob)
        record = event("purge", entry_id, "purged from history", branch.author(), blobs=[blob],
                       paths=[path])
        branch.append([record], f"memory: purge {short_id(entry_id)}",
                      trailers=[("Memory-Purge", blob)])
        note_applied(self.dirs, {blob: (entry_id, False)})  # sync catches a forced push dropping it
        self.reindex()  # the old index still holds the text
        forget(self.dirs, [branch.ref, *result.refs], {blob})
        return Purged(path, blob, result.rewritten, result.still_holding)

    def restore(self, records: Sequence[Record], *,
                progress: Callable[[int, int], None] | None = None) -> dict[str, Any]:
        """Records of a lossless export appended as they are, in one commit; those already
        held are left alone. What `import --json` of an export prints."""
        present = self.known_ids([r.id for r in records])
        new = [r for r in records if r.id not in present]
        entries = sum(1 for r in new if r.kind == "entry")
        commit = None
        if new:
            commit = MemoryBranch(self.dirs).append(
                new, f"memory: restore {ui.plural(len(new), 'record')} from an export"
                f" ({ui.plural(entries, 'entry')})")
            self.reindex(progress=progress, rebuild=False)
        return {"restored": len(new), "entries": entries, "curation": len(new) - entries,
                "present": len(present), "commit": commit}

    def reindex(self, *, progress: Callable[[int, int], None] | None = None,
                rebuild: bool = True) -> None:
        """The index rebuilt from the memory branch (a new file swapped in), or with
        `rebuild=False` caught up with it; `progress(done, total)` while it builds."""
        self.close()
        self._watch.look()
        self._index = open_index(self.dirs, progress=progress, force_rebuild=rebuild)
        self._inode = inode(self._index.path)
        self.memo = {}

    def build_in_background(self) -> bool:
        """Build, resume or catch up the index unless another process is building (then
        False at once): the detached build an agent hook starts."""
        return build_in_background(self.dirs)

    def init(self) -> tuple[str, bool]:
        """The memory branch created if it is missing: its tip, and whether it was made now."""
        branch = MemoryBranch(self.dirs)
        before = branch.repo.references.get(branch.ref)
        return branch.ensure_init(), before is None

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

    def capture(self, rev_range: str | None = None, *, dry_run: bool = False,
                progress: Callable[[int, int], None] | None = None) -> RangeReport:
        """The knowledge markers of commits already made (`A..B`, `A...B` or a revision and
        its history; None: HEAD's history less what an earlier capture read), through the
        post-commit hook's checks."""
        from git_memory.capture.history import capture_range  # lazy: not for add, list, show

        return capture_range(self.dirs, rev_range, dry_run=dry_run, progress=progress)

    def scan(self, rev_range: str | None = None) -> tuple[int, builtins.list[PushFinding]]:
        """The memory branch scanned for secrets (all of its history, or the commits of
        `rev_range`): how many commits were read, and each finding (never the value)."""
        from git_memory.githooks.push import scan_commits  # lazy: not for add, list, show

        branch = MemoryBranch(self.dirs)
        objects = Objects(self.dirs)
        commits = objects.in_range(rev_range, branch.tip())
        return len(commits), scan_commits(objects, commits, branch.ref)

    def import_(self, items: Iterable[NewEntry] | LineSource, *, message: Callable[[int], str],
                progress: Callable[[], None] | None = None, redact_secrets: bool = True,
                workers: int = 0) -> BulkOutcome:
        """Many entries (or an import file's lines, `bulk_items.LineSource`) in one commit
        named by `message(count)`, streamed, with the writer's checks (`workers`: processes
        preparing them; `progress()` after each). The next read catches the index up, or
        `reindex(rebuild=False)` at once."""
        from git_memory.write.bulk import write_bulk  # lazy: not for add, list, show

        return write_bulk(self.dirs, items, message, progress=progress,
                          redact_secrets=redact_secrets, workers=workers)

    def sync(self, remote: str | None = None) -> SyncReport:
        """Fetch, union-merge and push the memory branch with `remote` (default: the
        branch's upstream or the only remote)."""
        from git_memory.sync import engine  # lazy: not for add, list, show

        return engine.sync(self.dirs, remote)

    def pull(self, remote: str | None = None) -> SyncReport:
        from git_memory.sync import engine  # lazy: not for add, list, show

        return engine.pull(self.dirs, remote)

    def push(self, remote: str | None = None) -> SyncReport:
        from git_memory.sync import engine  # lazy: not for add, list, show

        return engine.push(self.dirs, remote)

    # -- helpers -------------------------------------------------------------

    def _new_entry(self, text: str, type_: str | None, tags: Sequence[str], source: str,
                   on_branch: bool | None, truncate: bool = False) -> NewEntry:
        body = check_text(text, "content")
        kind, rest = typed_text(body, type_, option="type" if source != "manual" else "--type")
        origin: dict[str, str] = {}
        # A handoff is for the next session on this branch: context looks it up by branch.
        if on_branch or (on_branch is None and kind.lower() == "handoff"):
            branch = current_branch(self.dirs)
            if branch:
                origin["branch"] = branch
        return NewEntry(content=rest, type=kind, tags=list(tags), source=source,
                        origin=origin, label="text", allow_cut=truncate)

    def _replaced(self, ref: str | None) -> str | None:
        """The id of the entry a proposal would supersede: it must exist and be live."""
        if ref is None:
            return None
        row = find_entry(self.index(), ref.strip())
        if row is None:
            raise NotFound(f"no entry {ref!r}")
        if row["status"] in ("superseded", "redacted"):
            raise BadInput(f"entry {short_id(row['id'])} is {row['status']} already")
        return str(row["id"])


def check_statuses(statuses: Sequence[str]) -> tuple[str, ...]:
    """The statuses asked for, each one the fold knows (else a usage error naming them)."""
    wanted = tuple(dict.fromkeys(s.strip().lower().replace("-", "_") for s in statuses))
    for status in wanted:
        if status not in STATUSES:
            raise UsageProblem(f"unknown status {status!r}; expected one of: {', '.join(STATUSES)}")
    return wanted


MACHINE_SOURCES = ("distill", "agent")  # written by a program, not typed by a person
SOURCE_NAMES = {"distill": "distilled", "agent": "agent-written"}


def waiting_why(row: Row) -> list[str]:
    """Why an entry is in the review queue, in words."""
    from git_memory.curation.candidates import LOW_CONFIDENCE  # lazy: not for add, list, show

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

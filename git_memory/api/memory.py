"""`Memory`: one repository's memory as a Python object, the library under every front end
(docs/api.md). Its reads (`api.reads`) and writes (`api.writes`) load with it; the derived
views (`api.derived`) and the upkeep (`api.upkeep`) are imported on first use."""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Iterable

from git_memory.api.reads import Reads
from git_memory.api.writes import Writes
from git_memory.errors import UsageProblem
from git_memory.graph.values import Graph, Near
from git_memory.index.db import build_in_background
from git_memory.store.locate import GitDirs, discover
from git_memory.write.append import NewEntry

if TYPE_CHECKING:
    from git_memory.agents.context import Context
    from git_memory.agents.session_capture import CaptureResult
    from git_memory.api.derived import Derived
    from git_memory.api.upkeep import Upkeep
    from git_memory.capture.history import RangeReport
    from git_memory.githooks.push import PushFinding
    from git_memory.sync.engine import SyncReport
    from git_memory.write.bulk import BulkOutcome
    from git_memory.write.bulk_items import LineSource


class Memory(Reads, Writes):
    """One repository's memory. The index stays open between calls and is reopened (so
    caught up) only when what it reflects changed (`api.watch`); an open SQLite handle
    belongs to its thread: one `Memory` per thread."""

    def __init__(self, path: str | os.PathLike[str] | None = None) -> None:
        """The memory of the repository holding `path`; None: as git finds it (`GIT_DIR`)."""
        super().__init__(discover(path))

    @classmethod
    def at(cls, dirs: GitDirs) -> Memory:
        """The memory of repository directories already found (personal memory's too)."""
        memory = cls.__new__(cls)
        super(Memory, memory).__init__(dirs)
        return memory

    # -- derived views

    def related(self, ref: str, *, limit: int = 10) -> list[Near]:
        """The entries nearest to one entry in the knowledge graph (shared paths,
        identifiers, tags, provenance), with scores and reasons."""
        return _derived().related(self.index(), entry_id=ref.strip(), limit=limit)

    def graph(self, ref: str | None = None, *, path: str | None = None, tag: str | None = None,
              depth: int = 1, limit: int = 1000) -> Graph:
        """The knowledge graph around entry `ref`, a path or a tag (`depth` steps out), or
        all of it; at most `limit` nodes (a cut is said in its `note`)."""
        return _derived().graph(self.index(), entry_id=ref, path=path, tag=tag, depth=depth,
                                limit=limit)

    def provenance(self, ref: str) -> Graph:
        """An entry's provenance: what it replaces and merged, what replaced it."""
        return _derived().provenance(self.index(), entry_id=ref)

    def context(self, budget: int = 3000) -> Context:
        """What an agent gets at session start on this branch (as `git memory context`)."""
        if budget < 200:
            raise UsageProblem("budget must be at least 200 characters")
        if self._index is not None:
            self.index()  # kept warm and current; build opens its own short-lived handle
        return _derived().context(self.dirs, budget)

    # -- upkeep

    def doctor(self) -> dict[str, Any]:
        """Every check of `git memory doctor`, masked for secrets, and `problems`: how many."""
        return _upkeep().doctor(self.dirs)

    def build_in_background(self) -> bool:
        """Build, resume or catch up the index unless another process is building (then
        False at once): the detached build an agent hook starts."""
        return build_in_background(self.dirs)

    def capture(self, rev_range: str | None = None, *, dry_run: bool = False,
                progress: Callable[[int, int], None] | None = None) -> RangeReport:
        """The knowledge markers of commits already made (`A..B`, `A...B` or a revision and
        its history; None: HEAD's history less what an earlier capture read), through the
        post-commit hook's checks."""
        return _upkeep().capture(self.dirs, rev_range, dry_run=dry_run, progress=progress)

    def import_transcript(self, path: str | Path, *,
                          archive: str = "always") -> CaptureResult:
        """The knowledge markers of an agent transcript captured through the writer (again:
        only what is new), and the session archived (`archive="missing"`: if it is not yet)."""
        return _upkeep().import_transcript(self.dirs, path, archive_mode=archive)

    def scan(self, rev_range: str | None = None) -> tuple[int, list[PushFinding]]:
        """The memory branch scanned for secrets (all of its history, or the commits of
        `rev_range`): how many commits were read, and each finding (never the value)."""
        return _upkeep().scan(self.dirs, rev_range)

    def import_(self, items: Iterable[NewEntry] | LineSource, *, message: Callable[[int], str],
                progress: Callable[[], None] | None = None, redact_secrets: bool = True,
                workers: int = 0) -> BulkOutcome:
        """Many entries (or an import file's lines) streamed into one commit named by
        `message(count)`, with the writer's checks, `workers` processes preparing them."""
        return _upkeep().import_(self.dirs, items, message, progress=progress,
                                 redact_secrets=redact_secrets, workers=workers)

    def sync(self, remote: str | None = None) -> SyncReport:
        """Fetch, union-merge and push the memory branch with `remote` (default: the
        branch's upstream or the only remote)."""
        return _upkeep().sync(self.dirs, remote)

    def pull(self, remote: str | None = None) -> SyncReport:
        return _upkeep().pull(self.dirs, remote)

    def push(self, remote: str | None = None) -> SyncReport:
        return _upkeep().push(self.dirs, remote)


def _derived() -> type[Derived]:
    from git_memory.api.derived import Derived  # lazy: not for add, list, show (1.25x add's CPU)

    return Derived


def _upkeep() -> type[Upkeep]:
    from git_memory.api.upkeep import Upkeep  # lazy: not for add, list, show (1.25x add's CPU)

    return Upkeep

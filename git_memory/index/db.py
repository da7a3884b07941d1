"""The index database: open it, stamp it, keep it current with the memory branch, rebuild it.

Every reader calls `open_index()`, which compares the stamp (the memory commit
the index reflects) with the branch tip read from ref files. When they match,
no pygit2 and no YAML are imported: that is the hot path of `recall`. When they
differ, the index catches up by tree diff if the stamp is an ancestor of the
tip, and is rebuilt otherwise. A missing file, or one from another schema
version, is built by `index.build` into `index.sqlite.build` in committed
batches, resumed after a kill, and swapped in when whole; one build runs at a
time (`index.build.lock`), and a reader that finds one running waits for it,
showing its progress. A reader that must not wait (an agent hook: `wait=False`)
gets `IndexBuilding` instead when more than `SMALL_CHANGE` files are missing, and
answers from what it can read cheaply. A damaged file (sqlite3.DatabaseError
on open or on any later read) is left to the error boundary (`exits.guarded`),
which calls `rebuild_damaged` once, says so on stderr and runs the command again.
Lookups live in `entries`, `flags` and `stats`; this module reads only the stamp.
"""

from __future__ import annotations

import os
import sqlite3
from pathlib import Path

from git_memory.errors import GitMemoryError
from git_memory.index.files import (
    LOCK_FD_VAR, BuildLock, Index, Progress, WriterLock, build_progress, connect, index_path,
    set_stamp,
)
from git_memory.index.rank import semantic
from git_memory.index.schema import INDEX_NAME, INDEXES, SCHEMA, SCHEMA_VERSION, Known, transaction
from git_memory.store.locate import GitDirs, discover, memory_ref, memory_tip
from git_memory.store.loose import NotLoose, changes_since
from git_memory.store.sources import Source, signature, sources

# `typing` is off the hot path (docs/architecture.md): for the type checker only.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

# The build, the fold, the model and the search-text helpers (index.build)
# and pygit2 (store.branch) load only on the write side, inside the functions that catch
# up or rebuild: a current index, recall's hot path, needs none of them. Those imports sit
# in functions for speed only, not to dodge a cycle: they import nothing from this module.

BIG_CHANGE = 5000  # files; a larger catch-up that also outnumbers the index rebuilds instead
SMALL_CHANGE = 2000  # files; more than this missing and a reader that cannot wait gets IndexBuilding
# Set by the error boundary when stderr is a terminal: a build that a command waits for
# shows its progress there (exits.guarded); None elsewhere (hooks, pipes).
default_progress: Progress | None = None
_held: list[BuildLock] = []  # the build lock, while this process holds it


__all__ = ["INDEX_NAME", "Index", "IndexBuilding", "index_path", "open_index"]


class IndexBuilding(GitMemoryError):
    """The index is missing or far behind the branch; a build is due (or running)."""


def _stamp_of(conn: sqlite3.Connection) -> tuple[int, str | None, str | None, str | None]:
    """(schema version, stamp, ref, sources) or raise sqlite3.DatabaseError for a bad file."""
    version = conn.execute("PRAGMA user_version").fetchone()[0]
    if version != SCHEMA_VERSION:
        return version, None, None, None
    rows = dict(conn.execute("SELECT k, v FROM meta").fetchall())
    return version, rows.get("stamp"), rows.get("ref"), rows.get("sources")


def current_stamp(dirs: GitDirs) -> tuple[str | None, str]:
    """(local tip, sources signature) as an index current right now would be stamped."""
    ref = memory_ref(dirs)
    return memory_tip(dirs, ref), signature(sources(dirs, ref))


def open_index(
    dirs: GitDirs, progress: Progress | None = None, force_rebuild: bool = False,
    known: Known | None = None, wait: bool = True,
) -> Index:
    """The index, brought up to date with the memory branch first (`known`: see Known).

    `wait=False`: raise IndexBuilding rather than build, or catch up more than
    SMALL_CHANGE files (the caller answers without the index and starts a build)."""
    ref = memory_ref(dirs)
    tip = memory_tip(dirs, ref)
    sig = signature(sources(dirs, ref))
    path = index_path(dirs)
    if not force_rebuild and path.exists():
        # A truncated or corrupt file raises sqlite3.DatabaseError here or in any later
        # read: exits.guarded rebuilds the index once and says so on stderr.
        conn = connect(path)
        version, stamp, stamped_ref, stamped_sig = _stamp_of(conn)
        if version == SCHEMA_VERSION and stamped_ref == ref and stamped_sig == sig:
            if stamp == (tip or ""):
                return Index(conn, dirs, tip, path, sig)
            if tip and _from(conn, stamp) and _loose_catch_up(
                    conn, dirs, tip, known, None if wait else SMALL_CHANGE, sig):
                return Index(conn, dirs, tip, path, sig)
        conn.close()
    elif not wait and not force_rebuild and tip is not None:
        raise IndexBuilding("the index is being built")  # no index: nothing small to do
    return _catch_up(dirs, ref, progress or default_progress, force_rebuild, known,
                     None if wait else SMALL_CHANGE)


def rebuild_damaged(dirs: GitDirs | None = None) -> None:
    """Throw away a damaged index and build it again from the branch (exits.guarded
    calls this when a command hit a sqlite3.DatabaseError)."""
    dirs = dirs or discover()
    open_index(dirs, force_rebuild=True).close()


def _loose_catch_up(
    conn: sqlite3.Connection, dirs: GitDirs, tip: str, known: Known | None = None,
    limit: int | None = None, sig: str = "",
) -> bool:
    """A few new commits made of loose objects (the usual `add`): catch up without pygit2.

    With sources (`sig`), only additions qualify: a file added locally replaces a
    source's row at its path; a removal may uncover one, which needs the overlay."""
    with WriterLock(dirs):
        _, stamp, ref, stamped_sig = _stamp_of(conn)  # again, under the lock: another reader may have won
        if stamped_sig != sig:
            return False
        if stamp == tip:
            return True
        found = changes_since(dirs.common_dir, stamp or "", tip) if _from(conn, stamp) else None
        if found is None:
            return False
        reader, added, removed = found
        if len(added) + len(removed) > min(BIG_CHANGE, limit or BIG_CHANGE) or (sig and removed):
            return False
        try:
            _apply_changes(conn, reader, added, removed, tip, ref or "", dirs, known)
        except NotLoose:
            return False  # an added file's blob is packed: the general path reads it
        return True


def _catch_up(
    dirs: GitDirs, ref: str, progress: Progress | None, force: bool,
    known: Known | None = None, limit: int | None = None,
) -> Index:
    """Catch up by tree diff, else build (waiting for a build another process runs).
    With `limit`, never build: IndexBuilding when more than `limit` files are missing."""
    from git_memory.store.branch import MemoryBranch  # lazy: hot path; pygit2, only when behind

    branch = MemoryBranch(dirs)
    if not force:
        found = _incremental(dirs, branch, ref, known, limit)
        if found is not None:
            return found
    if limit is not None:
        raise IndexBuilding("the index is being built")
    lock = _held[0] if _held else BuildLock(dirs)
    if not _held:
        lock.wait(dirs, progress)  # another build may be running: wait for it
    try:
        found = None if force else _incremental(dirs, branch, ref, known, None)
        if found is not None:
            return found  # the build we waited for made the index current
        _build(dirs, branch, ref, progress, known, force)
    finally:
        if not _held:
            lock.release()
    return open_index(dirs, progress, known=known)  # the branch may have moved meanwhile


def _incremental(
    dirs: GitDirs, branch: Any, ref: str, known: Known | None, limit: int | None
) -> Index | None:
    """The index, current or caught up by tree diff; None when a build is due."""
    path = index_path(dirs)
    if not path.exists():
        return None
    with WriterLock(dirs):
        tip = branch.tip()
        found = sources(dirs, ref)  # again, under the lock
        conn = connect(path)  # damage raises: see open_index
        version, stamp, stamped_ref, stamped_sig = _stamp_of(conn)
        if version == SCHEMA_VERSION and stamped_ref == ref:
            if stamp == (tip or ""):
                if stamped_sig != signature(found):
                    _follow_sources(conn, dirs, tip, found)
                return Index(conn, dirs, tip, path, signature(found))
            if tip and _from(conn, stamp) and (
                    not stamp or branch.has_commit(stamp) and branch.is_ancestor(stamp, tip)):
                if _apply_diff(conn, branch, stamp or "", tip, known, limit):
                    _follow_sources(conn, dirs, tip, found)
                    return Index(conn, dirs, tip, path, signature(found))
        conn.close()
    return None


def _from(conn: sqlite3.Connection, stamp: str | None) -> bool:
    """Whether an index stamped `stamp` can catch up by a diff from it: a commit, or the
    empty memory (stamp '', no local row): a repository's first write then adds its
    files, instead of a second build of an index made a moment before."""
    if stamp:
        return True
    return stamp == "" and conn.execute(
        "SELECT 1 FROM records WHERE src = '' LIMIT 1").fetchone() is None


def _follow_sources(
    conn: sqlite3.Connection, dirs: GitDirs, tip: str | None, found: list[Source]
) -> None:
    """After the local branch: the rows read-only sources add (index.overlay), and the
    sources' part of the stamp. With no source and no such row, only the stamp."""
    with transaction(conn, "BEGIN IMMEDIATE"):
        _source_rows(conn, dirs, tip, found)


def _source_rows(
    conn: sqlite3.Connection, dirs: GitDirs, tip: str | None, found: list[Source]
) -> None:
    """_follow_sources inside the caller's transaction (a build's last one, too)."""
    if found or conn.execute("SELECT 1 FROM records WHERE src != '' LIMIT 1").fetchone():
        from git_memory.index.build.overlay import reconcile  # lazy: hot path; the write side, with sources only

        reconcile(conn, dirs, tip, found)
    conn.execute("INSERT OR REPLACE INTO meta(k, v) VALUES ('sources', ?)", (signature(found),))


def _build(
    dirs: GitDirs, branch: Any, ref: str, progress: Progress | None, known: Known | None,
    force: bool,
) -> dict[str, int]:
    from git_memory.index.build.full import build  # lazy: hot path; the write side

    tip = branch.tip()

    def finish(conn: sqlite3.Connection) -> None:
        # The sources' rows and stamp in the build's own last transaction: done after the
        # swap instead, they were a second pass whose commit waited for the kernel to
        # write out the whole new file (0.15 s at 100k) before the first answer.
        _source_rows(conn, dirs, tip, sources(dirs, ref))
        _embed(conn, dirs)

    return build(dirs, branch, ref, tip, progress, known, fresh=force, finish=finish)


def build_in_background(dirs: GitDirs) -> bool:
    """The detached build an agent hook starts: build or catch up, unless another
    process is building already (then return False at once). The hook that started us
    may have taken the lock for us (its descriptor named in LOCK_FD_VAR)."""
    lock = BuildLock(dirs)
    inherited = os.environ.pop(LOCK_FD_VAR, "")
    if not (inherited.isdigit() and lock.adopt(int(inherited))) and not lock.try_acquire():
        return False
    _held.append(lock)
    try:
        open_index(dirs).close()
    finally:
        _held.pop()
        lock.release()
    return True


def _new_db(path: Path, indexes: bool = True) -> sqlite3.Connection:
    """An empty index database at `path` (tests and bench/rank_eval.py build on it)."""
    conn = connect(path)
    conn.executescript(SCHEMA + (INDEXES if indexes else ""))
    conn.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")
    return conn


def _embed(conn: sqlite3.Connection, dirs: GitDirs) -> None:
    """Semantic vectors for a rebuilt index (when on); a catch-up leaves them to recall."""
    folder = semantic.enabled(dirs)
    if folder is not None:
        semantic.sync(conn, folder)


def sync_vectors(index: Index, folder: str) -> None:
    """At recall, with semantic ranking on: embed what is not yet (under the writer lock)."""
    if not semantic.behind(index.conn, folder):
        return
    with WriterLock(index.dirs):
        with transaction(index.conn, "BEGIN IMMEDIATE"):
            semantic.sync(index.conn, folder)


def _apply_diff(
    conn: sqlite3.Connection, branch: Any, old: str, new: str, known: Known | None = None,
    limit: int | None = None,
) -> bool:
    """Catch up by tree diff; False when the change is so large that a rebuild is faster
    (or larger than `limit`: a reader that cannot wait)."""
    added, removed = branch.changes(old, new)
    if limit is not None and len(added) + len(removed) > limit:
        return False
    held = conn.execute("SELECT count(*) FROM records").fetchone()[0]
    if len(added) + len(removed) > max(BIG_CHANGE, held):
        return False  # e.g. a 100k import: a fresh build skips per-row lookups and index upkeep
    _apply_changes(conn, branch, added, removed, new, branch.ref, branch.dirs, known)
    return True


def _apply_changes(
    conn: sqlite3.Connection, reader: Any, added: list[Any], removed: list[Any], new: str,
    ref: str, dirs: GitDirs, known: Known | None = None,
) -> None:
    """Apply file changes in one transaction and stamp the index with `new`."""
    from git_memory.index.build.refold import refold  # lazy: hot path; the write side
    from git_memory.index.build.update import delete_path, insert_files  # lazy: hot path; write side

    with transaction(conn, "BEGIN IMMEDIATE"):
        touched = False
        for change in removed:
            touched |= delete_path(conn, change.path)
        touched |= insert_files(conn, reader, added, known=known)
        if touched:
            refold(conn)
        set_stamp(conn, new, ref)


def building_progress(dirs: GitDirs) -> tuple[int, int]:
    """(record files in, about how many in all) of the build in progress."""
    return build_progress(dirs)

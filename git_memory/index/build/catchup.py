"""The general catch-up: by tree diff when the stamp is an ancestor of the tip, else a full
build (after waiting for one another process runs); then the read-only sources' rows."""

from __future__ import annotations

import sqlite3

from git_memory.index.build.full import build
from git_memory.index.build.loose import BIG_CHANGE, apply_changes
from git_memory.index.build.overlay import reconcile
from git_memory.index.files import (
    BuildLock, Index, IndexBuilding, Progress, WriterLock, connect, diffable, index_path,
    read_stamp,
)
from git_memory.index.rank import semantic
from git_memory.index.schema import SCHEMA_VERSION, Known, transaction
from git_memory.store.branch import MemoryBranch
from git_memory.store.locate import GitDirs
from git_memory.store.sources import Source, signature, sources


def catch_up(
    dirs: GitDirs, ref: str, progress: Progress | None, force: bool, known: Known | None,
    limit: int | None, held: BuildLock | None,
) -> Index | None:
    """The index caught up by tree diff, or None once a build made it (the caller opens
    it again). With `limit`, never build: IndexBuilding when more than `limit` files are
    missing. `held`: the build lock this process holds already."""
    branch = MemoryBranch(dirs)
    if not force:
        found = _incremental(dirs, branch, ref, known, limit)
        if found is not None:
            return found
    if limit is not None:
        raise IndexBuilding("the index is being built")
    lock = held or BuildLock(dirs)
    if held is None:
        lock.wait(dirs, progress)  # another build may be running: wait for it
    try:
        found = None if force else _incremental(dirs, branch, ref, known, None)
        if found is not None:
            return found  # the build we waited for made the index current
        _build(dirs, branch, ref, progress, known, force)
    finally:
        if held is None:
            lock.release()
    return None


def _incremental(
    dirs: GitDirs, branch: MemoryBranch, ref: str, known: Known | None, limit: int | None
) -> Index | None:
    """The index, current or caught up by tree diff; None when a build is due."""
    path = index_path(dirs)
    if not path.exists():
        return None
    with WriterLock(dirs):
        tip = branch.tip()
        found = sources(dirs, ref)  # again, under the lock
        conn = connect(path)  # damage raises: see index.db.open_index
        version, stamp, stamped_ref, stamped_sig = read_stamp(conn)
        if version == SCHEMA_VERSION and stamped_ref == ref:
            if stamp == (tip or ""):
                if stamped_sig != signature(found):
                    _follow_sources(conn, dirs, tip, found)
                return Index(conn, dirs, tip, path, signature(found))
            if tip and diffable(conn, stamp) and (
                    not stamp or branch.has_commit(stamp) and branch.is_ancestor(stamp, tip)):
                if _apply_diff(conn, branch, stamp or "", tip, known, limit):
                    _follow_sources(conn, dirs, tip, found)
                    return Index(conn, dirs, tip, path, signature(found))
        conn.close()
    return None


def _apply_diff(
    conn: sqlite3.Connection, branch: MemoryBranch, old: str, new: str, known: Known | None,
    limit: int | None,
) -> bool:
    """Catch up by tree diff; False when the change is so large that a rebuild is faster
    (or larger than `limit`: a reader that cannot wait)."""
    added, removed = branch.changes(old, new)
    if limit is not None and len(added) + len(removed) > limit:
        return False
    held = conn.execute("SELECT count(*) FROM records").fetchone()[0]
    if len(added) + len(removed) > max(BIG_CHANGE, held):
        return False  # e.g. a 100k import: a fresh build skips per-row lookups and index upkeep
    apply_changes(conn, branch, added, removed, new, branch.ref, known)
    return True


def _follow_sources(
    conn: sqlite3.Connection, dirs: GitDirs, tip: str | None, found: list[Source]
) -> None:
    with transaction(conn, "BEGIN IMMEDIATE"):
        _source_rows(conn, dirs, tip, found)


def _source_rows(
    conn: sqlite3.Connection, dirs: GitDirs, tip: str | None, found: list[Source]
) -> None:
    """The rows read-only sources add (index.build.overlay) and the sources' part of the
    stamp, in the caller's transaction; with no source and no such row, only the stamp."""
    if found or conn.execute("SELECT 1 FROM records WHERE src != '' LIMIT 1").fetchone():
        reconcile(conn, dirs, tip, found)
    conn.execute("INSERT OR REPLACE INTO meta(k, v) VALUES ('sources', ?)", (signature(found),))


def _build(
    dirs: GitDirs, branch: MemoryBranch, ref: str, progress: Progress | None,
    known: Known | None, force: bool,
) -> None:
    tip = branch.tip()

    def finish(conn: sqlite3.Connection) -> None:
        # The sources' rows and stamp in the build's own last transaction: done after the
        # swap instead, they were a second pass whose commit waited for the kernel to
        # write out the whole new file (0.15 s at 100k) before the first answer.
        _source_rows(conn, dirs, tip, sources(dirs, ref))
        folder = semantic.enabled(dirs)  # a rebuild's vectors; a catch-up leaves them to recall
        if folder is not None:
            semantic.sync(conn, folder)

    build(dirs, branch, ref, tip, progress, known, fresh=force, finish=finish)

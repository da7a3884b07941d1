"""The index database: open it, stamp it, keep it current with the memory branch, rebuild it.

Every reader calls `open_index()`, which compares the stamp (the memory commit
the index reflects) with the branch tip read from ref files. When they match,
no pygit2 and no YAML are imported: that is the hot path of `recall`. When they
differ, the index catches up by tree diff if the stamp is an ancestor of the
tip, and is rebuilt otherwise. A missing file, or one from another schema
version, is rebuilt into a temporary file and swapped in, so a process killed
mid-build never leaves a half index behind. A damaged file (sqlite3.DatabaseError
on open or on any later read) is left to the error boundary (`exits.guarded`),
which calls `rebuild_damaged` once, says so on stderr and runs the command again.
Lookups live in `entries`, `flags` and `stats`; this module reads only the stamp.
"""

from __future__ import annotations

import fcntl
import os
import sqlite3
from pathlib import Path

from git_memory.index.schema import INDEX_NAME, INDEXES, SCHEMA, SCHEMA_VERSION, Known
from git_memory.store.locate import GitDirs, discover, memory_ref, memory_tip

# `typing` costs recall ~2 ms to import and is only needed by the type checker here.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, Callable

    Progress = Callable[[int, int], None]

# The fold, the model and the search-text helpers (index.write) and pygit2 (store.branch)
# load only on the write side, inside the functions that catch up or rebuild: a current
# index, recall's hot path, needs none of them. Those imports sit in functions for speed
# only, not to dodge a cycle: index.write and index.loose import nothing from this module.

BIG_CHANGE = 5000  # files; a larger catch-up that also outnumbers the index rebuilds instead


class Index:
    """An open, current index (a plain class: `dataclasses` costs a recall 5 ms to import)."""

    __slots__ = ("conn", "dirs", "stamp", "path")

    def __init__(self, conn: sqlite3.Connection, dirs: GitDirs, stamp: str | None, path: Path):
        self.conn = conn
        self.dirs = dirs
        self.stamp = stamp
        self.path = path

    def close(self) -> None:
        self.conn.close()


def index_path(dirs: GitDirs) -> Path:
    return dirs.memory_dir / INDEX_NAME


def _connect(path: Path) -> sqlite3.Connection:
    conn = sqlite3.connect(str(path), timeout=30, isolation_level=None)
    conn.row_factory = sqlite3.Row
    return conn


def _stamp_of(conn: sqlite3.Connection) -> tuple[int, str | None, str | None]:
    """(schema version, stamp, ref) or raise sqlite3.DatabaseError for a bad file."""
    version = conn.execute("PRAGMA user_version").fetchone()[0]
    if version != SCHEMA_VERSION:
        return version, None, None
    rows = dict(conn.execute("SELECT k, v FROM meta").fetchall())
    return version, rows.get("stamp"), rows.get("ref")


def open_index(
    dirs: GitDirs, progress: Progress | None = None, force_rebuild: bool = False,
    known: Known | None = None,
) -> Index:
    """The index, brought up to date with the memory branch first (`known`: see Known)."""
    ref = memory_ref(dirs)
    tip = memory_tip(dirs, ref)
    path = index_path(dirs)
    if not force_rebuild and path.exists():
        # A truncated or corrupt file raises sqlite3.DatabaseError here or in any later
        # read: exits.guarded rebuilds the index once and says so on stderr.
        conn = _connect(path)
        version, stamp, stamped_ref = _stamp_of(conn)
        if version == SCHEMA_VERSION and stamp == (tip or "") and stamped_ref == ref:
            return Index(conn, dirs, tip, path)
        if version == SCHEMA_VERSION and stamp and tip and stamped_ref == ref:
            if _loose_catch_up(conn, dirs, tip, known):
                return Index(conn, dirs, tip, path)
        conn.close()
    return _catch_up(dirs, ref, tip, progress, force_rebuild, known)


def rebuild_damaged(dirs: GitDirs | None = None) -> None:
    """Throw away a damaged index and build it again from the branch (exits.guarded
    calls this when a command hit a sqlite3.DatabaseError)."""
    dirs = dirs or discover()
    open_index(dirs, force_rebuild=True).close()


def _loose_catch_up(
    conn: sqlite3.Connection, dirs: GitDirs, tip: str, known: Known | None = None
) -> bool:
    """A few new commits made of loose objects (the usual `add`): catch up without pygit2."""
    from git_memory.index.loose import NotLoose, changes_since  # only when behind

    with _WriterLock(dirs):
        _, stamp, ref = _stamp_of(conn)  # again, under the lock: another reader may have won
        if stamp == tip:
            return True
        found = changes_since(dirs.common_dir, stamp or "", tip) if stamp else None
        if found is None:
            return False
        reader, added, removed = found
        if len(added) + len(removed) > BIG_CHANGE:
            return False
        try:
            _apply_changes(conn, reader, added, removed, tip, ref or "", dirs, known)
        except NotLoose:
            return False  # an added file's blob is packed: the general path reads it
        return True


class _WriterLock:
    """An exclusive lock on index.lock while the index is written."""

    def __init__(self, dirs: GitDirs) -> None:
        self.path = dirs.memory_dir / "index.lock"
        self.handle: Any = None

    def __enter__(self) -> None:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self.handle = open(self.path, "a+")
        fcntl.flock(self.handle, fcntl.LOCK_EX)

    def __exit__(self, *exc: object) -> None:
        fcntl.flock(self.handle, fcntl.LOCK_UN)
        self.handle.close()


def _catch_up(
    dirs: GitDirs, ref: str, tip: str | None, progress: Progress | None, force: bool,
    known: Known | None = None,
) -> Index:
    from git_memory.store.branch import MemoryBranch  # heavy: only when behind

    with _WriterLock(dirs):
        branch = MemoryBranch(dirs)
        tip = branch.tip()
        path = index_path(dirs)
        conn: sqlite3.Connection | None = None
        if not force and path.exists():
            conn = _connect(path)  # damage raises: see open_index
            version, stamp, stamped_ref = _stamp_of(conn)
            if version == SCHEMA_VERSION and stamped_ref == ref:
                if stamp == (tip or ""):
                    return Index(conn, dirs, tip, path)
                if stamp and tip and branch.has_commit(stamp) and branch.is_ancestor(stamp, tip):
                    if _apply_diff(conn, branch, stamp, tip, known):
                        return Index(conn, dirs, tip, path)
            conn.close()
        _rebuild(dirs, branch, ref, tip, progress, known)
        return Index(_connect(path), dirs, tip, path)


def _new_db(path: Path, indexes: bool = True) -> sqlite3.Connection:
    conn = _connect(path)
    conn.executescript(SCHEMA + (INDEXES if indexes else ""))
    conn.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")
    return conn


def _rebuild(
    dirs: GitDirs, branch: Any, ref: str, tip: str | None, progress: Progress | None,
    known: Known | None = None,
) -> None:
    path = index_path(dirs)
    tmp = path.with_name(f"{INDEX_NAME}.{os.getpid()}.tmp")
    tmp.unlink(missing_ok=True)
    from git_memory.index.write import carry_local_flags, insert_files, refold  # write side

    conn = _new_db(tmp, indexes=False)
    carry_local_flags(conn, path)
    conn.execute("PRAGMA journal_mode = OFF")
    conn.execute("PRAGMA synchronous = OFF")
    conn.execute("BEGIN")
    files = list(branch.iter_files(tip)) if tip else []
    total = len(files)
    for start in range(0, total, 2000):
        batch = files[start : start + 2000]
        insert_files(conn, branch, batch, fresh=True, known=known)
        if progress:
            progress(min(start + len(batch), total), total)
    for statement in filter(str.strip, INDEXES.split(";")):
        conn.execute(statement)  # not executescript: that would commit half-way
    refold(conn)
    _embed(conn, dirs)
    _set_stamp(conn, tip, ref)
    conn.execute("COMMIT")
    conn.close()
    os.replace(tmp, path)
    for suffix in ("-wal", "-shm", "-journal"):
        Path(str(path) + suffix).unlink(missing_ok=True)


def _embed(conn: sqlite3.Connection, dirs: GitDirs) -> None:
    """Semantic vectors for a rebuilt index (when on); a catch-up leaves them to recall."""
    from git_memory.index import semantic  # rebuilds only: the [semantic] part of the write side

    folder = semantic.enabled(dirs)
    if folder is not None:
        semantic.sync(conn, folder)


def sync_vectors(index: Index, folder: str) -> None:
    """At recall, with semantic ranking on: embed what is not yet (under the writer lock)."""
    from git_memory.index import semantic  # semantic recall only

    if not semantic.behind(index.conn, folder):
        return
    with _WriterLock(index.dirs):
        index.conn.execute("BEGIN IMMEDIATE")
        try:
            semantic.sync(index.conn, folder)
            index.conn.execute("COMMIT")
        except BaseException:
            index.conn.execute("ROLLBACK")
            raise


def _set_stamp(conn: sqlite3.Connection, tip: str | None, ref: str) -> None:
    conn.executemany(
        "INSERT OR REPLACE INTO meta(k, v) VALUES (?, ?)", [("stamp", tip or ""), ("ref", ref)]
    )


def _apply_diff(
    conn: sqlite3.Connection, branch: Any, old: str, new: str, known: Known | None = None
) -> bool:
    """Catch up by tree diff; False when the change is so large that a rebuild is faster."""
    added, removed = branch.changes(old, new)
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
    from git_memory.index.write import delete_path, insert_files, refold  # write side

    conn.execute("BEGIN IMMEDIATE")
    try:
        touched = False
        for change in removed:
            touched |= delete_path(conn, change.path)
        touched |= insert_files(conn, reader, added, known=known)
        if touched:
            refold(conn)
        _set_stamp(conn, new, ref)
        conn.execute("COMMIT")
    except BaseException:
        conn.execute("ROLLBACK")
        raise

"""The index database: open it current with the memory branch, rebuild it when damaged.

`open_index` compares the index's stamp with the branch tip read from ref files; when they
match (recall's hot path) nothing of the write side loads. Otherwise `index.build` catches
up (`loose`: new loose objects, no pygit2; `catchup`: by tree diff, else a full build).
A damaged file raises sqlite3.DatabaseError, which `exits.guarded` answers by calling
`rebuild_damaged` once.
"""

from __future__ import annotations

import os
import sqlite3
from pathlib import Path

from git_memory.index.files import (
    LOCK_FD_VAR, BuildLock, Index, IndexBuilding, Progress, connect, diffable, index_path,
    read_stamp,
)
from git_memory.index.schema import INDEX_NAME, INDEXES, SCHEMA, SCHEMA_VERSION, Known
from git_memory.store.locate import GitDirs, discover, memory_ref, memory_tip
from git_memory.store.sources import signature, sources

SMALL_CHANGE = 2000  # files; more than this missing and a reader that cannot wait gets IndexBuilding
# Set by the error boundary when stderr is a terminal: a build that a command waits for
# shows its progress there (exits.guarded); None elsewhere (hooks, pipes).
default_progress: Progress | None = None
_held: list[BuildLock] = []  # the build lock, while this process holds it


__all__ = ["INDEX_NAME", "Index", "IndexBuilding", "index_path", "open_index"]


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
    limit = None if wait else SMALL_CHANGE
    if not force_rebuild and path.exists():
        conn = connect(path)  # damage raises here or in any later read: see exits.guarded
        version, stamp, stamped_ref, stamped_sig = read_stamp(conn)
        if version == SCHEMA_VERSION and stamped_ref == ref and stamped_sig == sig:
            if stamp == (tip or ""):
                return Index(conn, dirs, tip, path, sig)
            if tip and diffable(conn, stamp):
                from git_memory.index.build.loose import catch_up_loose  # lazy: hot path; the write side

                if catch_up_loose(conn, dirs, tip, known, limit, sig):
                    return Index(conn, dirs, tip, path, sig)
        conn.close()
    elif not wait and not force_rebuild and tip is not None:
        raise IndexBuilding("the index is being built")  # no index: nothing small to do
    from git_memory.index.build.catchup import catch_up  # lazy: hot path; pygit2, only when behind

    found = catch_up(dirs, ref, progress or default_progress, force_rebuild, known, limit,
                     _held[0] if _held else None)
    return found or open_index(dirs, progress, known=known)  # built: the branch may have moved


def rebuild_damaged(dirs: GitDirs | None = None) -> None:
    """Throw away a damaged index and build it again from the branch (exits.guarded
    calls this when a command hit a sqlite3.DatabaseError)."""
    open_index(dirs or discover(), force_rebuild=True).close()


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

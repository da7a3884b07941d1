"""The index's files and locks, and `Index`, the handle of an open index.

`index.sqlite` is the index; `index.sqlite.build` a build in progress (resumable: it holds
the committed batches and a stamp saying how far it got). `index.lock` serialises short
writes (a catch-up, a build's swap); `index.build.lock` is held for a whole build, so one
runs at a time and anyone can tell whether one is running (the lock dies with its process).
Older versions left `index.sqlite.build-fts` and `index.sqlite.<pid>.tmp`: a build removes them.
"""

from __future__ import annotations

import fcntl
import os
import re
import sqlite3
import time
from collections.abc import Callable
from pathlib import Path

from git_memory.errors import GitMemoryError
from git_memory.index.schema import INDEX_NAME, SCHEMA_VERSION
from git_memory.store.leftovers import alive
from git_memory.store.locate import GitDirs, adoptable_remote, memory_ref, read_ref
from git_memory.store.sources import is_personal

TYPE_CHECKING = False  # `typing` is off the hot path: for the type checker only
if TYPE_CHECKING:
    from typing import Any

# What a build reports as it goes: (done, total).
Progress = Callable[[int, int], None]


class IndexBuilding(GitMemoryError):
    """The index is missing or far behind the branch; a build is due (or running)."""


class Index:
    """An open, current index (a plain class: `dataclasses` costs a recall 5 ms to import)."""

    __slots__ = ("conn", "dirs", "stamp", "path", "sources", "memo")

    def __init__(self, conn: sqlite3.Connection, dirs: GitDirs, stamp: str | None, path: Path,
                 sources: str = ""):
        self.conn = conn
        self.dirs = dirs
        self.stamp = stamp
        self.path = path
        self.sources = sources  # the sources' part of the stamp (store.sources.signature)
        self.memo: dict[str, object] = {}  # what a warm caller may keep while this stays open

    def close(self) -> None:
        self.conn.close()

    def adopted(self) -> str | None:
        """The label results from the local part carry: in a fresh clone with no local
        memory branch, the remote whose copy stands in (`origin`); in personal memory's
        own index, `personal`."""
        if self.dirs.work_tree is None and is_personal(self.dirs):  # personal memory is bare
            return "personal"
        ref = memory_ref(self.dirs)
        if self.stamp is None or read_ref(self.dirs, ref) is not None:
            return None
        found = adoptable_remote(self.dirs, ref)
        return found[0][len("refs/remotes/"):].split("/", 1)[0] if found else None


BUILD_NAME = INDEX_NAME + ".build"
_TEMP_RE = re.compile(r"^" + re.escape(INDEX_NAME) + r"\.(\d+)\.tmp(-journal|-wal|-shm)?$")


VECTORS_NAME = "vectors.sqlite"  # the vector store (index.vectors): here so recall can stat it


def vectors_path(dirs: GitDirs) -> Path:
    return dirs.memory_dir / VECTORS_NAME


def index_path(dirs: GitDirs) -> Path:
    return dirs.memory_dir / INDEX_NAME


def build_path(dirs: GitDirs) -> Path:
    return dirs.memory_dir / BUILD_NAME


def fts_build_path(dirs: GitDirs) -> Path:
    """An older version's full-text side file of a build (a build removes it)."""
    return dirs.memory_dir / (BUILD_NAME + "-fts")


def connect(path: Path) -> sqlite3.Connection:
    conn = sqlite3.connect(str(path), timeout=30, isolation_level=None)
    conn.row_factory = sqlite3.Row
    return conn


def read_stamp(conn: sqlite3.Connection) -> tuple[int, str | None, str | None, str | None]:
    """(schema version, stamp, ref, sources) or raise sqlite3.DatabaseError for a bad file."""
    version = conn.execute("PRAGMA user_version").fetchone()[0]
    if version != SCHEMA_VERSION:
        return version, None, None, None
    rows = dict(conn.execute("SELECT k, v FROM meta").fetchall())
    return version, rows.get("stamp"), rows.get("ref"), rows.get("sources")


def diffable(conn: sqlite3.Connection, stamp: str | None) -> bool:
    """Whether an index stamped `stamp` can catch up by a diff: from a commit, or from the
    empty memory (stamp '', no local row; a first write then needs no second build)."""
    if stamp:
        return True
    return stamp == "" and conn.execute(
        "SELECT 1 FROM records WHERE src = '' LIMIT 1").fetchone() is None


def set_stamp(conn: sqlite3.Connection, tip: str | None, ref: str) -> None:
    """Say which memory commit (of which ref) the index reflects."""
    conn.executemany(
        "INSERT OR REPLACE INTO meta(k, v) VALUES (?, ?)", [("stamp", tip or ""), ("ref", ref)]
    )


# The descriptor of a lock a process took for the detached child it starts (agents.detached).
LOCK_FD_VAR = "GIT_MEMORY_HELD_LOCK_FD"


class _Lock:
    """An exclusive flock on one file of the memory folder (released when the process dies)."""

    name = ""

    def __init__(self, dirs: GitDirs) -> None:
        self.path = dirs.memory_dir / self.name
        self.handle: Any = None

    def _open(self) -> None:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self.handle = open(self.path, "a+")

    def try_acquire(self) -> bool:
        self._open()
        try:
            fcntl.flock(self.handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            self.handle.close()
            self.handle = None
            return False
        return True

    def adopt(self, fd: int) -> bool:
        """Take over a descriptor of this lock file a parent locked and passed on (False
        when `fd` is not this file or not held)."""
        try:
            same = os.path.samestat(os.fstat(fd), os.stat(self.path))
        except (OSError, ValueError):
            return False
        if not same:
            return False
        handle = os.fdopen(fd, "a+")
        try:
            # The same open file description as the parent's: this succeeds at once when
            # the parent held the lock, and fails only if it never did.
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            handle.close()
            return False
        self.handle = handle
        return True

    def __enter__(self) -> None:
        self._open()
        fcntl.flock(self.handle, fcntl.LOCK_EX)

    def release(self) -> None:
        if self.handle is not None:
            fcntl.flock(self.handle, fcntl.LOCK_UN)
            self.handle.close()
            self.handle = None

    def __exit__(self, *exc: object) -> None:
        self.release()


class WriterLock(_Lock):
    """Held while the index file itself is written (short: a catch-up, a swap)."""

    name = "index.lock"


class BuildLock(_Lock):
    """Held for the whole of a build: one build at a time, across processes."""

    name = "index.build.lock"

    def wait(self, dirs: GitDirs, progress: Progress | None) -> None:
        """Take the lock, waiting for the build holding it, whose progress `progress` shows."""
        while not self.try_acquire():
            if progress is not None:
                done, total = build_progress(dirs)
                if total:
                    progress(min(done, total - 1), total)
            time.sleep(0.2)


class EmbedLock(_Lock):
    """Held by the one background embedding worker of a repository (embed.worker)."""

    name = "embed.lock"


def building(dirs: GitDirs) -> bool:
    """Whether another process is building the index right now."""
    lock = BuildLock(dirs)
    if lock.try_acquire():
        lock.release()
        return False
    return True


def build_meta(path: Path) -> dict[str, str]:
    """The stamp of a build in progress (empty when there is none or it is unreadable)."""
    if not path.exists():
        return {}
    try:
        # Read-write on purpose: a build killed mid-batch leaves a hot journal, which
        # only a connection that may write rolls back (read-only ones fail to open).
        conn = sqlite3.connect(f"file:{path}?mode=rw", uri=True, timeout=1)
        try:
            if conn.execute("PRAGMA user_version").fetchone()[0] != SCHEMA_VERSION:
                return {}
            return dict(conn.execute("SELECT k, v FROM meta WHERE k LIKE 'build_%'").fetchall())
        finally:
            conn.close()
    except sqlite3.Error:
        return {}


def build_progress(dirs: GitDirs) -> tuple[int, int]:
    """(record files in, record files in all) of the build in progress; (0, 0) if none."""
    meta = build_meta(build_path(dirs))
    try:
        return int(meta.get("build_done", 0)), int(meta.get("build_total", 0))
    except ValueError:
        return 0, 0


def stale_temp_files(dirs: GitDirs) -> list[Path]:
    """An old version's `index.sqlite.<pid>.tmp` files whose process is gone."""
    folder = dirs.memory_dir
    if not folder.is_dir():
        return []
    found = []
    for path in sorted(folder.iterdir()):
        match = _TEMP_RE.match(path.name)
        if match and (int(match.group(1)) == os.getpid() or not alive(int(match.group(1)))):
            found.append(path)
    return found

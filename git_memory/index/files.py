"""The index's files and locks: where they live, how they are opened, what a build left;
`Index`, the handle of an open index every index module takes (below `db`, which opens it).

`index.sqlite` is the index; `index.sqlite.build` is a build in progress (resumable: it
holds the rows of the batches already committed and a stamp saying how far it got;
`index.sqlite.build-fts` was an older version's full-text part of it, removed by a build);
`index.lock` serialises short writes to the index (a catch-up, the swap of a finished
build); `index.build.lock` is held for the whole of a build, so there is one build at a
time and anyone can tell whether a build is running (the lock dies with its process).
Older versions built into `index.sqlite.<pid>.tmp`; such files whose process is gone are
stale and removed by the next build.

A hot-path module (docs/architecture.md).
"""

from __future__ import annotations

import fcntl
import os
import re
import sqlite3
import time
from collections.abc import Callable
from pathlib import Path

from git_memory.index.schema import INDEX_NAME, SCHEMA_VERSION
from git_memory.store.leftovers import alive
from git_memory.store.locate import GitDirs, adoptable_remote, memory_ref, read_ref
from git_memory.store.sources import is_personal

# `typing` is off the hot path (docs/architecture.md): for the type checker only.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

# What a build reports as it goes: (done, total).
Progress = Callable[[int, int], None]


class Index:
    """An open, current index (a plain class: `dataclasses` costs a recall 5 ms to import)."""

    __slots__ = ("conn", "dirs", "stamp", "path", "sources")

    def __init__(self, conn: sqlite3.Connection, dirs: GitDirs, stamp: str | None, path: Path,
                 sources: str = ""):
        self.conn = conn
        self.dirs = dirs
        self.stamp = stamp
        self.path = path
        self.sources = sources  # the sources' part of the stamp (store.sources.signature)

    def close(self) -> None:
        self.conn.close()

    def adopted(self) -> str | None:
        """In a fresh clone with no local memory branch yet, the remote whose copy the
        index holds as the local part (`origin`): results say they come from it. In
        personal memory's own index (recall outside a repository, list --personal):
        `personal`."""
        if self.dirs.work_tree is None and is_personal(self.dirs):  # personal memory is bare
            return "personal"
        ref = memory_ref(self.dirs)
        if self.stamp is None or read_ref(self.dirs, ref) is not None:
            return None
        found = adoptable_remote(self.dirs, ref)
        return found[0][len("refs/remotes/"):].split("/", 1)[0] if found else None


BUILD_NAME = INDEX_NAME + ".build"
_TEMP_RE = re.compile(r"^" + re.escape(INDEX_NAME) + r"\.(\d+)\.tmp(-journal|-wal|-shm)?$")


def index_path(dirs: GitDirs) -> Path:
    return dirs.memory_dir / INDEX_NAME


def build_path(dirs: GitDirs) -> Path:
    return dirs.memory_dir / BUILD_NAME


def fts_build_path(dirs: GitDirs) -> Path:
    """The full-text side file an older version's build kept beside `index.sqlite.build`
    (index.build removes it and starts over)."""
    return dirs.memory_dir / (BUILD_NAME + "-fts")


def connect(path: Path) -> sqlite3.Connection:
    conn = sqlite3.connect(str(path), timeout=30, isolation_level=None)
    conn.row_factory = sqlite3.Row
    return conn


def set_stamp(conn: sqlite3.Connection, tip: str | None, ref: str) -> None:
    """Say which memory commit (of which ref) the index reflects."""
    conn.executemany(
        "INSERT OR REPLACE INTO meta(k, v) VALUES (?, ?)", [("stamp", tip or ""), ("ref", ref)]
    )


# Names the descriptor of a lock a starting process took and its detached child inherits
# (agents.detached.start passes it; the child adopts it with `_Lock.adopt`).
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
        """Take over a descriptor of this lock file that a parent locked and passed on
        (False, and nothing kept, when `fd` is not this file or not held by us)."""
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
        """Take the lock, waiting for the build that holds it; meanwhile report that
        build's progress (read from its stamp) when there is someone to show it to."""
        while not self.try_acquire():
            if progress is not None:
                done, total = build_progress(dirs)
                if total:
                    progress(min(done, total - 1), total)
            time.sleep(0.2)


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
    """Temporary index files whose process is gone (a build killed mid-way by an old
    version, which built into `index.sqlite.<pid>.tmp`)."""
    folder = dirs.memory_dir
    if not folder.is_dir():
        return []
    found = []
    for path in sorted(folder.iterdir()):
        match = _TEMP_RE.match(path.name)
        if match and (int(match.group(1)) == os.getpid() or not alive(int(match.group(1)))):
            found.append(path)
    return found


def remove_stale(dirs: GitDirs) -> int:
    """Remove the stale temporary files (called by a build, under the build lock)."""
    removed = 0
    for path in stale_temp_files(dirs):
        path.unlink(missing_ok=True)
        removed += 1
    return removed

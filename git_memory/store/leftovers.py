"""Temporary files our killed writers leave, told apart from a live writer's: a
`PackStream`'s `objects/pack/tmp_gitmemory_<pid>_<n>` (+ `.idx`, `.rev`; flock-ed while
it lives), and state files written as `NAME.<pid>.tmp` then renamed over `NAME`.
Stale: the writer's process is gone, or (its pid reused) it has been silent for
`STALE_AGE`; and, for a pack, nobody holds its lock. `doctor` lists them, `import`
removes them before it writes its own pack."""

from __future__ import annotations

import fcntl
import os
import re
import time
from pathlib import Path

from git_memory.store.locate import GitDirs

PACK_PREFIX = "tmp_gitmemory_"
# tmp_gitmemory_<pid>_<n>, and its .idx / .rev while PackStream.finish names them.
# Patterns, not compiled here: the read path imports this module for `alive` alone.
_PACK_RE = r"^" + PACK_PREFIX + r"(\d+)_[0-9a-f]+(\.idx|\.rev)?$"
# NAME.<pid>.tmp, and what SQLite puts beside a database of that name while it writes.
_STATE_RE = r"^.+\.(\d+)\.tmp(-journal|-wal|-shm)?$"
STALE_AGE = 24 * 3600  # seconds: a writer this long silent is gone, even if its pid lives


class Leftover:
    """A stale temporary file: where, how many bytes, what left it."""

    __slots__ = ("path", "size", "what")

    def __init__(self, path: Path, size: int, what: str) -> None:
        self.path, self.size, self.what = path, size, what

    def __repr__(self) -> str:
        return f"Leftover({str(self.path)!r}, {self.size}, {self.what!r})"


def alive(pid: int) -> bool:
    """Whether a process with this id runs on this machine (someone else's counts; a
    zombie, killed but not yet reaped by a parent that does not reap, does not)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    try:
        with open(f"/proc/{pid}/stat", "rb") as handle:
            # "pid (name) S ...": the state follows the last ')' (a name may hold one)
            return handle.read().rpartition(b")")[2].split()[:1] != [b"Z"]
    except OSError:
        return True  # no /proc (not Linux): kill's answer stands


def temp_path(path: Path) -> Path:
    """Where a writer of `path` writes first (then `os.replace`s): NAME.<pid>.tmp, so
    that `find` can tell whether the writer still runs."""
    return path.with_name(f"{path.name}.{os.getpid()}.tmp")


def lock(fd: int) -> None:
    """PackStream takes this on its pack for as long as it writes (the lock dies with it).
    A file system without `flock` leaves the pack unlocked: its writer's pid still
    guards it (`find`)."""
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        pass


def locked(path: Path) -> bool:
    """Whether a live process holds `path`'s flock (a missing file holds none)."""
    try:
        fd = os.open(path, os.O_RDONLY)
    except OSError:
        return False
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        return True
    finally:
        os.close(fd)  # closing drops our lock, if we took it
    return False


def _gone(pid: int, path: Path, now: float) -> bool:
    """The writer `pid` of `path` cannot be writing it any more."""
    if pid == os.getpid():
        return False  # ours: this process may be writing it right now
    try:
        silent = now - path.stat().st_mtime
    except OSError:
        return False  # already gone: nothing to report
    return not alive(pid) or silent > STALE_AGE


def _pack_base(path: Path) -> Path:
    return path.with_suffix("") if path.suffix in (".idx", ".rev") else path


def find(dirs: GitDirs) -> list[Leftover]:
    """Every stale temporary file of ours in the repository, packs first."""
    now = time.time()
    found: list[Leftover] = []
    packs = dirs.common_dir / "objects" / "pack"
    for path in _listing(packs):
        match = re.match(_PACK_RE, path.name)
        if match and _gone(int(match.group(1)), path, now) and not locked(_pack_base(path)):
            found.append(_leftover(path, "a temporary pack a killed import left"))
    for folder, _, names in os.walk(dirs.memory_dir):
        for name in sorted(names):
            match = re.match(_STATE_RE, name)
            path = Path(folder) / name
            if match and _gone(int(match.group(1)), path, now):
                found.append(_leftover(path, "a temporary file a killed git-memory left"))
    return [item for item in found if item.size >= 0]


def _listing(folder: Path) -> list[Path]:
    try:
        return sorted(folder.iterdir())
    except OSError:
        return []


def _leftover(path: Path, what: str) -> Leftover:
    try:
        size = path.stat().st_size
    except OSError:
        size = -1  # removed meanwhile: left out by `find`
    return Leftover(path, size, what)


def remove(dirs: GitDirs) -> list[Leftover]:
    """Remove every stale temporary file (`find`); the ones removed. A pack is removed
    holding its lock, so a writer cannot take it over meanwhile (none would: each
    writer's name is its own)."""
    removed = []
    for item in find(dirs):
        try:
            fd = os.open(item.path, os.O_RDONLY)
        except OSError:
            continue
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            item.path.unlink()
        except OSError:
            continue  # locked after all, or removed meanwhile: not ours to remove
        finally:
            os.close(fd)
        removed.append(item)
    return removed

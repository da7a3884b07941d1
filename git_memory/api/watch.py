"""What a warm `Memory` watches: the files whose change can change what its index must reflect.

`Memory` (api/memory.py) keeps the index open between calls; before each call it `stat`s
the memory ref and packed-refs, the remote-tracking copies, personal memory's ref, the
config files, and the index file's inode (`Watch`). Only when one of them changed does it
read the branch tip and the sources again.
"""

from __future__ import annotations

import os
from pathlib import Path

from git_memory.store import config as git_config
from git_memory.store.locate import DEFAULT_REF, GitDirs, memory_ref
from git_memory.store.sources import personal_path


FileState = tuple[int, int, int, int] | None  # inode, size, mtime, ctime (ns); None: absent


def file_state(path: Path) -> FileState:
    try:
        info = os.stat(path)
    except OSError:
        return None
    return (info.st_ino, info.st_size, info.st_mtime_ns, info.st_ctime_ns)


class Watch:
    """The files whose change can change what the index must reflect, and their last `stat`.

    `current_stamp` (what an index current now would be stamped with) reads the
    config, the memory ref, packed-refs, every remote's copy, the sources' and
    personal memory's refs: about 0.4 ms at every call. Those are all plain files
    that git replaces by rename when it writes them (a new inode each time), so when
    none of them changed since the last look, neither did the stamp. The config
    files are watched by `store.config`, whose parsed settings are a new object
    whenever one of them changed. `memory.sources` (fetched sources, rare) is not
    followed file by file: with it set, every call reads the stamp as before."""

    def __init__(self, dirs: GitDirs) -> None:
        self.dirs = dirs
        self.settings: object = None
        self.paths: list[Path] | None = None  # None: nothing to watch, always look again
        self.states: list[FileState] = []

    def changed(self) -> bool:
        """Whether anything watched changed since `look` (True before the first look)."""
        if self.paths is None or git_config.settings(self.dirs) is not self.settings:
            return True
        return [file_state(path) for path in self.paths] != self.states

    def look(self) -> None:
        """Take the files' state now: call before reading the stamp, so that a write
        landing while it is read shows at the next call."""
        self.settings = git_config.settings(self.dirs)
        self.paths = _watched(self.dirs, memory_ref(self.dirs))
        self.states = [file_state(path) for path in self.paths or []]


def _watched(dirs: GitDirs, ref: str) -> list[Path] | None:
    """Every file `current_stamp` reads a ref from (None: not all of them are files)."""
    if git_config.values(dirs, "memory.sources"):
        return None
    common = dirs.common_dir
    local = common / ref
    try:
        if local.read_bytes().startswith(b"ref:"):
            return None  # a symbolic memory ref: its target is not watched
    except OSError:
        pass
    paths = [local, common / "packed-refs", common / "refs" / "remotes"]
    remotes = common / "refs" / "remotes"
    branch = ref[len("refs/heads/"):] if ref.startswith("refs/heads/") else None
    if branch and remotes.is_dir():
        for remote in sorted(remotes.iterdir()):
            paths += [remote, remote / branch]  # a ref appears, or a remote's folder
    personal = personal_path(dirs)
    paths += [personal, personal / DEFAULT_REF, personal / "packed-refs"]
    return paths


def inode(path: Path) -> int | None:
    state = file_state(path)
    return state[0] if state else None

"""`Warm`, the open index `Memory` keeps between calls, and `Watch`: the files whose change
can change what that index must reflect."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any, Callable, Self

from git_memory.index import vectors
from git_memory.index.db import Index, current_stamp, open_index
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
    """The watched files and their last `stat`. `current_stamp` costs about 0.4 ms a call; git
    replaces the files it reads by rename (a new inode), so when none changed, neither did the
    stamp. `store.config` watches the config files (new settings object on a change)."""

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
        """Take the files' state now: before the stamp is read, so that a write landing while
        it is read shows at the next call."""
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


class Warm:
    """One repository's directories and its index, kept open while nothing it reflects
    changed: the state every part of `Memory` reads through `index()`."""

    def __init__(self, dirs: GitDirs) -> None:
        self.dirs = dirs
        self._index: Index | None = None
        self._inode: int | None = None  # of the index file the open connection reads
        self._watch = Watch(dirs)
        # What searches keep for the open index (index.search.find's `memo`); a new one
        # whenever the index is reopened, so nothing in it outlives the index state.
        self.memo: dict[str, Any] = {}

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        if self._index is not None:
            self._index.close()
            self._index = None

    def index(self) -> Index:
        """The open index, reopened (and so caught up) when the memory branch or a source
        moved, or a rebuild swapped a new file in (the open connection would read the old)."""
        replaced = self._index is not None and inode(self._index.path) != self._inode
        if self._index is not None and not replaced and not self._watch.changed():
            return self._index
        self._watch.look()
        if self._index is not None and (
                replaced or (self._index.stamp, self._index.sources) != current_stamp(self.dirs)):
            self.close()
        if self._index is None:
            return self._opened(open_index(self.dirs))
        return self._index

    def reindex(self, *, progress: Callable[[int, int], None] | None = None,
                rebuild: bool = True) -> None:
        """The index rebuilt from the memory branch (a new file swapped in), or with
        `rebuild=False` caught up with it; `progress(done, total)` while it builds. A
        rebuild (after a purge reached this clone, or asked for) also deletes the vectors
        of entries no longer on the branch."""
        self.close()
        self._watch.look()
        index = self._opened(open_index(self.dirs, progress=progress, force_rebuild=rebuild))
        if rebuild:
            vectors.drop_hidden(index, absent=True)

    def _opened(self, index: Index) -> Index:
        self._index = index
        self._inode = inode(index.path)
        self.memo = {}
        return index

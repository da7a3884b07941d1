"""Where a repository is (`GitDirs`), and the environment for a `git` process of ours.
The bottom of `store/`: it imports nothing of the package, so nothing cycles through it."""

from __future__ import annotations

import os
from pathlib import Path

# What git exports to a hook to say where the repository is. A `git` we start must not
# inherit them (they would point it at the hook's repository, index or quarantine);
# identity and config variables (GIT_CONFIG_GLOBAL, GIT_AUTHOR_NAME...) stay.
# GIT_CONFIG goes too: only `git config` reads it, as the one file to use instead of
# the user's, and what our `git config` calls must see is what every other git sees.
LOCATION_VARS = frozenset((
    "GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE", "GIT_PREFIX", "GIT_COMMON_DIR",
    "GIT_OBJECT_DIRECTORY", "GIT_ALTERNATE_OBJECT_DIRECTORIES", "GIT_QUARANTINE_PATH",
    "GIT_NAMESPACE", "GIT_CONFIG",
))


def git_env(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in LOCATION_VARS}
    env.update(extra)
    return env


class GitDirs:
    """Per-worktree dir, shared dir, work tree; immutable and hashable. Not a dataclass:
    every `recall` imports this module, and `dataclasses` alone costs it about 9 ms."""

    __slots__ = ("git_dir", "common_dir", "work_tree")
    git_dir: Path
    common_dir: Path
    work_tree: Path | None

    def __init__(self, git_dir: Path, common_dir: Path, work_tree: Path | None) -> None:
        object.__setattr__(self, "git_dir", git_dir)
        object.__setattr__(self, "common_dir", common_dir)
        object.__setattr__(self, "work_tree", work_tree)

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError(f"GitDirs is immutable (cannot set {name})")

    def __eq__(self, other: object) -> bool:
        return isinstance(other, GitDirs) and self._key() == other._key()

    def __hash__(self) -> int:
        return hash(self._key())

    def __repr__(self) -> str:
        return (f"GitDirs(git_dir={self.git_dir!r}, common_dir={self.common_dir!r},"
                f" work_tree={self.work_tree!r})")

    def _key(self) -> tuple[Path, Path, Path | None]:
        return (self.git_dir, self.common_dir, self.work_tree)

    @property
    def memory_dir(self) -> Path:
        """Local, unshared state of git-memory: the index, the audit log, locks."""
        return self.common_dir / "git-memory"

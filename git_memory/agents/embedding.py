"""Starting the background embedding (`embed.worker`) after a write, never waiting for it.

`add`, the post-commit and post-merge captures, `import` and a pull call `start`: with a
model configured it hands the embedding lock to a detached `git memory embed --background`
and returns (a fork and exec, a few milliseconds); without one, or with a worker already
running (which embeds the new entries too before it stops), it does nothing.
`git config memory.embed.background false` leaves embedding to `git memory embed`.
"""

from __future__ import annotations

from git_memory.agents import detached
from git_memory.embed import registry
from git_memory.index.files import EmbedLock
from git_memory.store import config
from git_memory.store.locate import GitDirs

LOG_NAME = "embed.log"


def wanted(dirs: GitDirs) -> bool:
    """Whether writes start the background embedding: a model found, its packages
    installed, and memory.embed.background not turned off. Cheap: config and a few stats."""
    if not config.get_bool(dirs, "memory.embed.background", default=True):
        return False
    return registry.choice(dirs) is not None and not registry.missing_packages()


def start(dirs: GitDirs) -> int | None:
    """The pid of the embedding worker started now, or None (not wanted, or one runs)."""
    if not wanted(dirs):
        return None
    lock = EmbedLock(dirs)
    if not lock.try_acquire():
        return None
    try:
        return detached.start(dirs, ["embed", "--background"], dirs.memory_dir / LOG_NAME,
                              lock_fd=lock.handle.fileno())
    finally:
        lock.handle.close()  # closing, not unlocking: the child's copy keeps the lock

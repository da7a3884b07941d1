"""Sync the memory branch along with a code push (the pre-push hook), when
`memory.autoSync` is on (docs/sync.md, "autoSync"). A failure never blocks the code push: it
comes back as a line for the hook to print."""

from __future__ import annotations

import os
from typing import Callable, Iterable

from git_memory.errors import GitMemoryError
from git_memory.store import config
from git_memory.store.locate import GitDirs, memory_ref, read_ref
from git_memory.sync.engine import SyncReport, sync
from git_memory.sync.gitcmd import SYNC_ENV, SessionsNotSynced


def enabled(dirs: GitDirs) -> bool:
    """`memory.autoSync` as git reads a boolean (a bare `autoSync` line means true)."""
    return config.get_bool(dirs, "memory.autoSync")


def remote_refs(pre_push_stdin: str) -> list[str]:
    """The remote ref names from the lines git gives a pre-push hook."""
    refs = []
    for line in pre_push_stdin.splitlines():
        parts = line.split()
        if len(parts) == 4:
            refs.append(parts[2])
    return refs


def maybe_sync(
    dirs: GitDirs, remote: str | None, pushed_refs: Iterable[str] = (),
    then: Callable[[SyncReport], None] | None = None,
) -> str | None:
    """Sync memory with `remote` if autoSync asks for it; a line to show, or None.
    `then` is handed the report of a sync that ran (the command layer rebuilds the index
    after a purge reached this clone: commands.sync.after_purge)."""
    if os.environ.get(SYNC_ENV):
        return None
    try:
        if not enabled(dirs):
            return None
        ref = memory_ref(dirs)
        if ref in set(pushed_refs) or read_ref(dirs, ref) is None:
            return None
        report = sync(dirs, remote)
        if then is not None:
            then(report)
    except SessionsNotSynced as exc:
        return f"git-memory: {exc}"
    except GitMemoryError as exc:
        return f"git-memory: memory not synced: {exc}"
    if report.pushed:
        return f"git-memory: memory synced with {report.remote} ({report.pushed[:7]})"
    return None

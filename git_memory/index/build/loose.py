"""Catching the index up by applying file changes: the usual case (`add`'s few commits of
loose objects) read from disk without pygit2, and `apply_changes`, which `catchup` shares."""

from __future__ import annotations

import sqlite3
from typing import Any

from git_memory.index.build.refold import refold
from git_memory.index.build.update import delete_path, insert_files
from git_memory.index.files import WriterLock, diffable, read_stamp, set_stamp
from git_memory.index.schema import Known, transaction
from git_memory.store.loose import NotLoose, changes_since
from git_memory.store.locate import GitDirs

BIG_CHANGE = 5000  # files; a larger catch-up that also outnumbers the index rebuilds instead


def catch_up_loose(
    conn: sqlite3.Connection, dirs: GitDirs, tip: str, known: Known | None = None,
    limit: int | None = None, sig: str = "",
) -> bool:
    """Catch up to `tip` from loose objects; False when the general path must do it.

    With sources (`sig`), only additions qualify: a file added locally replaces a
    source's row at its path; a removal may uncover one, which needs the overlay."""
    with WriterLock(dirs):
        _, stamp, ref, stamped_sig = read_stamp(conn)  # again, under the lock: another reader may have won
        if stamped_sig != sig:
            return False
        if stamp == tip:
            return True
        found = changes_since(dirs.common_dir, stamp or "", tip) if diffable(conn, stamp) else None
        if found is None:
            return False
        reader, added, removed = found
        if len(added) + len(removed) > min(BIG_CHANGE, limit or BIG_CHANGE) or (sig and removed):
            return False
        try:
            apply_changes(conn, reader, added, removed, tip, ref or "", known)
        except NotLoose:
            return False  # an added file's blob is packed: the general path reads it
        return True


def apply_changes(
    conn: sqlite3.Connection, reader: Any, added: list[Any], removed: list[Any], new: str,
    ref: str, known: Known | None = None,
) -> None:
    """Apply file changes in one transaction and stamp the index with `new`."""
    with transaction(conn, "BEGIN IMMEDIATE"):
        touched = False
        for change in removed:
            touched |= delete_path(conn, change.path)
        touched |= insert_files(conn, reader, added, known=known)
        if touched:
            refold(conn)
        set_stamp(conn, new, ref)

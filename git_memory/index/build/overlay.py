"""The rows read-only sources add (remotes, memory.sources, personal), kept current.

Local rows have `src = ''`, a source's rows its key (store.sources). `reconcile` compares
them with the files the sources add now (store.union.overlay) and applies the difference.
The fold runs over local and source rows together: a redaction on either side holds on both.
"""

from __future__ import annotations

import sqlite3
from typing import Iterable

from git_memory.index.build.refold import refold
from git_memory.index.build.update import delete_path, insert_files
from git_memory.store.locate import GitDirs
from git_memory.store.sources import Source
from git_memory.store.union import OverlayFile, overlay


def reconcile(
    conn: sqlite3.Connection, dirs: GitDirs, local_tip: str | None, found: Iterable[Source],
) -> bool:
    """Bring the source rows in line with the sources (inside the caller's transaction);
    True when rows changed (the fold was run again)."""
    want = overlay(dirs, local_tip, found)
    have = {path: (src, blob) for path, src, blob in conn.execute(
        "SELECT path, src, blob FROM records WHERE src != ''")}
    touched = False
    relabel: list[tuple[str, str]] = []
    for path, (src, blob) in have.items():
        item = want.get(path)
        if item is None or item.change.blob != blob:
            delete_path(conn, path)
            touched = True
        elif item.key != src:
            relabel.append((item.key, path))
    conn.executemany("UPDATE records SET src = ? WHERE path = ?", relabel)
    fresh: dict[int, list[OverlayFile]] = {}
    for path, item in sorted(want.items()):
        if path in have and have[path][1] == item.change.blob:
            continue
        fresh.setdefault(id(item.reader), []).append(item)
    for items in fresh.values():
        insert_files(conn, items[0].reader, [i.change for i in items])
        conn.executemany("UPDATE records SET src = ? WHERE path = ?",
                         [(i.key, i.change.path) for i in items])
        # A bad file from a source is counted as a problem of that source, not of ours.
        conn.executemany("DELETE FROM problems WHERE path = ?", [(i.change.path,) for i in items])
        touched = True
    if touched:
        refold(conn)
    return touched or bool(relabel)

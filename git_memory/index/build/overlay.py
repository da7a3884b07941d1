"""Keeping the index's rows from read-only sources (remotes, memory.sources, personal) current.

The local branch's rows have `src = ''`; a row a source adds carries the source's key
(store.sources). `reconcile` compares the rows the index holds from sources with the
files the sources add now (store.union.overlay) and applies the difference: rows no
source adds any more go, new ones come in, a file another source now provides is
relabelled. The fold (index.build.refold.refold) runs over local and source rows together,
so a redaction or supersede made on either side holds on the union. Write side only
(called by index.db while it catches up); imports `index.build.update`, `index.build.refold` and `store.union`.
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

"""The graph's tables and every graph query.

`graph_nodes` (a path, symbol or tag), `graph_about` (entry rowid -> node) and `graph_done`
(which rows, by rowid and blob, are in) are filled on demand, not by the index build:
`catch_up` drops rows whose record is gone, changed or redacted and adds new ones, in
committed batches; `meta.graph_stamp` names the index stamp they reflect. Provenance is
read from the fold's state at query time. Only the local branch's rows are in the graph.
"""

from __future__ import annotations

import json
import sqlite3
from typing import Callable, Iterable, Sequence

from git_memory.index.files import WriterLock, Index
from git_memory.index.schema import Row, meta_value, rows_in, transaction


# (content, tags, anchored paths) -> [(kind, name), ...]: what an entry is about.
About = Callable[[str, list[str], list[str]], list[tuple[str, str]]]

GRAPH_VERSION = "2"  # a change of the tables or of the extraction rules: refill them
BATCH = 20000  # entries per committed transaction while filling
PRELOAD = 1000  # entries in a catch-up above which every node is read at once, not looked up
GRAPH_TABLES = ("graph_nodes", "graph_about", "graph_done")
GRAPH_SCHEMA = """
CREATE TABLE IF NOT EXISTS graph_nodes(nid INTEGER PRIMARY KEY, kind TEXT NOT NULL,
                                       name TEXT NOT NULL);
CREATE UNIQUE INDEX IF NOT EXISTS graph_nodes_name ON graph_nodes(kind, name);
CREATE TABLE IF NOT EXISTS graph_about(entry INTEGER NOT NULL, nid INTEGER NOT NULL,
                                       PRIMARY KEY(entry, nid)) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS graph_about_nid ON graph_about(nid, entry);
CREATE TABLE IF NOT EXISTS graph_done(entry INTEGER PRIMARY KEY, blob TEXT NOT NULL);
"""
# An entry of the local branch the graph may show: never a redacted one.
SHOWN = "r.kind = 'entry' AND r.src = '' AND r.status != 'redacted'"
ENTRY_COLUMNS = ("r.rowid AS rowid, r.id, r.type, r.status, r.confidence, r.created,"
                 " substr(r.content, 1, 400) AS content, r.state")


def is_current(index: Index) -> bool:
    """Does the graph reflect the index as it is (nothing to catch up)?"""
    conn = index.conn
    return (meta_value(conn, "graph_version") == GRAPH_VERSION
            and meta_value(conn, "graph_stamp") == (meta_value(conn, "stamp") or ""))


def catch_up(index: Index, about: About, batch: int = BATCH) -> int:
    """Bring the graph tables level with the index; return how many entries came in."""
    added = 0
    while not is_current(index):
        with WriterLock(index.dirs):
            added += _catch_up_batch(index.conn, about, batch)
    return added


def _catch_up_batch(conn: sqlite3.Connection, about: About, batch: int) -> int:
    with transaction(conn, "BEGIN IMMEDIATE"):
        stamp = meta_value(conn, "stamp") or ""
        if meta_value(conn, "graph_version") != GRAPH_VERSION:  # none yet, or of older rules
            for table in GRAPH_TABLES:
                conn.execute(f"DROP TABLE IF EXISTS {table}")
            conn.execute("DELETE FROM meta WHERE k = 'graph_stamp'")
            conn.execute("INSERT OR REPLACE INTO meta(k, v) VALUES ('graph_version', ?)",
                         (GRAPH_VERSION,))
        for statement in GRAPH_SCHEMA.split(";"):
            if statement.strip():
                conn.execute(statement)
        if meta_value(conn, "graph_stamp") == stamp:
            return 0
        _drop_stale(conn)
        rows = conn.execute(
            "SELECT r.rowid, r.blob, r.content, r.tags, r.origin, r.fields FROM records r"
            f" LEFT JOIN graph_done g ON g.entry = r.rowid WHERE {SHOWN} AND g.entry IS NULL"
            " ORDER BY r.rowid LIMIT ?", (batch,)
        ).fetchall()
        _insert(conn, rows, about)
        if len(rows) < batch:  # the last batch: the graph is level with the index
            conn.execute("INSERT OR REPLACE INTO meta(k, v) VALUES ('graph_stamp', ?)", (stamp,))
        return len(rows)


def _drop_stale(conn: sqlite3.Connection) -> None:
    """Forget rows whose record is gone, holds another blob, or is now redacted (its
    words and names must not outlive it), and nodes nothing is about any more."""
    stale = [(row[0],) for row in conn.execute(
        "SELECT g.entry FROM graph_done g LEFT JOIN records r ON r.rowid = g.entry"
        f" WHERE r.rowid IS NULL OR r.blob != g.blob OR NOT ({SHOWN})"
    )]
    if not stale:
        return
    conn.executemany("DELETE FROM graph_about WHERE entry = ?", stale)
    conn.executemany("DELETE FROM graph_done WHERE entry = ?", stale)
    conn.execute("DELETE FROM graph_nodes WHERE nid NOT IN (SELECT nid FROM graph_about)")


def _insert(conn: sqlite3.Connection, rows: list[Row], about: About) -> None:
    nodes: dict[tuple[str, str], int] = {}
    top = int(conn.execute("SELECT coalesce(max(nid), 0) FROM graph_nodes").fetchone()[0])
    fresh = top == 0
    if not fresh and len(rows) > PRELOAD:  # a large catch-up: one read of every node
        nodes = {(kind, name): int(nid) for nid, kind, name in conn.execute(
            "SELECT nid, kind, name FROM graph_nodes")}
        fresh = True  # every node there is, is in `nodes` now
    new_nodes: list[tuple[int, str, str]] = []
    links: list[tuple[int, int]] = []
    for rowid, blob, content, tags, origin, fields in rows:
        for key in about(content, json.loads(tags), _anchors(origin, fields)):
            nid = nodes.get(key)
            if nid is None and not fresh:
                found = conn.execute("SELECT nid FROM graph_nodes WHERE kind = ? AND name = ?",
                                     key).fetchone()
                nid = None if found is None else int(found[0])
            if nid is None:
                top += 1
                nid = top
                new_nodes.append((nid, *key))
            nodes[key] = nid
            links.append((rowid, nid))
    conn.executemany("INSERT INTO graph_nodes(nid, kind, name) VALUES (?, ?, ?)", new_nodes)
    conn.executemany("INSERT OR IGNORE INTO graph_about(entry, nid) VALUES (?, ?)", links)
    conn.executemany("INSERT INTO graph_done(entry, blob) VALUES (?, ?)",
                     [(row[0], row[1]) for row in rows])


def _anchors(origin: str | None, fields: str | None) -> list[str]:
    """The anchored paths of a row, as `Record.anchors()` reads them (not the space-joined
    search column, which would split a path holding a space)."""
    out: list[str] = []
    if origin and origin != "{}":
        paths = json.loads(origin).get("paths")
        if isinstance(paths, list):
            out.extend(str(p) for p in paths)
    if fields and fields != "{}":
        extra = json.loads(fields).get("anchors")
        if isinstance(extra, list):
            out.extend(str(p) for p in extra)
    return out


# ---- reads (after catch_up)

def entries_by_ids(index: Index, ids: Iterable[str]) -> dict[str, Row]:
    """The shown entries with these full ids: rowid, id, type, status, confidence,
    created, content (its first 400 characters), state."""
    return {row["id"]: row for row in rows_in(
        index.conn, f"SELECT {ENTRY_COLUMNS} FROM records r WHERE {SHOWN} AND r.id IN ({{}})",
        dict.fromkeys(ids))}


def entries_by_rowids(index: Index, rowids: Iterable[int]) -> dict[int, Row]:
    return {int(row["rowid"]): row for row in rows_in(
        index.conn, f"SELECT {ENTRY_COLUMNS} FROM records r WHERE {SHOWN} AND r.rowid IN ({{}})",
        dict.fromkeys(rowids))}


def newest_entries(index: Index, limit: int, offset: int = 0) -> list[Row]:
    """Shown entries, newest first."""
    return index.conn.execute(
        f"SELECT {ENTRY_COLUMNS} FROM records r WHERE {SHOWN}"
        " ORDER BY r.created DESC, r.id DESC LIMIT ? OFFSET ?", (limit, offset)
    ).fetchall()


def count_entries(index: Index) -> int:
    return int(index.conn.execute(f"SELECT count(*) FROM records r WHERE {SHOWN}").fetchone()[0])


def about_of(index: Index, rowids: Sequence[int]) -> list[tuple[int, int, str, str]]:
    """(entry rowid, node id, kind, name) of what these entries are about."""
    return list(rows_in(index.conn, "SELECT a.entry, n.nid, n.kind, n.name FROM graph_about a"
                        " JOIN graph_nodes n ON n.nid = a.nid WHERE a.entry IN ({})"
                        " ORDER BY a.entry, n.nid", rowids))


def find_nodes(index: Index, kind: str, name: str, prefix: bool = False) -> list[tuple[int, str]]:
    """(node id, name) of the node of this kind and name; with `prefix`, also those whose
    name starts with `name` + "/" (the paths under a folder)."""
    rows = index.conn.execute(
        "SELECT nid, name FROM graph_nodes WHERE kind = ? AND name = ?", (kind, name)
    ).fetchall()
    if prefix:
        folder = name.rstrip("/") + "/"
        rows += index.conn.execute(
            "SELECT nid, name FROM graph_nodes WHERE kind = ? AND name > ? AND name < ?"
            " AND name != ? ORDER BY name", (kind, folder, folder + "\U0010ffff", name)
        ).fetchall()
    return [(int(r[0]), str(r[1])) for r in rows]


def entries_about(index: Index, nid: int, limit: int) -> list[int]:
    """Rowids of the shown entries about this node, newest first, at most `limit`."""
    return [int(r[0]) for r in index.conn.execute(
        "SELECT a.entry FROM graph_about a JOIN records r ON r.rowid = a.entry"
        f" WHERE a.nid = ? AND {SHOWN} ORDER BY r.created DESC, r.id DESC LIMIT ?", (nid, limit)
    )]


def degree(index: Index, nids: Sequence[int]) -> dict[int, int]:
    """How many entries are about each node (the rarer, the more a shared node says)."""
    return {int(n): int(c) for n, c in rows_in(
        index.conn, "SELECT nid, count(*) FROM graph_about WHERE nid IN ({}) GROUP BY nid", nids)}


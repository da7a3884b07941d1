"""The index's schema and the names every index module shares: version, file name,
tokenizer, `CREATE` statements, row type, and the two SQL helpers (`rows_in`, `transaction`).
At the bottom of `index/`: it imports no other index module.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable, Iterator


TYPE_CHECKING = False  # `typing` and the model's `dataclasses` are off the hot path
if TYPE_CHECKING:
    from typing import Any

    from git_memory.model import Record


SCHEMA_VERSION = 7
INDEX_NAME = "index.sqlite"
REDACTED_TEXT = "(redacted)"
# One tokenizer for the index and for the query-side scratch tables (index.hits).
TOKENIZE = "porter unicode61 remove_diacritics 2"
# Rows this memory owns or will own at its next sync: the local branch ('') and the
# remote-tracking copies ('remote:NAME'); not personal memory or memory.sources, which
# are read only (store.sources). Writers deduplicate against these, curation works on them.
TEAM = "(src = '' OR src LIKE 'remote:%')"
# Entries a reader shows: not replaced by another, not hidden.
VISIBLE = "status NOT IN ('superseded', 'redacted')"
# A row of `records` (possibly with extra columns such as `local_flag`), read by name.
Row = sqlite3.Row
# Records a writer has just put on the branch, by path: (blob id, record). The index
# takes them as they are instead of reading and parsing the blobs back.
Known = dict[str, tuple[str, "Record"]]

# The full-text table (in SCHEMA).
FTS_TABLE = (
    "CREATE VIRTUAL TABLE fts USING fts5(\n    content, tags, type, anchors,\n"
    f"    tokenize = '{TOKENIZE}'\n)"
)

SCHEMA = """
CREATE TABLE meta(k TEXT PRIMARY KEY, v TEXT);
CREATE TABLE records(
    rowid INTEGER PRIMARY KEY,
    id TEXT NOT NULL,
    kind TEXT NOT NULL,
    type TEXT,
    content TEXT NOT NULL,
    tags TEXT NOT NULL,
    created TEXT NOT NULL,
    author TEXT,
    source TEXT,
    key TEXT,
    origin TEXT,
    fields TEXT,
    anchors TEXT NOT NULL,
    path TEXT NOT NULL UNIQUE,
    blob TEXT NOT NULL,
    hash TEXT,
    curation INTEGER NOT NULL DEFAULT 0,
    status TEXT NOT NULL DEFAULT 'active',
    confidence REAL NOT NULL DEFAULT 0.6,
    state TEXT,
    src TEXT NOT NULL DEFAULT ''
);
CREATE TABLE problems(path TEXT PRIMARY KEY, blob TEXT, reason TEXT NOT NULL);
CREATE TABLE vectors(rowid INTEGER PRIMARY KEY, v BLOB NOT NULL);
CREATE TABLE local_flags(
    id TEXT PRIMARY KEY, flag TEXT NOT NULL, reason TEXT, checked TEXT
);
%s;
""" % FTS_TABLE
# Built after a bulk load (faster than keeping them up to date row by row).
INDEXES = """
CREATE INDEX records_id ON records(id);
CREATE INDEX records_key ON records(key) WHERE key IS NOT NULL;
CREATE INDEX records_hash ON records(hash);
CREATE INDEX records_created ON records(created);
CREATE INDEX records_curation ON records(curation) WHERE curation = 1;
CREATE INDEX records_stated ON records(status) WHERE state IS NOT NULL;
CREATE INDEX records_src ON records(src) WHERE src != '';
"""


def meta_value(conn: sqlite3.Connection, key: str) -> str | None:
    """A value of the `meta` table (None when missing)."""
    row = conn.execute("SELECT v FROM meta WHERE k = ?", (key,)).fetchone()
    return None if row is None else str(row[0])


def rows_in(conn: sqlite3.Connection, sql: str, values: Iterable[Any]) -> Iterator[Any]:
    """The rows of `sql` whose `IN ({})` is filled with `values`, 500 at a time (SQLite's
    parameter limit), in one cursor's order per chunk."""
    wanted = list(values)
    for start in range(0, len(wanted), 500):
        chunk = wanted[start : start + 500]
        yield from conn.execute(sql.format(",".join("?" * len(chunk))), chunk)


class transaction:  # noqa: N801 - used as `with transaction(conn):`, like a function
    """`with transaction(conn[, "BEGIN IMMEDIATE"]):` runs the block in one transaction,
    committed when it ends and rolled back on any exception (a plain class: importing
    `contextlib` would cost recall its time)."""

    __slots__ = ("conn", "begin")

    def __init__(self, conn: sqlite3.Connection, begin: str = "BEGIN") -> None:
        self.conn = conn
        self.begin = begin

    def __enter__(self) -> sqlite3.Connection:
        self.conn.execute(self.begin)
        return self.conn

    def __exit__(self, kind: object, value: object, trace: object) -> None:
        if kind is None:
            try:
                self.conn.execute("COMMIT")
                return
            except BaseException:  # a failed COMMIT (busy, disk full) leaves nothing half-done
                self.conn.execute("ROLLBACK")
                raise
        self.conn.execute("ROLLBACK")

"""A full build's two files (index.build): the build file and its full-text side file
(`index.sqlite.build`, `index.sqlite.build-fts`), made new, or reopened to resume a
build of the same tip and ref that a kill left behind, and tuned for a bulk load. Only
`index.build` imports this. May import `index.files`, `index.schema`.
"""

from __future__ import annotations

import sqlite3
from typing import Any

from git_memory.index.files import build_meta, connect
from git_memory.index.schema import FTS_TABLE, INDEXES, SCHEMA, SCHEMA_VERSION, transaction

FTS_HASH = 64 << 20  # bytes of pending FTS terms before a segment is written (see _tune)


def open_build(
    path: Any, fts: Any, tip: str | None, ref: str
) -> tuple[sqlite3.Connection, sqlite3.Connection, int | None]:
    """The build and side connections, tuned, and how many files they already hold: a
    build of `tip` and `ref` resumed, or None for new files (no tip: always new)."""
    done = None if tip is None else _resumable(path, tip, ref)
    opened = _reopened(path, fts, done) if done is not None else None
    if opened is None:
        done = None
        opened = _new(path, fts)
    conn, side = opened
    _tune(conn, side)
    return conn, side, done


def remove_files(path: Any) -> None:
    """A SQLite file and its journals, if there."""
    for suffix in ("", "-journal", "-wal", "-shm"):
        type(path)(str(path) + suffix).unlink(missing_ok=True)


def _new(path: Any, fts: Any) -> tuple[sqlite3.Connection, sqlite3.Connection]:
    """A new build file and its full-text side file (see Writers)."""
    remove_files(path)
    remove_files(fts)
    conn = connect(path, threads=True)
    # The secondary indexes that cost little per row are kept up to date while loading
    # (work on the side, where an index made at the end is work on the critical path):
    # those holding a few rows (curation, stated, sources) and `created`, in which the
    # dated tree's order appends. Ids, keys and hashes come in no order: made at the end
    # (_finish), which costs a third of keeping them.
    # No fsync (as for the whole build, _tune), and the schema in one transaction: each
    # statement on its own was a transaction of its own, with its own syncs (about 70
    # fdatasync calls, 50 ms of waiting before the first row).
    conn.execute("PRAGMA synchronous = OFF")
    conn.executescript(f"BEGIN; {SCHEMA} {_EARLY_INDEXES};"
                       f" PRAGMA user_version = {SCHEMA_VERSION}; COMMIT;")
    side = connect(fts, threads=True)
    side.execute("PRAGMA synchronous = OFF")
    side.executescript(f"BEGIN; CREATE TABLE meta(k TEXT PRIMARY KEY, v TEXT); {FTS_TABLE};"
                       f" PRAGMA user_version = {SCHEMA_VERSION}; COMMIT;")
    return conn, side


_EARLY_INDEXES = ";".join(s for s in INDEXES.split(";") if "(key)" not in s and (
    "WHERE" in s or "(created)" in s))


def _resumable(path: Any, tip: str, ref: str) -> int | None:
    """How many files the build in `path` holds, when it is a build of this tip and ref."""
    meta = build_meta(path)
    if meta.get("build_tip") != tip or meta.get("build_ref") != ref:
        return None
    try:
        return int(meta.get("build_done", ""))
    except ValueError:
        return None


def _reopened(path: Any, fts: Any, done: int) -> tuple[sqlite3.Connection, sqlite3.Connection] | None:
    """The build file and its side file, to resume a build that holds `done` files; None
    when the side file cannot go with it (missing, damaged, or behind)."""
    side_done = _resumable_side(fts)
    if side_done is None or side_done < done:
        return None
    conn = connect(path, threads=True)
    side = connect(fts, threads=True)
    if side_done > done:
        # Killed between the two commits of a batch (the side file commits first): the
        # side file's last batch goes, so both hold the same files.
        last = conn.execute("SELECT max(rowid) FROM records").fetchone()[0] or 0
        with transaction(side):
            side.execute("DELETE FROM fts WHERE rowid > ?", (last,))
            side.execute("INSERT OR REPLACE INTO meta(k, v) VALUES ('build_done', ?)", (str(done),))
    return conn, side


def _resumable_side(fts: Any) -> int | None:
    try:
        return int(build_meta(fts).get("build_done", ""))
    except ValueError:
        return None


def _tune(conn: sqlite3.Connection, side: sqlite3.Connection) -> None:
    # A rollback journal (SQLite's default) so a killed batch is undone; no fsync: a
    # build lost to a power cut is only rebuilt. A large page cache keeps the FTS
    # segment merges in memory. FTS5 writes its pending terms out as a new segment
    # whenever they pass `hashsize` (1 MiB by default: dozens of small segments per
    # batch, each merged again later); large enough, it writes one per committed batch,
    # which saves a tenth of the inserting process's time. Only the side file has it:
    # what is copied in at the end (_copy_fts) is the data, not this setting.
    for each in (conn, side):
        each.execute("PRAGMA journal_mode = DELETE")
        each.execute("PRAGMA synchronous = OFF")
    conn.execute("PRAGMA cache_size = -16384")  # rows append; the last batch sorts 3 indexes
    # Those three sorts come after the workers stop, when a core is free: at a million
    # rows SQLite sorts in runs, and helper threads sort and merge the runs beside it
    # (4.5 s to 3.0-3.4 s for the three at 1M; at 100k one run, no helper).
    conn.execute("PRAGMA threads = 2")
    side.execute("PRAGMA cache_size = -65536")
    side.execute("INSERT INTO fts(fts, rank) VALUES ('hashsize', ?)", (FTS_HASH,))

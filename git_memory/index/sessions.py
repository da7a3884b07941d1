"""Full-text search over the session archive (`refs/memory/sessions`): an FTS5 file of its
own (`sessions.sqlite`), stamped with the archive commit and rebuilt when the ref moved.
"""

from __future__ import annotations

import os
import sqlite3
from pathlib import Path
from typing import Any

from git_memory.index.schema import TOKENIZE
from git_memory.index.rank.search import fts_query
from git_memory.index.rank.tokens import query_words
from git_memory.store.branch import session_archive
from git_memory.store.locate import SESSIONS_REF, GitDirs, read_ref


DB_NAME = "sessions.sqlite"
_SCHEMA = """
CREATE TABLE meta(k TEXT PRIMARY KEY, v TEXT);
CREATE VIRTUAL TABLE docs USING fts5(
    session UNINDEXED, path UNINDEXED, title, body,
    tokenize = '%s'
);
""" % TOKENIZE


def _db_path(dirs: GitDirs) -> Path:
    return dirs.memory_dir / DB_NAME


def _stamp(conn: sqlite3.Connection) -> str | None:
    try:
        row = conn.execute("SELECT v FROM meta WHERE k = 'stamp'").fetchone()
    except sqlite3.DatabaseError:
        return None
    return row[0] if row else None


def _rebuild(dirs: GitDirs, tip: str) -> None:
    archive = session_archive(dirs)
    path = _db_path(dirs)
    tmp = path.with_name(f"{DB_NAME}.{os.getpid()}.tmp")
    tmp.unlink(missing_ok=True)
    conn = sqlite3.connect(str(tmp), isolation_level=None)
    conn.executescript(_SCHEMA)
    conn.execute("BEGIN")
    for item in archive.iter_files(tip):
        if item.path.endswith(".md"):
            text = archive.read_blob(item.blob).decode("utf-8", "replace")
            title = text.splitlines()[0].lstrip("# ") if text else ""
            conn.execute(
                "INSERT INTO docs(session, path, title, body) VALUES (?,?,?,?)",
                (Path(item.path).stem, item.path, title, text),
            )
    conn.execute("INSERT INTO meta(k, v) VALUES ('stamp', ?)", (tip,))
    conn.execute("COMMIT")
    conn.close()
    os.replace(tmp, path)


def _open(dirs: GitDirs) -> sqlite3.Connection | None:
    tip = read_ref(dirs, SESSIONS_REF)
    if tip is None:
        return None
    path = _db_path(dirs)
    if path.exists():
        conn = sqlite3.connect(str(path), isolation_level=None)
        if _stamp(conn) == tip:
            return conn
        conn.close()
    dirs.memory_dir.mkdir(parents=True, exist_ok=True)
    _rebuild(dirs, tip)
    return sqlite3.connect(str(path), isolation_level=None)


def search_sessions(dirs: GitDirs, query: str, limit: int = 10) -> list[dict[str, Any]]:
    """Archived sessions ranked for `query`: session, path, title, snippet, score."""
    terms = query_words(query)
    if not terms:
        return []
    conn = _open(dirs)
    if conn is None:
        return []
    try:
        rows = conn.execute(
            "SELECT session, path, title, snippet(docs, 3, '[', ']', ' … ', 16),"
            " bm25(docs, 0, 0, 4.0, 1.0) AS rank FROM docs WHERE docs MATCH ?"
            " ORDER BY rank LIMIT ?",
            (fts_query(terms), limit),
        ).fetchall()
    finally:
        conn.close()
    return [
        {"session": r[0], "path": r[1], "title": r[2], "snippet": r[3], "score": round(-r[4], 4)}
        for r in rows
    ]

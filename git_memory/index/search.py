"""Ranking: turn a free-text query into a safe FTS5 query and rank entries.

Every user token is quoted, so no input can raise an FTS syntax error.
This first version is plain field-weighted BM25; see docs/recall.md for the
ranking as it evolves.
"""

from __future__ import annotations

import re
import sqlite3
from dataclasses import dataclass
from typing import Sequence

from git_memory.index.db import Index
from git_memory.index.entries import filters
from git_memory.index.text import identifier_parts

_WORD = re.compile(r"\w+", re.UNICODE)
# content, tags, type, anchors
WEIGHTS = (10.0, 4.0, 1.0, 3.0)


@dataclass
class Hit:
    row: sqlite3.Row
    score: float


def query_terms(query: str) -> list[str]:
    words = _WORD.findall(query) + identifier_parts(query)
    seen: list[str] = []
    for word in words:
        low = word.lower()
        if low not in seen:
            seen.append(low)
    return seen[:64]


def fts_query(terms: Sequence[str]) -> str:
    return " OR ".join('"' + t.replace('"', '""') + '"' for t in terms)


def search(
    index: Index,
    query: str,
    *,
    types: Sequence[str] = (),
    tags: Sequence[str] = (),
    since: str | None = None,
    include_all: bool = False,
    boost_paths: Sequence[str] = (),
    limit: int = 10,
) -> list[Hit]:
    """Entries ranked for `query` (best first), with filters applied."""
    terms = query_terms(query)
    where, params = filters(list(types), list(tags), include_all, since)
    if not terms:
        return []
    sql = (
        f"SELECT r.*, bm25(fts, {', '.join(map(str, WEIGHTS))}) AS rank FROM fts"
        f" JOIN records r ON r.rowid = fts.rowid WHERE fts MATCH ? AND {where}"
        " ORDER BY rank LIMIT ?"
    )
    rows = index.conn.execute(sql, [fts_query(terms), *params, limit]).fetchall()
    return [Hit(row, -row["rank"]) for row in rows]

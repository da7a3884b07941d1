"""What ranking hands out and works in: `Hit`, and the query-side scratch tables.

A module of its own so that `search` (stage one) and `rerank` (stage two) both use
them without importing each other. Imports only `index.schema`.
"""

from __future__ import annotations

import sqlite3

from git_memory.index.schema import TOKENIZE, Row

STALE_FLAGS = ("stale", "needs_review")
# Every listing of entries for recall carries the checkout hook's local flag.
SELECT = "r.*, lf.flag AS local_flag"
JOIN_FLAGS = "LEFT JOIN local_flags lf ON lf.id = r.id"


class Hit:
    """One ranked entry: its `records` row (with `local_flag`) and its score."""

    __slots__ = ("row", "score")

    def __init__(self, row: Row, score: float) -> None:
        self.row = row
        self.score = score

    @property
    def stale(self) -> bool:
        return self.row["local_flag"] in STALE_FLAGS


def make_scratch(conn: sqlite3.Connection) -> None:
    """Temporary FTS tables that tokenize text exactly as the index does (per connection)."""
    conn.executescript(
        f"""
        CREATE VIRTUAL TABLE IF NOT EXISTS temp.gm_q USING fts5(x, tokenize = '{TOKENIZE}');
        CREATE VIRTUAL TABLE IF NOT EXISTS temp.gm_qv USING fts5vocab(temp, gm_q, instance);
        CREATE VIRTUAL TABLE IF NOT EXISTS temp.gm_c USING fts5(
            head, body, meta, code, link, content = '', tokenize = '{TOKENIZE}');
        CREATE VIRTUAL TABLE IF NOT EXISTS temp.gm_cv USING fts5vocab(temp, gm_c, instance);
        CREATE VIRTUAL TABLE IF NOT EXISTS temp.gm_mv USING fts5vocab(main, fts, row);
        """
    )

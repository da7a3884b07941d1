"""What both ranking stages share: `Hit`, the query-side scratch tables, and the query
words' document frequencies (`doc_freqs`)."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable

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


def tuples(conn: sqlite3.Connection) -> sqlite3.Cursor:
    """A cursor handing out plain tuples: the index's connection makes `sqlite3.Row`s,
    which cost more to build and to read, and ranking reads thousands of small rows."""
    cursor = conn.cursor()
    cursor.row_factory = None
    return cursor


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


# A word's entries are counted exactly up to EXACT (a bounded count, cheap); a word found
# in more is common, and its count is estimated from how far into the rowids its first
# EXACT + 1 entries reach, since counting 450,000 postings of `use` in a 1M index costs
# more than the rest of a recall. An index of at most WINDOW entries is counted in full.
EXACT = 2000  # twice CAP: stage one knows exactly which words are rare
WINDOW = 20_000


def quote(word: str) -> str:
    """`word` as one FTS5 string: whatever a user types is never query syntax."""
    return '"' + word.replace('"', '""') + '"'


def doc_freqs(conn: sqlite3.Connection, words: Iterable[str], total: int,
              cache: dict[str, int] | None = None) -> dict[str, int]:
    """In how many entries each query word occurs (as the index tokenizes and stems it).

    Exact up to EXACT (or in an index of at most WINDOW entries); above, the share of
    the rowids its first EXACT + 1 entries span, scaled to `total` (the highest rowid).
    `cache`: the counts found so far for this index state (a warm process, the MCP
    server, counts a word once per state: index.search.find's `memo`).
    """
    cache = {} if cache is None else cache
    out: dict[str, int] = {}
    for word in words:
        found = cache.get(word)
        if found is None:
            found = cache[word] = _doc_freq(conn, quote(word), total)
        out[word] = found
    return out


def _doc_freq(conn: sqlite3.Connection, phrase: str, total: int) -> int:
    # FTS5 hands out a match in rowid order: the LIMIT stops after EXACT + 1 postings.
    count, reach = tuples(conn).execute(
        "SELECT count(*), max(rowid) FROM (SELECT rowid FROM fts WHERE fts MATCH ? LIMIT ?)",
        (phrase, EXACT + 1),
    ).fetchone()
    if count <= EXACT:
        return int(count)
    if total <= WINDOW:
        return int(conn.execute("SELECT count(*) FROM fts WHERE fts MATCH ?", (phrase,)).fetchone()[0])
    return max(EXACT + 1, round(count * total / max(reach, 1)))

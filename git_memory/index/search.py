"""Ranking: find candidates with FTS5 BM25, then rescore them on what BM25 cannot see.

Stage one asks FTS5 for the best `pool` entries by field-weighted BM25 over an
OR of the query's words (every word quoted, so no input can raise an FTS
syntax error). Stage two (`rerank`) rescores those few candidates: how much of
the query's information each covers, whether query words sit next to each
other, whether they are in the entry's first line. Local stale flags,
contradictions, confidence and recency come last and only move entries a
little, or (stale) below the live ones. See docs/recall.md for the why.
"""

from __future__ import annotations

import sqlite3

from git_memory.index.db import TOKENIZE, Index
from git_memory.index.entries import filters
from git_memory.index.tokens import STOP_WORDS, query_words

# `typing` costs recall ~2 ms to import and is only needed by the type checker here.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, Sequence

# content, tags, type, anchors. FTS5 multiplies term counts by these before BM25's
# saturation, so a large weight flattens term frequency: keep content at 1.
WEIGHTS = (1.0, 1.0, 0.5, 1.0)
POOL = 50
STALE_FLAGS = ("stale", "needs_review")
_BM25 = "bm25(fts, " + ", ".join(map(str, WEIGHTS)) + ")"
_SELECT = "r.*, lf.flag AS local_flag"
_JOIN_FLAGS = "LEFT JOIN local_flags lf ON lf.id = r.id"


class Hit:
    """One ranked entry: its `records` row (with `local_flag`) and its score."""

    __slots__ = ("row", "score")

    def __init__(self, row: sqlite3.Row, score: float) -> None:
        self.row = row
        self.score = score

    @property
    def stale(self) -> bool:
        return self.row["local_flag"] in STALE_FLAGS


def fts_query(words: Sequence[str]) -> str:
    return " OR ".join('"' + w.replace('"', '""') + '"' for w in words)


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
    pool: int = POOL,
) -> list[Hit]:
    """Entries ranked for `query` (best first), filters applied, duplicates once.

    With no usable word in `query` but `boost_paths`, the entries anchored at or
    under those paths, newest first.
    """
    from git_memory.index.rerank import rerank

    words = query_words(query)
    every = query_words(query, keep_stop_words=True)
    where, params = filters(list(types), list(tags), include_all, since)
    paths = [p for p in (_norm_path(p) for p in boost_paths) if p]
    if not words:
        return _anchored(index.conn, paths, where, params, limit) if paths else []
    rows, bm25 = _candidates(index.conn, words, where, params, bool(types or tags or since),
                             max(pool, 3 * limit))
    cosine = _semantic(index, query, rows, where, params)
    hits = rerank(index.conn, every, rows, bm25, paths, STOP_WORDS, cosine)
    return _unique(hits, limit)


def _semantic(
    index: Index, query: str, rows: list[sqlite3.Row], where: str, params: list[Any]
) -> dict[int, float] | None:
    """With semantic recall on (index.semantic): add the nearest entries, return cosines."""
    from git_memory.store.locate import read_config

    if not read_config(index.dirs, "memory", "semantic"):
        return None  # off: nothing imported, nothing computed
    from git_memory.index import semantic

    if not semantic.wanted(index.dirs):
        return None
    qv, near = semantic.nearest(index.conn, query)
    have = {row["rowid"] for row in rows}
    extra = [rowid for rowid in near if rowid not in have]
    if extra:
        marks = ",".join("?" * len(extra))
        rows.extend(index.conn.execute(
            f"SELECT {_SELECT} FROM records r {_JOIN_FLAGS} WHERE r.rowid IN ({marks}) AND {where}",
            [*extra, *params],
        ).fetchall())
    return semantic.cosines(index.conn, qv, rows)


def _candidates(
    conn: sqlite3.Connection, words: list[str], where: str, params: list[Any],
    narrow: bool, pool: int,
) -> tuple[list[sqlite3.Row], dict[int, float]]:
    """The `pool` best rows by BM25 (that pass the filters), and their BM25 scores."""
    match = fts_query(words)
    if not narrow:
        # Rank in FTS alone (cheap), then filter the few: the join costs more
        # than the ranking when a common word matches most of the index.
        top = conn.execute(
            f"SELECT rowid, {_BM25} FROM fts WHERE fts MATCH ? ORDER BY 2 LIMIT ?", (match, pool)
        ).fetchall()
        bm25 = {rowid: -score for rowid, score in top}
        if not top:
            return [], bm25
        marks = ",".join("?" * len(top))
        rows = conn.execute(
            f"SELECT {_SELECT} FROM records r {_JOIN_FLAGS} WHERE r.rowid IN ({marks}) AND {where}",
            [*bm25, *params],
        ).fetchall()
        if len(rows) == len(top) or len(top) < pool:
            return rows, bm25
    rows = conn.execute(
        f"SELECT {_SELECT}, {_BM25} AS bm25 FROM fts JOIN records r ON r.rowid = fts.rowid"
        f" {_JOIN_FLAGS} WHERE fts MATCH ? AND {where} ORDER BY bm25 LIMIT ?",
        [match, *params, pool],
    ).fetchall()
    return rows, {row["rowid"]: -row["bm25"] for row in rows}


def _unique(hits: list[Hit], limit: int) -> list[Hit]:
    """The first `limit` hits, an exact duplicate (same normalised text) shown once."""
    seen: set[str] = set()
    out: list[Hit] = []
    for hit in hits:
        digest = hit.row["hash"] or hit.row["id"]
        if digest in seen:
            continue
        seen.add(digest)
        out.append(hit)
        if len(out) >= limit:
            break
    return out


def _norm_path(path: str) -> str:
    path = path.strip().replace("\\", "/")
    while path.startswith("./"):
        path = path[2:]
    return path.strip("/")


def anchored_sql(paths: Sequence[str]) -> tuple[str, list[str]]:
    """A WHERE fragment: anchored at or under one of `paths` (space-joined anchors)."""
    parts: list[str] = []
    params: list[str] = []
    for path in paths:
        parts.append("(instr(' ' || r.anchors || ' ', ?) > 0 OR instr(' ' || r.anchors, ?) > 0)")
        params += [f" {path} ", f" {path}/"]
    return "(" + " OR ".join(parts) + ")", params


def _anchored(
    conn: sqlite3.Connection, paths: list[str], where: str, params: list[Any], limit: int
) -> list[Hit]:
    cond, cond_params = anchored_sql(paths)
    rows = conn.execute(
        f"SELECT {_SELECT} FROM records r {_JOIN_FLAGS} WHERE {where} AND {cond}"
        " ORDER BY (lf.flag IS NOT NULL AND lf.flag IN ('stale', 'needs_review')),"
        " r.created DESC, r.id DESC LIMIT ?",
        [*params, *cond_params, 4 * limit],
    ).fetchall()
    return _unique([Hit(row, 0.0) for row in rows], limit)


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

"""Ranking: find candidates with FTS5 BM25, then rescore them on what BM25 cannot see.

Stage one asks FTS5 for the best `pool` entries by field-weighted BM25 over an
OR of the query's words (every word quoted, so no input can raise an FTS
syntax error). Stage two (`rerank`) rescores those few candidates: how much of
the query's information each covers, whether query words sit next to each
other, whether they are in the entry's first line. Local stale flags,
contradictions, confidence and recency come last and only move entries a
little, or (stale) below the live ones. See docs/recall.md for the why.

`find` is recall's one call into the index: the newest entries, or the newest N
narrowed by a query, or the ranked search, as recall's JSON entries. Imports
`entries`, `hits`, `rerank`, `schema` and `tokens`; `semantic` (standard library
only, no numpy) and `db.sync_vectors` at recall time.
"""

from __future__ import annotations

import sqlite3

from git_memory.index.entries import entry_dict, filters, newest_flagged
from git_memory.index.hits import JOIN_FLAGS, SELECT, STALE_FLAGS, Hit
from git_memory.index.rerank import rerank
from git_memory.index.schema import Row
from git_memory.index.tokens import QUESTION_WORDS, STOP_WORDS, is_question, query_words

# `typing` costs recall ~2 ms to import and is only needed by the type checker here.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, Sequence

    from git_memory.index.db import Index

# content, tags, type, anchors. FTS5 multiplies term counts by these before BM25's
# saturation, so a large weight flattens term frequency: keep content at 1.
WEIGHTS = (1.0, 1.0, 0.5, 1.0)
POOL = 50
_BM25 = "bm25(fts, " + ", ".join(map(str, WEIGHTS)) + ")"


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
    words = query_words(query)
    every = query_words(query, keep_stop_words=True)
    where, params = filters(list(types), list(tags), include_all, since)
    paths = [p for p in (_norm_path(p) for p in boost_paths) if p]
    if not words:
        return _anchored(index.conn, paths, where, params, limit) if paths else []
    rows, bm25 = _candidates(index.conn, words, where, params, bool(types or tags or since),
                             max(pool, 3 * limit))
    cosine = _semantic(index, query, rows)
    question = is_question(query)
    hits = rerank(index.conn, every, rows, bm25, paths, QUESTION_WORDS if question else STOP_WORDS,
                  cosine, question)
    return _unique(hits, limit)


def find(
    index: Index,
    query: str,
    *,
    types: Sequence[str] = (),
    tags: Sequence[str] = (),
    since: str | None = None,
    include_all: bool = False,
    paths: Sequence[str] = (),
    limit: int = 10,
    recent: int | None = None,
) -> list[dict[str, Any]]:
    """What `recall` shows, as recall's JSON entries (`score` None when not ranked).

    With `recent` N: among the N newest entries only (all N when there is neither
    query nor path). With neither query nor path: the newest `limit`. Otherwise the
    ranked `search`.
    """
    listing = not query.strip() and not paths
    adopted = index.adopted()
    if recent:
        rows = newest_flagged(index, recent, types, tags, include_all, since)
        if listing:
            return [_recall_entry(row, None, adopted) for row in rows]
        cutoff = rows[-1]["created"] if rows else None
        since = max(filter(None, (since, cutoff)), default=None)
    if listing:
        rows = newest_flagged(index, limit, types, tags, include_all, since)
        return [_recall_entry(row, None, adopted) for row in rows]
    hits = search(index, query, types=types, tags=tags, since=since, include_all=include_all,
                  boost_paths=paths, limit=limit)
    return [_recall_entry(hit.row, hit.score, adopted) for hit in hits]


def _recall_entry(row: Row, score: float | None, adopted: str | None = None) -> dict[str, Any]:
    """entry_dict plus what recall adds: score, local flag, stale, anchors."""
    entry = entry_dict(row, adopted)
    entry["score"] = score
    flag = row["local_flag"]
    entry["local_flag"] = flag
    entry["stale"] = flag in STALE_FLAGS
    entry["anchors"] = row["anchors"].split() if row["anchors"] else []
    return entry


def _semantic(index: Index, query: str, rows: list[Row]) -> dict[int, float] | None:
    """With semantic ranking on (index.semantic): the cosine of the query with each candidate."""
    from git_memory.index import semantic  # standard library only: no numpy on this path

    folder = semantic.enabled(index.dirs)
    if folder is None:
        return None  # switched off, or the extra not installed
    from git_memory.index.db import sync_vectors  # semantic recall only

    sync_vectors(index, folder)  # entries written since, or while it was off
    return semantic.cosines(index.conn, folder, query, rows)


def _candidates(
    conn: sqlite3.Connection, words: list[str], where: str, params: list[Any],
    narrow: bool, pool: int,
) -> tuple[list[Row], dict[int, float]]:
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
            f"SELECT {SELECT} FROM records r {JOIN_FLAGS} WHERE r.rowid IN ({marks}) AND {where}",
            [*bm25, *params],
        ).fetchall()
        if len(rows) == len(top) or len(top) < pool:
            return rows, bm25
    rows = conn.execute(
        f"SELECT {SELECT}, {_BM25} AS bm25 FROM fts JOIN records r ON r.rowid = fts.rowid"
        f" {JOIN_FLAGS} WHERE fts MATCH ? AND {where} ORDER BY bm25 LIMIT ?",
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


def _anchored_sql(paths: Sequence[str]) -> tuple[str, list[str]]:
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
    cond, cond_params = _anchored_sql(paths)
    rows = conn.execute(
        f"SELECT {SELECT} FROM records r {JOIN_FLAGS} WHERE {where} AND {cond}"
        " ORDER BY (lf.flag IS NOT NULL AND lf.flag IN ('stale', 'needs_review')),"
        " r.created DESC, r.id DESC LIMIT ?",
        [*params, *cond_params, 4 * limit],
    ).fetchall()
    return _unique([Hit(row, 0.0) for row in rows], limit)

"""Ranking, stage one: the best BM25 candidates from FTS5; `find`, recall's one call.

Every query word is quoted, so no input is FTS syntax. FTS5 scores every row an OR matches
before its LIMIT, so when the words match more than CAP entries together, stage one starts
from the rarest (`_rare_first`) and common words only add to what those found. Stage two
(`rerank`) rescores the pool. Why, with figures: docs/recall.md.
"""

from __future__ import annotations

import heapq
import math
import sqlite3
from collections.abc import Sequence
from operator import itemgetter

from git_memory.index.rank import semantic
from git_memory.index.entries import entry_dict, filters, newest_flagged
from git_memory.index.files import Index, WriterLock
from git_memory.index.rank.hits import JOIN_FLAGS, SELECT, STALE_FLAGS, Hit, doc_freqs, quote, tuples
from git_memory.index.rank.fusion import fuse
from git_memory.index.rank.rerank import rerank
from git_memory.index.schema import Row, transaction
from git_memory.index.rank.tokens import QUESTION_WORDS, STOP_WORDS, is_question, query_words

TYPE_CHECKING = False  # `typing` is off the hot path: for the type checker only
if TYPE_CHECKING:
    from typing import Any

# content, tags, type, anchors. FTS5 multiplies term counts by these before BM25's
# saturation, so a large weight flattens term frequency: keep content at 1.
WEIGHTS = (1.0, 1.0, 0.5, 1.0)
POOL = 50
# Rows stage one lets FTS5 rank (about 2.5 us each at 100k entries) before it narrows
# the match to the query's rarest words (docs/recall.md, "Common words").
CAP = 1000
# Past CAP, a word in more than this share of the entries adds nothing in stage one: its IDF
# (under 2.2) is small next to a rare word's, and even an AND with it walks its postings.
COMMON = 0.1
_BM25 = "bm25(fts, " + ", ".join(map(str, WEIGHTS)) + ")"
_second = itemgetter(1)


def fts_query(words: Sequence[str]) -> str:
    return " OR ".join(quote(w) for w in words)


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
    memo: dict[str, Any] | None = None,
    meaning: Any = None,
    explain: dict[int, dict[str, float]] | None = None,
) -> list[Hit]:
    """Entries ranked for `query` (best first), filters applied, duplicates once.

    With no usable word in `query` but `boost_paths`, the entries anchored at or
    under those paths, newest first. `memo`: see `find`. `meaning` (embed.query's
    `Meaning`: the nearest entries by vector and any entry's cosine) is fused with the
    keyword hits (`fusion.fuse`); `explain` receives each hit's signals.
    """
    memo = {} if memo is None else memo
    words = query_words(query)
    every = query_words(query, keep_stop_words=True)
    where, params = filters(list(types), list(tags), include_all, since)
    paths = [p for p in (_norm_path(p) for p in boost_paths) if p]
    if not words:
        if meaning is not None and meaning.hits:
            return _unique(fuse([], meaning.hits, meaning.near.cosine, is_question(query),
                                explain), limit)
        return _anchored(index.conn, paths, where, params, limit) if paths else []
    total = memo.get("total")
    if total is None:
        total = memo["total"] = index.conn.execute("SELECT max(rowid) FROM records").fetchone()[0] or 1
    df = doc_freqs(index.conn, every + [w for w in words if w not in every], total,
                   memo.setdefault("df", {}))
    rows, bm25 = _candidates(index.conn, words, where, params, bool(types or tags or since),
                             max(POOL, 3 * limit), df, total)
    cosine = _semantic(index, query, rows)
    question = is_question(query)
    hits = rerank(index.conn, every, rows, bm25, paths, QUESTION_WORDS if question else STOP_WORDS,
                  cosine, question, df, total)
    if meaning is not None:
        hits = fuse(hits, meaning.hits, meaning.near.cosine, question, explain)
    elif explain is not None:
        explain.update({hit.row["rowid"]: {"keyword": hit.score} for hit in hits})
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
    memo: dict[str, Any] | None = None,
    meaning: Any = None,
    explain: bool = False,
) -> list[dict[str, Any]]:
    """What `recall` shows, as recall's JSON entries (`score` None when not ranked): the
    ranked `search`, or with neither query nor path the newest `limit`; with `recent` N,
    among the N newest only. `memo`: what a warm caller keeps for this open index (the
    highest rowid, the words' document frequencies, the adopted remote), new at each open.
    """
    listing = not query.strip() and not paths
    memo = {} if memo is None else memo
    if "adopted" not in memo:
        memo["adopted"] = index.adopted()
    adopted = memo["adopted"]
    if recent:
        rows = newest_flagged(index, recent, types, tags, include_all, since)
        if listing:
            return [_recall_entry(row, None, adopted) for row in rows]
        cutoff = rows[-1]["created"] if rows else None
        since = max(filter(None, (since, cutoff)), default=None)
    if listing:
        rows = newest_flagged(index, limit, types, tags, include_all, since)
        return [_recall_entry(row, None, adopted) for row in rows]
    signals: dict[int, dict[str, float]] | None = {} if explain else None
    hits = search(index, query, types=types, tags=tags, since=since, include_all=include_all,
                  boost_paths=paths, limit=limit, memo=memo, meaning=meaning, explain=signals)
    found = [_recall_entry(hit.row, hit.score, adopted) for hit in hits]
    if signals is not None:
        for hit, entry in zip(hits, found):
            entry["explain"] = _explained(hit.row, query, signals.get(hit.row["rowid"], {}),
                                          meaning)
    return found


def _explained(row: Row, query: str, signals: dict[str, float], meaning: Any) -> dict[str, Any]:
    """Which signals found an entry (recall --explain): the query words it holds, the
    keyword score, the cosine by meaning and its model, the fused score, age and confidence."""
    text = row["content"].lower()
    terms = [w for w in query_words(query) if w in text]
    keyword = signals.get("keyword", 0.0)
    cosine = signals.get("cosine")
    out: dict[str, Any] = {"terms": terms, "keyword": round(keyword, 4),
                           "confidence": row["confidence"], "created": row["created"]}
    if meaning is not None:
        out.update(model=meaning.model, cosine=None if cosine is None else round(cosine, 4),
                   meaning_weight=signals.get("meaning_weight"),
                   found_by=[name for name, yes in (("keyword", keyword > 0 or bool(terms)),
                                                    ("meaning", bool(cosine))) if yes])
    else:
        out.update(model=None, cosine=None, found_by=["keyword"])
    return out


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
    """With semantic ranking on: the cosine of the query with each candidate."""
    folder = semantic.enabled(index.dirs)
    if folder is None:
        return None
    if semantic.behind(index.conn, folder):  # entries written since, or while it was off
        with WriterLock(index.dirs), transaction(index.conn, "BEGIN IMMEDIATE"):
            semantic.sync(index.conn, folder)
    return semantic.cosines(index.conn, folder, query, rows)


def _candidates(
    conn: sqlite3.Connection, words: list[str], where: str, params: list[Any],
    narrow: bool, pool: int, df: dict[str, int] | None = None, total: int = 0,
) -> tuple[list[Row], dict[int, float]]:
    """The `pool` best rows by BM25 (that pass the filters), and their BM25 scores."""
    if df is None:
        total = conn.execute("SELECT max(rowid) FROM records").fetchone()[0] or 1
        df = doc_freqs(conn, words, total)
    live = [w for w in words if df.get(w)]  # a word no entry holds matches nothing
    if not live:
        return [], {}
    # A word in half the entries or more gets no weight from FTS5's BM25 (its IDF is
    # clamped to ~0), yet counting its postings would cost the most: leave it out. Not in
    # a small memory (CAP postings or fewer): there the word is cheap, and in a memory of
    # two entries every word is in half of them, so leaving it out would find nothing.
    live = [w for w in live if 2 * df[w] < total or df[w] <= CAP] or live[:1]
    if not narrow:
        # Rank in FTS alone (cheap), then filter the few: the join costs more
        # than the ranking when a common word matches most of the index.
        if len(live) > 1 and sum(df[w] for w in live) > CAP:
            ranked = _rare_first(conn, live, df, total, pool)
        else:
            ranked = [(rowid, -score) for rowid, score in _best(tuples(conn).execute(
                f"SELECT rowid, {_BM25} FROM fts WHERE fts MATCH ?", (fts_query(live),)
            ), 4 * pool)]
        rows, bm25 = _passing(conn, ranked, where, params, pool)
        if len(rows) >= pool or len(ranked) < 4 * pool:
            return rows, bm25
    rows = conn.execute(
        f"SELECT {SELECT}, {_BM25} AS bm25 FROM fts JOIN records r ON r.rowid = fts.rowid"
        f" {JOIN_FLAGS} WHERE fts MATCH ? AND {where} ORDER BY bm25 LIMIT ?",
        [fts_query(live), *params, pool],
    ).fetchall()
    return rows, {row["rowid"]: -row["bm25"] for row in rows}


def _passing(
    conn: sqlite3.Connection, ranked: list[tuple[int, float]], where: str, params: list[Any],
    pool: int,
) -> tuple[list[Row], dict[int, float]]:
    """The best `pool` of `ranked` (rowid, score; best first) whose rows pass the filters."""
    rows: list[Row] = []
    bm25: dict[int, float] = {}
    start = 0
    while start < len(ranked) and len(rows) < pool:
        # The best `pool` first (they nearly always pass), then more at a time.
        step = pool if not start else 2 * pool
        batch = dict(ranked[start:start + step])
        start += step
        marks = ",".join("?" * len(batch))
        found = conn.execute(
            f"SELECT {SELECT} FROM records r {JOIN_FLAGS} WHERE r.rowid IN ({marks}) AND {where}",
            [*batch, *params],
        ).fetchall()
        found.sort(key=lambda row: -batch[row["rowid"]])
        for row in found[:pool - len(rows)]:
            rows.append(row)
            bm25[row["rowid"]] = batch[row["rowid"]]
    return rows, bm25


def _rare_first(
    conn: sqlite3.Connection, words: list[str], df: dict[str, int], total: int, pool: int
) -> list[tuple[int, float]]:
    """Stage one for a query whose words match more than CAP entries together.

    The rarest words (together at most CAP entries, at least one) make the match, ranked
    by FTS5's BM25; each other word adds its IDF to the entries of that match holding it
    (an AND, which FTS5 answers by skipping through the common word's postings unscored).
    Entries holding only common words are left out: their score would be small. A word in
    more than COMMON of the entries adds nothing here (rerank still weighs it). When even
    the rarest word is common, the entries holding every word come first, then the newest
    holding the rarest: FTS5 ranks at most about CAP rows either way (`_ranked`).
    """
    order = sorted(words, key=lambda w: df[w])
    rare: list[str] = []
    used = 0
    for word in order:
        if rare and used + df[word] > CAP:
            break
        rare.append(word)
        used += df[word]
    match = fts_query(rare)
    after = _window(used, total)
    score = _ranked(conn, match, after)
    for word in order[len(rare):]:
        if df[word] > COMMON * total:
            break  # `use` in 45% of a 1M index: IDF 0.2, and 4 ms to find it among 1,000
        gain = _fts_idf(df[word], total)
        for (rowid,) in tuples(conn).execute(
            "SELECT rowid FROM fts WHERE fts MATCH ? AND rowid > ?",
            (f"({match}) AND {quote(word)}", after),
        ):
            if rowid in score:
                score[rowid] += gain
    # Every word is common: the entries holding them all (FTS5 counts each word's
    # postings for its IDF, so the commonest, whose IDF is small, are left to the gains).
    together = [w for w in order if df[w] <= 10 * CAP]
    if used > CAP and len(together) > 1:
        every = " AND ".join(quote(w) for w in together)
        held = conn.execute("SELECT count(*) FROM fts WHERE fts MATCH ?", (every,)).fetchone()[0]
        both = _ranked(conn, every, _window(held, total))
        for rowid, value in both.items():
            score[rowid] = max(score.get(rowid, 0.0), value)
    return heapq.nlargest(4 * pool, score.items(), key=lambda item: item[1])


def _window(count: int, total: int) -> int:
    """The rowid after which a match of `count` entries holds about CAP of them (0: all)."""
    if count <= CAP:
        return 0
    return total - total * CAP // count


def _ranked(conn: sqlite3.Connection, match: str, after: int) -> dict[int, float]:
    """BM25 of the best CAP entries past rowid `after` that `match` finds, best first."""
    return {rowid: -value for rowid, value in _best(tuples(conn).execute(
        f"SELECT rowid, {_BM25} FROM fts WHERE fts MATCH ? AND rowid > ?", (match, after),
    ), CAP)}


def _best(cursor: sqlite3.Cursor, count: int) -> list[tuple[int, float]]:
    """The `count` (rowid, bm25) pairs of lowest (best) bm25, in the order `ORDER BY bm25
    LIMIT count` gives (ties in rowid order: `list.sort` is stable too), sorted here in a
    tenth of SQLite's 0.4 ms for 600 rows (docs/recall.md, "Speed")."""
    found: list[tuple[int, float]] = cursor.fetchall()
    found.sort(key=_second)
    del found[count:]
    return found


def _fts_idf(df: int, total: int) -> float:
    """FTS5's own BM25 IDF (never below a hair over zero, as FTS5 does)."""
    return max(math.log((total - df + 0.5) / (df + 0.5)), 1e-6)


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


def _anchored(
    conn: sqlite3.Connection, paths: list[str], where: str, params: list[Any], limit: int
) -> list[Hit]:
    """The entries anchored at or under one of `paths` (space-joined anchors), newest first."""
    cond = " OR ".join(["(instr(' ' || r.anchors || ' ', ?) > 0 OR instr(' ' || r.anchors, ?) > 0)"]
                       * len(paths))
    cond_params = [each for path in paths for each in (f" {path} ", f" {path}/")]
    rows = conn.execute(
        f"SELECT {SELECT} FROM records r {JOIN_FLAGS} WHERE {where} AND ({cond})"
        " ORDER BY (lf.flag IS NOT NULL AND lf.flag IN ('stale', 'needs_review')),"
        " r.created DESC, r.id DESC LIMIT ?",
        [*params, *cond_params, 4 * limit],
    ).fetchall()
    return _unique([Hit(row, 0.0) for row in rows], limit)

"""Ranking, stage two: rescore the BM25 candidates on what FTS5's BM25 does not see.

The candidates' text is tokenized by the index's own tokenizer (a scratch FTS5 table) and
scored: BM25 again over every query word, a word in the lead counting extra; coverage (the
IDF-weighted share of the query held); proximity (neighbouring query words found next to
each other). Then small multipliers and the stale tier. Measured in docs/recall.md.
"""

from __future__ import annotations

import json
import math
import re
import sqlite3

from git_memory.index.rank.hits import Hit, doc_freqs, make_scratch, tuples
from git_memory.index.schema import Row
from git_memory.index.rank.semantic import LAMBDA

TYPE_CHECKING = False  # `typing` is off the hot path: for the type checker only
if TYPE_CHECKING:
    from typing import Any

K1 = 1.2
B = 0.75
LEAD = 0.5  # extra count for a word in the lead
HEAD = 0.5  # and again when it is in the first line
LEAD_WORDS = 20
QUESTION_STOP = 0.0  # weight, in a question's BM25, of its question and function words
HEAD_WORDS = 20  # a first line longer than this (a one-paragraph entry) is not a headline
COVERAGE = 1.0
PROXIMITY = 1.0
NEAR = 3  # words apart, at most, for two query words to count as neighbours
PATH_BOOST = 1.5
CONTRADICTED = 0.9  # per contradiction, at most three times
NEEDS_REVIEW = 0.9
CONFIDENCE_TIE = 0.02  # a 1.0-confidence entry gains 0.8% over a 0.6 one: ties only
CODE = 0.5  # a word in a fenced code block (commands, output) counts this much
_TOKEN = re.compile(r"[^\W_]+")
# A link target or bare URL names another document: its words are left out. A Markdown
# link's text describes the document linked to more than this one (anchor text): less weight.
ANCHOR = 0.25
_ANCHOR = re.compile(r"\[([^\[\]\n]*)\]\((?![a-z]+:)[^()\s]*\)")
# Every branch starts with a literal character, so the engine skips to the next `]`, `<`,
# `h` or `f` (`<?(?:https?|ftp)://...` cost three times as much).
_LINK = re.compile(r"\]\([^()\s]*\)|<https?://[^\s<>()]+>?|<ftp://[^\s<>()]+>?"
                   r"|https?://[^\s<>()]+>?|ftp://[^\s<>()]+>?")

Positions = dict[str, list[tuple[str, int]]]


def rerank(
    conn: sqlite3.Connection,
    words: list[str],
    rows: list[Row],
    bm25: dict[int, float],
    paths: list[str],
    stop_words: frozenset[str] = frozenset(),
    cosine: dict[int, float] | None = None,
    question: bool = False,
    df: dict[str, int] | None = None,
    total: int = 0,
) -> list[Hit]:
    """Rescored hits, best first (stale ones after every live one). With `cosine`, the text
    score is scaled to the best candidate's and `semantic.LAMBDA * cosine` added."""
    scored = [(row, combine(parts))
              for row, parts in features(conn, words, rows, stop_words, question, df, total)]
    if cosine is not None:
        best = max((score for _, score in scored), default=1.0) or 1.0
        scored = [(row, score / best + LAMBDA * cosine.get(row["rowid"], 0.0))
                  for row, score in scored]
    hits = [Hit(row, round(score * _adjustment(row, paths), 4)) for row, score in scored]
    hits.sort(key=lambda hit: hit.row["created"] or "", reverse=True)  # newest wins a tie
    hits.sort(key=lambda hit: (hit.stale, -hit.score))  # stable: keeps that order in ties
    return hits


def combine(parts: tuple[float, float, float]) -> float:
    """The text score from (bm25, coverage, proximity)."""
    bm25, coverage, proximity = parts
    return bm25 + COVERAGE * coverage + PROXIMITY * proximity


def features(
    conn: sqlite3.Connection, words: list[str], rows: list[Row],
    stop_words: frozenset[str] = frozenset(),
    question: bool = False,
    df: dict[str, int] | None = None,
    total: int = 0,
) -> list[tuple[Row, tuple[float, float, float]]]:
    """Each candidate with its (bm25, coverage, proximity).

    BM25 counts every query word (a keyword query's stop words carry meaning: "who am
    i"), except in a question, where "how do I", "why does" and the like are the asking,
    not the subject, and only add noise (their IDF never falls near zero).
    """
    if not rows:
        return []
    make_scratch(conn)
    stems, stop, source = _query_stems(conn, words, stop_words)
    if df is None:
        total = conn.execute("SELECT max(rowid) FROM records").fetchone()[0] or 1
        df = doc_freqs(conn, words, total)
    idf = _idf(stems, source, df, total)
    content = [s for s in stems if s in idf and s not in stop]
    weight = {s: QUESTION_STOP if question and content and s in stop else 1.0 for s in idf}
    pairs = list(zip(content, content[1:]))
    found, lengths = _positions(conn, rows, list(idf))
    average = sum(lengths.values()) / len(lengths) if lengths else 1.0
    info = sum(idf[s] for s in content) or 1.0
    out = []
    for row in rows:
        where = found.get(row["rowid"], {})
        norm = K1 * (1 - B + B * lengths.get(row["rowid"], 0) / (average or 1.0))
        score = 0.0
        for stem, places in where.items():
            if not weight[stem]:
                continue
            tf = _tf(places)
            score += weight[stem] * idf[stem] * tf * (K1 + 1) / (tf + norm)
        coverage = sum(idf[s] for s in content if s in where) / info
        out.append((row, (score, coverage, _proximity(where, pairs))))
    return out


def _tf(places: list[tuple[str, int]]) -> float:
    """A token's weighted count in an entry: extra in the lead, less in code and link
    text. Every weight is a multiple of 1/4, so the sum is exact in any order."""
    tf = 0.0
    for col, offset in places:
        if col == "body":
            tf += _BODY_LEAD if offset < LEAD_WORDS else 1.0
        elif col == "head":
            tf += _HEAD_LEAD if offset < HEAD_WORDS else 1.0
        elif col == "code":
            tf += CODE
        elif col == "link":
            tf += ANCHOR
        else:
            tf += 1.0
    return tf


_HEAD_LEAD = 1 + LEAD + HEAD
_BODY_LEAD = 1 + LEAD


def _query_stems(
    conn: sqlite3.Connection, words: list[str], stop_words: frozenset[str]
) -> tuple[list[str], set[str], dict[str, str]]:
    """The index's tokens for the query words in query order, each once; the stop ones;
    and the query word each token came from (first)."""
    conn.execute("DELETE FROM temp.gm_q")
    conn.executemany("INSERT INTO temp.gm_q(rowid, x) VALUES (?, ?)", list(enumerate(words, 1)))
    out: list[str] = []
    stop: set[str] = set()
    source: dict[str, str] = {}
    for doc, term in tuples(conn).execute("SELECT doc, term FROM temp.gm_qv ORDER BY doc, offset"):
        if term not in out:
            out.append(term)
            source[term] = words[doc - 1]
            if words[doc - 1] in stop_words:
                stop.add(term)
    return out, stop, source


def _idf(stems: list[str], source: dict[str, str], df: dict[str, int],
         total: int) -> dict[str, float]:
    """IDF of each query token the index holds, by its query word's document frequency
    (fts5vocab would count every posting of a common word: 450,000 for `use` at 1M)."""
    out = {}
    for s in stems:
        count = df.get(source[s], 0)
        if count:
            out[s] = math.log(1 + (total - count + 0.5) / (count + 0.5))
    return out


def _positions(
    conn: sqlite3.Connection, rows: list[Row], stems: list[str]
) -> tuple[dict[int, Positions], dict[int, int]]:
    """For each candidate: where each query token occurs, as (column, offset); and its length."""
    marks = ",".join("?" * len(rows))
    docs = []
    # The FTS row already holds the search text (identifier parts, CJK pairs appended).
    # Read from its content table itself: the same values, without FTS5's virtual-table
    # cursor per rowid (about 40% less time than `FROM fts WHERE rowid IN`).
    for rowid, content, tags, kind, anchors in tuples(conn).execute(
        f"SELECT id, c0, c1, c2, c3 FROM fts_content WHERE id IN ({marks})",
        [row["rowid"] for row in rows],
    ):
        head, body, code, link = _parts(content)
        docs.append((rowid, head, body, f"{tags} {kind} {anchors}", code, link))
    conn.execute("BEGIN")  # one transaction: FTS5 flushes its buffer once
    try:
        conn.execute("INSERT INTO temp.gm_c(gm_c) VALUES ('delete-all')")
        conn.executemany("INSERT INTO temp.gm_c(rowid, head, body, meta, code, link) VALUES (?,?,?,?,?,?)", docs)
    finally:
        conn.execute("COMMIT")
    # Lengths in the index tokenizer's own tokens, which FTS5 counted while inserting.
    lengths: dict[int, int] = {}
    for rowid, sizes in tuples(conn).execute("SELECT id, sz FROM temp.gm_c_docsize"):
        n_head, n_body, n_meta, n_code, n_link = _varints(sizes)
        lengths[rowid] = round(n_head + n_body + n_meta + CODE * n_code + ANCHOR * n_link)
    found: dict[int, Positions] = {}
    # One lookup per token: fts5vocab answers `term = ?` from the token's own postings,
    # while `term IN (...)` cost half as much again. Tokens in sorted order, as the IN
    # gave them: the rescoring adds each entry's tokens in this order, and floating-point
    # sums must come out the same to the last bit.
    cursor = tuples(conn)
    for stem in sorted(stems):
        for term, doc, col, offset in cursor.execute(
            "SELECT term, doc, col, offset FROM temp.gm_cv WHERE term = ?", (stem,)
        ):
            per = found.get(doc)
            if per is None:
                per = found[doc] = {}
            places = per.get(term)
            if places is None:
                places = per[term] = []
            places.append((col, offset))
    return found, lengths


def _varints(blob: bytes) -> list[int]:
    """The column sizes of an FTS5 docsize row (SQLite varints, 7 bits a byte)."""
    out = []
    value = 0
    for byte in blob:
        value = (value << 7) | (byte & 0x7F)
        if byte < 0x80:
            out.append(value)
            value = 0
    return out


def _parts(content: str) -> tuple[str, str, str, str]:
    """(first line, rest of the prose, fenced code, relative link text), link targets dropped."""
    head, _, body = content.strip().partition("\n")
    code = link = ""
    if "```" in body:  # cheap tests first: recall counts milliseconds
        pieces = body.split("```")  # prose, code, prose, ... (a regex here costs ~1 ms a query)
        body, code = "\n".join(pieces[0::2]), "\n".join(pieces[1::2])
    if "](" in body:
        link = "\n".join(_ANCHOR.findall(body))
        body = _ANCHOR.sub(" ", body)
    if "](" in head or "://" in head:
        head = _LINK.sub("] ", head)
    if "](" in body or "://" in body:
        body = _LINK.sub("] ", body)
    return head, body, code, link


def _proximity(where: Positions, pairs: list[tuple[str, str]]) -> float:
    """Share of neighbouring query tokens found near each other, in order (half credit reversed)."""
    if not pairs:
        return 0.0
    credit = 0.0
    for a, b in pairs:
        first, second = where.get(a), where.get(b)
        if not first or not second:
            continue
        best = 0.0
        for col_a, off_a in first:
            for col_b, off_b in second:
                if col_a != col_b:
                    continue
                gap = off_b - off_a
                if 0 < gap <= NEAR:
                    best = 1.0
                    break
                if -NEAR < gap < 0:
                    best = max(best, 0.5)
            if best == 1.0:
                break
        credit += best
    return credit / len(pairs)


def _adjustment(row: Row, paths: list[str]) -> float:
    """Multipliers that move an entry a little: path boost, doubts, confidence."""
    factor = 1.0
    if paths and _anchored_under(row["anchors"], paths):
        factor *= PATH_BOOST
    state: dict[str, Any] = json.loads(row["state"]) if row["state"] else {}
    contradictions = int(state.get("contradictions") or 0)
    if contradictions > 0:
        factor *= CONTRADICTED ** min(contradictions, 3)
    if row["status"] == "needs_review":
        factor *= NEEDS_REVIEW
    factor *= 1 + CONFIDENCE_TIE * (float(row["confidence"] or 0.6) - 0.6)
    return factor


def _anchored_under(anchors: str, paths: list[str]) -> bool:
    for anchor in anchors.split():
        for path in paths:
            if anchor == path or anchor.startswith(path + "/"):
                return True
    return False


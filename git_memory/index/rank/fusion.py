"""Keyword hits and hits by meaning, fused into one ranking (docs/recall.md).

Candidates are the keyword stage's best (after rerank) and the vector stage's nearest; each
signal is min-max normalised over them and the two mixed linearly, leaning on meaning for a
question. Tuned on til and faq-public only (bench/fusion_lab.py, docs/benchmarks.md): linear
fusion beat reciprocal-rank fusion by 0.02-0.03 MRR@10, and only "is it a question?" moved
the best weight (identifiers wanted the same weight as plain keyword queries).
"""

from __future__ import annotations

from collections.abc import Callable

from git_memory.index.rank.hits import Hit
from git_memory.index.schema import Row

QUESTION_WEIGHT = 0.8  # share of meaning in the score of a question
OTHER_WEIGHT = 0.6     # and of any other query
# A hit found by meaning alone must be this close: every entry has *some* cosine, and an
# unrelated one (all-MiniLM-L6-v2: ~0.0-0.15) is no answer ("no entries found" is one).
MIN_COSINE = 0.2


def _spread(values: dict[int, float]) -> dict[int, float]:
    """Min-max to [0, 1]; all equal -> all 1 (one candidate is the best one)."""
    if not values:
        return {}
    low, high = min(values.values()), max(values.values())
    span = high - low
    return {k: (v - low) / span if span > 0 else 1.0 for k, v in values.items()}


def fuse(keyword: list[Hit], meaning: list[tuple[Row, float]],
         cosine_of: Callable[[str | None], float | None], question: bool,
         explain: dict[int, dict[str, float]] | None = None) -> list[Hit]:
    """One ranking of the union, best first (stale entries after live ones, as rerank).
    `explain`, when given, receives each rowid's signals."""
    weight = QUESTION_WEIGHT if question else OTHER_WEIGHT
    rows: dict[int, Row] = {hit.row["rowid"]: hit.row for hit in keyword}
    for row, cosine in meaning:
        if cosine >= MIN_COSINE:
            rows.setdefault(row["rowid"], row)
    text = _spread({hit.row["rowid"]: hit.score for hit in keyword})
    raw_cos = {rowid: cosine_of(row["hash"]) for rowid, row in rows.items()}
    cos = _spread({rowid: c for rowid, c in raw_cos.items() if c is not None})
    hits = []
    for rowid, row in rows.items():
        score = weight * cos.get(rowid, 0.0) + (1 - weight) * text.get(rowid, 0.0)
        hits.append(Hit(row, round(score, 4)))
        if explain is not None:
            explain[rowid] = {"keyword": text.get(rowid, 0.0), "cosine": raw_cos[rowid] or 0.0,
                              "meaning_weight": weight, "fused": score}
    hits.sort(key=lambda hit: hit.row["created"] or "", reverse=True)  # newest wins a tie
    hits.sort(key=lambda hit: (hit.stale, -hit.score))
    return hits

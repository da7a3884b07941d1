"""Common words do not widen recall's candidate match (issue #20 point 6, issue #14's latency).

Stage one (index.search) lets FTS5 rank every row an OR of the query's words matches,
so one common word (the `use` an identifier split adds to `useEffect`) made a query
cost as much as SQLite's own scan of most of the index. Now, past CAP matched rows,
it starts from the rarest words and common words only add to what those found.
These tests build a real index (rank_eval.build: the product's schema and row writer)
with CAP lowered so that a few hundred entries show what a million would.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
TARGET = "React useEffect cleanup: return a function from the effect to clear the timer."


def _corpus() -> list[dict[str, str]]:
    items = [{"id": "target", "query": "", "doc": TARGET}]
    for i in range(150):  # `use` in over a third of the entries, as `use` is in a 1M corpus
        items.append({"id": f"use{i}", "query": "", "doc": f"Use the pager to use less paper, note {i}."})
    for i in range(40):
        items.append({"id": f"react{i}", "query": "", "doc": f"React renders component tree number {i}."})
    for i in range(5):
        items.append({"id": f"hook{i}", "query": "", "doc": f"The useEffect hook runs after render, case {i}."})
    for i in range(3):
        items.append({"id": f"clean{i}", "query": "", "doc": f"Cron cleanup of old logs, job {i}."})
    for i in range(200):
        items.append({"id": f"filler{i}", "query": "", "doc": f"Postgres vacuum settings, item {i}."})
    return items


def _build(items: list[dict[str, str]], folder: Path):  # type: ignore[no-untyped-def]
    sys.path.insert(0, str(ROOT / "bench"))
    try:
        import rank_eval
    finally:
        sys.path.remove(str(ROOT / "bench"))
    return rank_eval.build(items, folder)


def _candidates(index, query: str) -> list[str]:  # type: ignore[no-untyped-def]
    from git_memory.index.entries import filters
    from git_memory.index.rank.search import _candidates as candidates
    from git_memory.index.rank.tokens import query_words

    where, params = filters([], [], False, None)
    rows, _ = candidates(index.conn, query_words(query), where, params, False, 50)
    return [row["key"] for row in rows]


def _top(index, query: str, limit: int = 5) -> list[str]:  # type: ignore[no-untyped-def]
    from git_memory.index.rank import search

    return [hit.row["key"] for hit in search.search(index, query, limit=limit)]


def test_common_identifier_part_does_not_widen_the_match(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from git_memory.index.rank import search

    index = _build(_corpus(), tmp_path)
    try:
        exact = _top(index, "react useEffect cleanup")  # CAP 1000: every match ranked
        wide = _candidates(index, "react useEffect cleanup")
        monkeypatch.setattr(search, "CAP", 20)
        found = _candidates(index, "react useEffect cleanup")
        bounded = _top(index, "react useEffect cleanup")
    finally:
        index.close()
    assert any(key.startswith("use") for key in wide)  # the old, widened match
    # Bounded: only entries holding a rare word (cleanup, useEffect, effect) are candidates;
    # none of the 150 entries that hold only `use`, nor the React-only ones.
    assert found and not [k for k in found if k.startswith(("use", "react", "filler"))]
    assert {"target", "clean0", "hook0"} <= set(found)
    assert bounded[0] == "target" and exact[0] == "target"
    assert bounded[:3] == exact[:3]


def test_word_in_half_the_entries_is_left_out_of_stage_one(tmp_path: Path) -> None:
    items = [{"id": f"v{i}", "query": "", "doc": f"Variant {i} of a note about postgres."}
             for i in range(1200)]  # past CAP: a small memory keeps every word (cheap there)
    items += [{"id": f"t{i}", "query": "", "doc": f"Timezone variant {i}: set it per session."}
              for i in range(4)]
    index = _build(items, tmp_path)
    try:
        found = _candidates(index, "variant timezone")
        alone = _candidates(index, "variant")
    finally:
        index.close()
    # FTS5's BM25 gives `variant` (in every entry) no weight; counting its postings was
    # the cost. The match is the timezone entries; `variant` alone still finds entries.
    assert sorted(found) == ["t0", "t1", "t2", "t3"]
    assert len(alone) == 50


def test_document_frequencies_exact_then_estimated(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from git_memory.index.rank import hits

    items = [{"id": f"n{i}", "query": "",
              "doc": " ".join(["note", str(i)] + ["alpha"] * (i % 2 == 0) + ["beta"] * (i % 10 == 0)
                              + ["gamma"] * (i < 3))}
             for i in range(400)]
    index = _build(items, tmp_path)
    try:
        total = index.conn.execute("SELECT max(rowid) FROM records").fetchone()[0]
        exact = hits.doc_freqs(index.conn, ["alpha", "beta", "gamma", "nowhere"], total)
        monkeypatch.setattr(hits, "EXACT", 30)
        monkeypatch.setattr(hits, "WINDOW", 100)
        estimated = hits.doc_freqs(index.conn, ["alpha", "beta", "gamma"], total)
    finally:
        index.close()
    assert exact == {"alpha": 200, "beta": 40, "gamma": 3, "nowhere": 0}
    assert estimated["gamma"] == 3  # up to EXACT: counted
    # Over EXACT: scaled from the share of the rowids its first 31 entries span (evenly
    # spread here, so close to the truth).
    assert 190 <= estimated["alpha"] <= 210 and 36 <= estimated["beta"] <= 44


def test_rare_first_keeps_the_ranking_when_a_rare_word_decides(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from git_memory.index.rank import search

    index = _build(_corpus(), tmp_path)
    queries = ["postgres vacuum cleanup", "react component useEffect", "use pager paper cron"]
    try:
        exact = [_top(index, q, 3) for q in queries]
        monkeypatch.setattr(search, "CAP", 20)
        bounded = [_top(index, q, 3) for q in queries]
    finally:
        index.close()
    assert all(exact)
    assert [b[0] for b in bounded] == [e[0] for e in exact]


def test_a_small_memory_keeps_a_word_in_half_its_entries(tmp_path: Path) -> None:
    """In a memory of two entries every word is in half of them: leaving such words out
    found only the entry of the other word (`pnpm OR make` missed the make entry)."""
    items = [{"id": "a", "query": "", "doc": "x builds with make dist"},
             {"id": "b", "query": "", "doc": "use pnpm, not npm"}]
    index = _build(items, tmp_path)
    try:
        assert sorted(_candidates(index, "pnpm make")) == ["a", "b"]
    finally:
        index.close()

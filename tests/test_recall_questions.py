"""Questions are ranked as questions: a guard on a question-to-answer set (faq-public).

The til guard (test_recall_quality.py) holds keyword-like titles; this one holds the
other way people ask: whole questions ("How do I delete all blank lines in a file?")
whose answer uses other words. The set is tests/data/faq-public (developer FAQs from
Debian's documentation packages, licenses beside it): every answer is an entry, a fixed
sample of the questions is asked in-process through the product's own search. The
floors sit just under today's figures and above what the ranking scores without the
question handling, so removing it fails here.
"""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
FAQ = ROOT / "tests" / "data" / "faq-public" / "faq.jsonl"
SAMPLE = 200


def faq_items() -> list[dict[str, str]]:
    return [json.loads(line) for line in FAQ.open(encoding="utf-8") if line.strip()]


def build(items: list[dict[str, str]], folder: Path, semantic: bool = False):  # type: ignore[no-untyped-def]
    import sys

    sys.path.insert(0, str(ROOT / "bench"))
    try:
        import rank_eval
    finally:
        sys.path.remove(str(ROOT / "bench"))
    return rank_eval.build(items, folder, semantic)


def mrr(index, queries: list[dict[str, str]]) -> float:  # type: ignore[no-untyped-def]
    from git_memory.index.rank import search

    total = 0.0
    for item in queries:
        keys = [h.row["key"] for h in search.search(index, item["query"], limit=10)]
        total += 1 / (keys.index(item["id"]) + 1) if item["id"] in keys else 0.0
    return total / len(queries)


def test_questions_detected() -> None:
    from git_memory.index.rank.tokens import is_question

    assert is_question("How do I delete all blank lines in a file?")
    assert is_question("does the hook run on rebase")
    assert is_question("When I press CTRL-Y, it acts like CTRL-R. Why?")
    assert not is_question("redirect uri oauth")
    assert not is_question("Get The Name Of The Current Branch")


@pytest.mark.slow  # every FAQ question set indexed and asked: a scale test
def test_faq_questions_mrr_holds(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from git_memory.index.rank import rerank

    items = faq_items()
    queries = random.Random(17).sample(items, SAMPLE)
    index = build(items, tmp_path)
    try:
        shipped = mrr(index, queries)
        monkeypatch.setattr(rerank, "QUESTION_STOP", 1.0)  # question words scored like any
        plain = mrr(index, queries)
    finally:
        index.close()
    # Today (semantic off): 0.7991; with the question words scored as any: 0.7457.
    assert shipped >= 0.795, f"MRR@10 {shipped:.4f}"
    assert shipped > plain + 0.02, (shipped, plain)


@pytest.mark.slow  # every FAQ question set, embedded and asked: a scale test
def test_faq_semantic_fusion_holds(tmp_path: Path) -> None:
    from git_memory.index.rank import semantic

    # the [semantic] extra is in [test]: without it this is a broken install, not a skip
    assert semantic.model_dir() is not None, "the [semantic] extra is not installed"
    items = faq_items()
    queries = random.Random(17).sample(items, SAMPLE)
    index = build(items, tmp_path, semantic=True)
    try:
        fused = mrr(index, queries)
    finally:
        index.close()
    # Today: 0.8087 with semantic on, 0.7991 off (the test above): the fusion must pay.
    assert fused >= 0.806, f"MRR@10 {fused:.4f}"

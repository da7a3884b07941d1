"""Near duplicates at any size: common terms do not blind the search, its work is bounded.

The search used to skip every term shared by more than 64 entries, so once a memory
held that many copies of a note's words it proposed nothing for them. Here a few notes
come 70 times each (their every word shared by 70 entries) with one reworded copy each
(tests/reword.py), among a thousand ordinary entries: every reworded copy must be
proposed with its note. The bounds (distinct sets kept, exact checks) are tested on the
search itself, in process.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from conftest import DATA, err, out
from corpus import corpus_entries
from reword import reword

from git_memory.curation import candidates, near

NOTES = [json.loads(line) for line in (DATA / "til-jbranchaud" / "notes.jsonl").open()]
COPIES = 70  # more than the old MAX_POSTING (64)
PICKED = [1000 + 70 * n for n in range(12)]  # notes the ordinary entries do not use


def _text(note: dict) -> str:
    return f"{note['title']}: {' '.join(note['body'].split())[:320]}"


def _rows() -> list[dict]:
    rows = corpus_entries(1000)
    for n, number in enumerate(PICKED):
        text = _text(NOTES[number])
        for copy in range(COPIES):
            rows.append({"key": f"common-{n}-{copy}", "type": "fact",
                         "content": f"{text} (copy {copy})", "tags": ["common"],
                         "created": f"2026-05-{1 + copy % 28:02d}T{n:02d}:00:00Z"})
        rows.append({"key": f"reworded-{n}", "type": "learned", "content": reword(text, n),
                     "tags": ["reworded"], "created": "2026-07-01T00:00:00Z"})
    return rows


@pytest.fixture
def crowded(git_repo: Path, gm, tmp_path: Path) -> Path:  # type: ignore[no-untyped-def]
    source = tmp_path / "crowded.jsonl"
    source.write_text("".join(json.dumps(r) + "\n" for r in _rows()), encoding="utf-8")
    result = gm("import", "--format", "jsonl", str(source))
    assert result.returncode == 0, err(result)
    return git_repo


def test_reworded_copies_are_found_when_every_word_is_common(crowded: Path, gm) -> None:  # type: ignore[no-untyped-def]
    keys = {e["key"]: e["id"] for e in json.loads(out(gm("list", "--json", "--all")))}
    proposal = json.loads(out(gm("curate", "--dry-run", "--json")))
    change_of = {eid: n for n, c in enumerate(proposal["changes"]) for eid in c["ids"]}
    for n in range(len(PICKED)):
        reworded = keys[f"reworded-{n}"]
        copies = {keys[f"common-{n}-{c}"] for c in range(COPIES)}
        assert reworded in change_of, f"reworded copy {n} was not proposed"
        group = proposal["changes"][change_of[reworded]]
        assert group["action"] == "near_duplicate"
        assert copies <= set(group["ids"])  # its note's 70 copies are in the same change
        assert 0.6 <= group["score"] <= 1.0
    search = proposal["search"]
    assert search["entries_examined"] == 1000 + len(PICKED) * (COPIES + 1)
    assert search["stopped_early"] == []
    text = out(gm("curate", "--dry-run")).splitlines()
    assert text[0].startswith(f"proposal {proposal['proposal']} ")  # deterministic
    assert text[1].startswith("near-duplicate search: 1852 entries examined")
    assert text[1].endswith("; complete")


def _search(texts: list[str]) -> near.NearSearch:
    finder = near.NearSearch(stem=candidates._stem_of_bytes)
    finder.read((n + 1, t.encode()) for n, t in enumerate(texts))
    return finder


def _texts() -> list[str]:
    notes = [_text(n) for n in NOTES[:300]]
    return notes + [reword(t, n) for n, t in enumerate(notes)]


def test_the_search_is_deterministic_and_finds_the_pairs() -> None:
    first = [(list(g.rowids), g.score) for g in _search(_texts()).groups()]
    second = [(list(g.rowids), g.score) for g in _search(_texts()).groups()]
    assert first == second
    paired = {tuple(rowids) for rowids, _ in first}
    found = sum(1 for n in range(1, 301) if any(n in p and n + 300 in p for p in paired))
    assert found >= 290  # note n and its rewording n + 300


def test_a_bound_on_distinct_sets_is_reported(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(near, "MAX_SETS", 100)
    finder = _search(_texts())
    finder.groups()
    report = finder.report
    assert report.term_sets == 100 and report.unexamined > 0
    assert any("distinct term sets" in why for why in report.stopped_early)
    assert report.as_dict()["entries_not_compared"] == report.unexamined


def test_a_bound_on_exact_checks_stops_the_search_and_says_so(
    monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(near, "MAX_CHECKS", 10)
    finder = _search(_texts())
    groups = finder.groups()
    assert finder.report.pairs_checked == 10
    assert finder.report.stopped_early == ["stopped after 10 exact pair checks"]
    assert len(groups) <= 10

"""Everyday polish: unquoted words, -n, plurals, a pager, colour and width on a terminal."""

from __future__ import annotations

import json
from pathlib import Path

from conftest import err, out


def test_add_takes_unquoted_words(git_repo: Path, gm) -> None:
    result = gm("add", "LEARNED:", "pip", "caches", "wheels", "--tag", "pip")
    assert result.returncode == 0, err(result)
    (entry,) = json.loads(out(gm("list", "--json")))
    assert entry["type"] == "learned" and entry["content"] == "pip caches wheels"
    assert entry["tags"] == ["pip"]
    again = gm("add", "LEARNED: pip caches wheels")  # quoted: the same entry
    assert "already known" in err(again)
    assert gm("add").returncode == 2  # no words at all is a usage error


def test_list_and_log_take_n(git_repo: Path, gm) -> None:
    for word in ("one", "two", "three"):
        assert gm("add", "FACT:", word).returncode == 0
    for flag in ("-n", "--limit"):
        listed = out(gm("list", flag, "2")).splitlines()
        assert len(listed) == 2 and "three" in listed[0] and "two" in listed[1]
        assert len(out(gm("log", flag, "2")).splitlines()) == 2


def test_counts_agree_with_their_nouns(git_repo: Path, gm, tmp_path: Path) -> None:
    assert gm("add", "FACT: the only one").returncode == 0
    assert "(+1 record)" in out(gm("log"))
    assert "indexed 1 entry (1 record)" in out(gm("reindex"))
    doctor = out(gm("doctor"))
    assert "(1 entry," in doctor
    rows = tmp_path / "rows.jsonl"
    rows.write_text(json.dumps({"type": "fact", "content": "the only one"}) + "\n")
    assert "skipped 1 duplicate," in out(gm("import", str(rows)))
    assert "1 entry" in out(gm("recall", "--stats"))

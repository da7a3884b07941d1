"""A damaged index is rebuilt, not reported as a crash (issue #12), and doctor compares
the index with the branch."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest

from conftest import err, out

INDEX = Path(".git") / "git-memory" / "index.sqlite"
COUNT = 300


@pytest.fixture
def many(shared_repo, gm) -> Path:
    def fill(repo: Path) -> None:
        lines = [json.dumps({"type": "fact", "content": f"fact number {i} about the zebra service"})
                 for i in range(COUNT)]
        lines.append(json.dumps({"type": "learned", "content": "the unicorn cache expires hourly"}))
        source = repo.parent / "many.jsonl"
        source.write_text("\n".join(lines) + "\n", encoding="utf-8")
        assert gm("import", str(source)).returncode == 0

    repo = shared_repo("integrity-index-many", fill)
    assert len(json.loads(out(gm("list", "--json", "--limit", "1000")))) == COUNT + 1
    return repo


def _damage(path: Path, how: str) -> None:
    data = bytearray(path.read_bytes())
    if how == "truncate":
        path.write_bytes(bytes(data[: len(data) // 2]))
    elif how == "middle pages":
        # The middle half of the pages that hold the entries' rows and their indexes,
        # found with dbstat: the file's own middle moves with every table or index added
        # (and with the semantic tables' size), and may miss the rows altogether.
        conn = sqlite3.connect(path)
        pages = sorted(p for (p,) in conn.execute(
            "SELECT pageno FROM dbstat WHERE name = 'records' OR name LIKE 'records_%'"))
        conn.close()
        for page in pages[len(pages) // 4: 3 * len(pages) // 4]:
            data[(page - 1) * 4096: page * 4096] = b"\xa5" * 4096
        path.write_bytes(bytes(data))


@pytest.mark.parametrize("how", ["truncate", "middle pages"])
@pytest.mark.parametrize("command", ["list", "recall", "doctor"])
def test_damage_is_rebuilt_with_a_note_and_the_right_answer(many: Path, gm, how, command) -> None:
    _damage(many / INDEX, how)
    if command == "list":
        result = gm("list", "--json", "--limit", "1000")
        assert result.returncode == 0, err(result)
        assert len(json.loads(out(result))) == COUNT + 1
    elif command == "recall":
        result = gm("recall", "--json", "unicorn cache")
        assert result.returncode == 0, err(result)
        assert json.loads(out(result))[0]["content"] == "the unicorn cache expires hourly"
    else:
        result = gm("doctor", "--json")
        assert result.returncode == 0, err(result)
        assert json.loads(out(result))["index"]["entries"] == COUNT + 1
    # A command that never read a damaged page has nothing to say; one that did says so once.
    lines = err(result).splitlines()
    assert lines == [] or (len(lines) == 1 and lines[0].startswith("note: the local index was damaged"))
    noted = len(lines)
    for _ in range(2):
        again = gm("list", "--json", "--limit", "1000")
        assert again.returncode == 0 and len(json.loads(out(again))) == COUNT + 1
        noted += len(err(again).splitlines())
    assert noted == 1 or (how == "middle pages" and noted == 0 and command != "list")


def test_doctor_finds_deleted_rows_and_rebuilds(many: Path, gm) -> None:
    conn = sqlite3.connect(many / INDEX)
    conn.execute("DELETE FROM records WHERE rowid IN (SELECT rowid FROM records LIMIT 100)")
    conn.commit()
    conn.close()
    result = gm("doctor")
    assert result.returncode == 1, err(result)  # a problem found (and repaired)
    text = out(result)
    assert f"index differs from the branch: {COUNT + 1} record files on the branch," \
           f" {COUNT + 1 - 100} in the index" in text
    assert "; rebuilt it" in text and "1 problem found" in text
    assert len(json.loads(out(gm("list", "--json", "--limit", "1000")))) == COUNT + 1
    report = json.loads(out(gm("doctor", "--json")))
    assert report["index"]["matches_branch"] is True

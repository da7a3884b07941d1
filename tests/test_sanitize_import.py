"""Point 4 of the hooks issue: importing a real, messy Lavra log cuts exactly the debris
its author later removed by hand, loses nothing else, and logs every cut."""

from __future__ import annotations

import json
import re
from pathlib import Path

from conftest import DATA as TEST_DATA, out
from hooks_support import audit_items

from git_memory.sanitize.pipeline import clean

DATA = TEST_DATA / "lavra-knowledge"
RAW = DATA / "syslog-mcp.raw.knowledge.jsonl"
CLEANED = DATA / "syslog-mcp.cleaned.knowledge.jsonl"


def _load(path: Path) -> list[dict]:
    items = []
    for line in path.read_text(encoding="utf-8").splitlines():
        value = json.loads(line)
        items.append(json.loads(value) if isinstance(value, str) else value)
    return items


def _squash(text: str) -> str:
    """Compare without whitespace: the author joined lines at a cut, we keep the line break."""
    return re.sub(r"\s+", "", text)


def test_import_of_the_raw_log_matches_the_hand_cleaned_one(git_repo: Path, gm) -> None:
    raw, cleaned = _load(RAW), _load(CLEANED)
    assert len(raw) == len(cleaned) == 68
    result = gm("import", "--format", "lavra", str(RAW), "--json")
    assert result.returncode == 0, result.stderr
    assert json.loads(out(result))["imported"] == 68
    stored = {e["key"]: e["content"] for e in json.loads(out(gm("list", "--json")))}
    assert len(stored) == 68
    same_as_hand = byte_for_byte = 0
    for before, after in zip(raw, cleaned):
        ours = stored[before["key"]]
        assert "2>&1" not in ours and "| tail" not in ours
        # Nothing legitimate lost: ours equals the hand-cleaned text run through the same
        # sanitizer (which also cuts the one tail the author missed, in line 6).
        assert _squash(ours) == _squash(clean(after["content"])[0]), before["key"]
        same_as_hand += _squash(ours) == _squash(after["content"])
        byte_for_byte += ours == after["content"]
        if "2>&1" not in before["content"]:
            assert ours == clean(before["content"])[0] == after["content"].strip()
    assert same_as_hand == 67  # the 68th still holds debris in the hand-cleaned file
    assert byte_for_byte == 65  # two more differ only where the author joined lines at a cut
    assert "2>&1" in cleaned[5]["content"] and "2>&1" not in stored[raw[5]["key"]]


def test_every_cut_is_in_the_audit_log(git_repo: Path, gm) -> None:
    assert gm("import", "--format", "lavra", str(RAW)).returncode == 0
    cuts = [a for a in audit_items(git_repo) if a["rule"] == "shell-debris"]
    expected = []
    for number, item in enumerate(_load(RAW), 1):
        for line in item["content"].split("\n"):
            if re.search(r"[\"'] 2>&1", line):
                expected.append(f"line {number}")
    assert len(expected) == 37
    assert sorted(a["ref"] for a in cuts) == sorted(expected)
    assert all(a["source"] == "import" and a["action"] == "cut" and "2>&1" in a["detail"] for a in cuts)
    assert not [a for a in audit_items(git_repo) if a["rule"] not in ("shell-debris",)]

"""An import gives the same memory whichever way it runs: the same JSON lines, written in
this process or by worker processes, parsed here or by the workers (bulk_items.LineSource),
give one commit tree, the same tree the importer before those changes wrote (GOLDEN,
from main at 5c1809e), and report the same duplicates, rejections, redactions and cuts,
with the same audit lines."""

from __future__ import annotations

import functools
import json
from pathlib import Path
from typing import Any

import pytest

from conftest import git, make_repo
from git_memory.write import bulk_items, bulk
from git_memory.capture.jsonl import ParsedFile, iter_items
from git_memory.commands.import_ import _parse_line
from git_memory.store.locate import discover

SECRET = "ghp_" + "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8"
# The tree of the memory branch after importing _lines() with main's importer at 5c1809e
# (ids made from the line number, see _fixed_ids). It changes only when the record
# format, the sanitizer's output, the file names or the branch's seed files change.
GOLDEN = "673054638d5da031f58a6e5bc237c78a242245fd"


def _lines() -> bytes:
    rows: list[Any] = []
    for number in range(1, 1301):
        rows.append({"type": ["fact", "learned", "decision"][number % 3],
                     "content": f"note {number} about topic {number % 11}: use `tool --flag {number}`",
                     "tags": [f"t{number % 5}", "Import Tag"], "key": f"k-{number}",
                     "created": f"2026-0{1 + number % 9}-1{number % 10}T10:00:{number % 60:02d}Z"})
    rows[10] = {**rows[10], "content": "the token is " + SECRET}  # redacted, kept
    rows[11] = {**rows[11], "content": rows[5]["content"].upper() + " ", "key": None}  # same text
    rows[12] = {**rows[12], "key": "k-30"}  # same key as a later line: this one wins
    rows[13] = {**rows[13], "content": "zero\u200bwidth and \ufb01 ligature"}  # cleaned, NFKC
    rows[14] = {**rows[14], "origin": {"file": "notes.md", "line": 3}, "status": "canonical",
                "severity": "high", "extra": {"nested": [1, "two"]}}
    rows[15] = {**rows[15], "content": "long " * 3000}  # cut to the cap
    rows[16] = {**rows[16], "type": "nonsense"}  # not an entry
    rows[17] = {**rows[17], "content": "   "}  # no content
    rows[18] = {**rows[18], "tags": "comma,separated words"}
    text = [json.dumps(row) for row in rows]
    text[19] = "{not json"  # rejected with --skip-bad
    text[20] = ""  # blank
    text[21] = json.dumps(json.dumps(rows[21]))  # double-encoded
    return ("\n".join(text) + "\n").encode("utf-8")


def _fixed_ids(monkeypatch: pytest.MonkeyPatch) -> None:
    """Ids made from the entry's line, not the clock and chance (workers fork after this,
    so they make the same ones)."""
    prepare = bulk_items.prepare

    def fixed(item: Any, *args: Any, **kwargs: Any) -> Any:
        record = prepare(item, *args, **kwargs)
        record.id = "01JD" + item.label.split()[-1].rjust(22, "0")
        return record

    monkeypatch.setattr(bulk_items, "prepare", fixed)


def _import(repo: Path, how: str) -> tuple[str, dict[str, Any], str]:
    data = _lines().splitlines(keepends=True)
    parse = functools.partial(_parse_line, fmt="jsonl", skip_bad=True, markdown=False)
    source: Any
    if how.startswith("lines"):
        source = bulk_items.LineSource(iter(data), parse)
        rejected = source.rejected
    else:
        parsed = ParsedFile()
        source = iter_items(iter(data), "jsonl", True, parsed)
        rejected = parsed.rejected
    outcome = bulk.write_bulk(discover(repo), source, lambda n: f"memory: import {n}",
                                   redact_secrets=True, workers=2 if how.endswith("2") else 0)
    tree = git("rev-parse", "git-memory^{tree}", cwd=repo).strip()
    report = {"added": outcome.added, "duplicates": outcome.duplicates,
              "rejected": sorted(rejected + outcome.rejected), "redacted": outcome.redacted,
              "cut": outcome.cut}
    audit = (repo / ".git" / "git-memory" / "audit.jsonl").read_text(encoding="utf-8")
    return tree, report, "".join(sorted(json.dumps({k: v for k, v in json.loads(line).items()
                                                      if k not in ("ts", "time", "at")})
                                           for line in audit.splitlines()))


@pytest.mark.parametrize("how", ["items", "items-workers-2", "lines", "lines-workers-2"])
def test_the_same_lines_give_the_same_tree(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                          how: str) -> None:
    _fixed_ids(monkeypatch)
    repo = make_repo(tmp_path / "r")
    monkeypatch.chdir(repo)
    tree, report, audit = _import(repo, how)
    assert report["added"] == 1300 - 6  # the same text, the same key, bad JSON, blank, two non-entries
    assert [label for label, _ in report["duplicates"]] == ["line 12", "line 30"]
    assert [label for label, _ in report["rejected"]] == ["line 17", "line 18", "line 20"]
    assert report["redacted"] == ["line 11"] and report["cut"] == [("line 16", 8001)]
    assert SECRET not in audit and "invisible-characters" in audit
    assert tree == GOLDEN
    if how != "items":  # the reports and audit lines of the serial import, too
        reference = make_repo(tmp_path / "serial")
        monkeypatch.chdir(reference)
        assert _import(reference, "items") == (tree, report, audit)

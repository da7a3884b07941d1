"""A bulk import streams: its entries go from the file to one pack and one commit without
being held in memory, alone or prepared by several processes, with every guarantee of
`write_entries` (duplicates, secrets refused with their rule, redacted text refused, a
concurrent writer's entries not added twice, nothing written on a malformed line)."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Iterator

import pytest

from conftest import err, git, out, tip
from git_memory.store.locate import discover
from git_memory.write.bulk import write_bulk
from git_memory.write.append import NewEntry

SECRET = "ghp_" + "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8"


def _rows(count: int) -> list[dict[str, object]]:
    rows: list[dict[str, object]] = []
    for number in range(count):
        rows.append({"type": "fact", "content": f"bulk fact number {number} about topic {number % 7}",
                     "tags": [f"t{number % 3}"], "key": f"k-{number}"})
    rows[5] = {"type": "learned", "content": "bulk fact number 1 about topic 1"}  # same text
    rows[6] = {"type": "fact", "content": "another text", "key": "k-2"}  # same key
    rows[7] = {"type": "fact", "content": f"the token is {SECRET}"}  # a secret
    rows[8] = {"type": "nonsense", "content": "x"}  # not an entry
    rows[9] = {"type": "fact", "content": "zero\u200bwidth inside"}  # cleaned, logged
    return rows


def _items(rows: list[dict[str, object]]) -> list[NewEntry]:
    return [NewEntry(content=str(r["content"]), type=str(r["type"]), key=r.get("key"),  # type: ignore[arg-type]
                     tags=list(r.get("tags", [])), source="import", label=f"line {n}")  # type: ignore[call-overload]
            for n, r in enumerate(rows, 1) if r["type"] != "nonsense"]


def _branch_texts(repo: Path) -> list[str]:
    listed = json.loads(subprocess.run(["git", "memory", "list", "--json", "--limit", "100000"],
                                       cwd=repo, capture_output=True, check=True).stdout)
    return sorted(e["content"] for e in listed)


@pytest.mark.parametrize("workers", [0, 2])
def test_bulk_write_alone_or_in_workers_gives_the_same_memory(
    make_repo_pair: tuple[Path, Path], workers: int
) -> None:
    serial, other = make_repo_pair
    rows = _rows(1200)
    results = []
    for repo, count in ((serial, 0), (other, workers)):
        outcome = write_bulk(discover(repo), _items(rows), lambda n: f"memory: import {n}",
                             workers=count)
        results.append(outcome)
    one, two = results
    assert one.added == two.added == 1200 - 4  # not an entry, same text, same key, a secret
    assert [label for label, _ in two.duplicates] == ["line 6", "line 7"]
    assert [(label, "ghp" in reason or "secret" in reason) for label, reason in two.rejected] == \
        [("line 8", True)]
    assert [label for label, _ in one.duplicates] == [label for label, _ in two.duplicates]
    assert _branch_texts(serial) == _branch_texts(other)
    assert "zerowidth inside" in _branch_texts(other)
    for repo in (serial, other):
        audit = (repo / ".git" / "git-memory" / "audit.jsonl").read_text(encoding="utf-8")
        assert "invisible-characters" in audit and SECRET not in audit
        assert not list((repo / ".git" / "objects" / "pack").glob("tmp_*"))
        assert git("rev-list", "--count", "git-memory", cwd=repo).strip() == "1"


@pytest.fixture
def make_repo_pair(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[Path, Path]:
    from conftest import make_repo

    first, second = make_repo(tmp_path / "one"), make_repo(tmp_path / "two")
    monkeypatch.chdir(first)
    return first, second


def test_a_malformed_last_line_writes_nothing(git_repo: Path, gm) -> None:
    lines = [json.dumps({"type": "fact", "content": f"fine line {n}\u200b"}) for n in range(3000)]
    path = git_repo.parent / "bad.jsonl"
    path.write_text("\n".join(lines) + "\n{not json\n", encoding="utf-8")
    result = gm("import", str(path))
    assert result.returncode != 0
    assert err(result).startswith("error: line 3001: not valid JSON")
    assert tip(git_repo) is None  # no memory branch at all
    memory = git_repo / ".git" / "git-memory"
    assert not (memory / "audit.jsonl").exists()  # 3000 cleanings held, then dropped
    assert not list((git_repo / ".git" / "objects" / "pack").iterdir())  # no pack, no temp file
    # With --skip-bad the same file imports, logs, and reports the line.
    result = gm("import", "--skip-bad", "--json", str(path))
    assert result.returncode == 0, err(result)
    summary = json.loads(out(result))
    assert summary["imported"] == 3000 and summary["rejects"][0]["where"] == "line 3001"
    assert "invisible-characters" in (memory / "audit.jsonl").read_text(encoding="utf-8")


def test_a_concurrent_writer_is_not_added_twice(git_repo: Path) -> None:
    """Another process adds a text after the import's checks read the memory: the commit's
    recheck finds it in what landed and leaves the import's copy out."""

    def items() -> Iterator[NewEntry]:
        for number in range(600):
            if number == 300:
                subprocess.run(["git", "memory", "add", "--type", "fact", "written meanwhile"],
                               cwd=git_repo, check=True, capture_output=True)
            text = "written meanwhile" if number == 500 else f"streamed entry {number}"
            yield NewEntry(content=text, type="fact", source="import", label=f"line {number + 1}")

    outcome = write_bulk(discover(git_repo), items(), lambda n: f"memory: import {n}")
    assert outcome.added == 599
    assert [label for label, _ in outcome.duplicates] == ["line 501"]
    texts = _branch_texts(git_repo)
    assert texts.count("written meanwhile") == 1 and len(texts) == 600


@pytest.mark.slow
def test_memory_held_per_entry_is_a_few_hundred_bytes(tmp_path: Path) -> None:
    """What a bulk write holds grows by a few hundred bytes per entry (the compact staging),
    not by the entries, records or blobs: Python's own peak (tracemalloc) while writing
    5,000 and then 50,000 generated entries of about 500 characters each. (The index
    build that `import` runs afterwards is index.build's and measured in its own bench.)"""
    import tracemalloc

    from conftest import make_repo

    def items(count: int) -> Iterator[NewEntry]:
        for number in range(count):
            yield NewEntry(content=f"generated note {number}: " + "word " * 100, type="fact",
                           key=f"g-{number}", source="import", label=f"line {number + 1}")

    peaks = {}
    for count in (5000, 50000):
        repo = make_repo(tmp_path / f"r{count}")
        tracemalloc.start()
        outcome = write_bulk(discover(repo), items(count), lambda n: f"memory: import {n}")
        peaks[count] = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
        assert outcome.added == count
    per_entry = (peaks[50000] - peaks[5000]) / 45000
    # The importer before streaming held the file, every entry, record and blob: several
    # kilobytes an entry.
    assert per_entry < 600, (peaks, per_entry)


def test_workers_parsing_the_lines_stop_at_a_malformed_line(git_repo: Path) -> None:
    """The workers parse the lines (bulk_items.LineSource): a malformed line in the third
    task still stops the import with its line number, and nothing is written; the lines
    rejected before it are kept in order."""
    import functools

    from git_memory.write.bulk_items import LineSource
    from git_memory.commands.import_ import _parse_line
    from git_memory.errors import BadInput

    lines = [json.dumps({"type": "fact", "content": f"fine line {n}\u200b"}).encode() + b"\n"
             for n in range(1400)]
    lines[3] = b'{"type": "nonsense", "content": "x"}\n'
    lines[1300] = b"{not json\n"
    source = LineSource(iter(lines), functools.partial(_parse_line, fmt="jsonl", skip_bad=False,
                                                       markdown=True))
    with pytest.raises(BadInput, match=r"^line 1301: not valid JSON .*; for a Markdown file"):
        write_bulk(discover(git_repo), source, lambda n: f"memory: import {n}", workers=2)
    assert source.rejected == [("line 4", "unknown type 'nonsense'")]
    assert tip(git_repo) is None
    assert not (git_repo / ".git" / "git-memory" / "audit.jsonl").exists()
    assert not list((git_repo / ".git" / "objects" / "pack").iterdir())

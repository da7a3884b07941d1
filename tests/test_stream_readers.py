"""Streaming readers: `list`, `export`, `log` and `curate` write as they read.

The first line is flushed before the rest is written (so `| head -1` answers at once at
any size), a reader that closes the pipe early ends the command quietly with status 0,
and the output is the same bytes as before streaming (export stays lossless:
tests/test_export_roundtrip.py).
"""

from __future__ import annotations

import io
import json
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import err, out
from corpus import write_corpus

from git_memory.commands import export, list_
from git_memory.store.branch import RECORD_ROOTS, MemoryBranch
from git_memory.store.locate import discover


class Flushes(io.StringIO):
    """Standard output that remembers what had been written at each flush."""

    def __init__(self) -> None:
        super().__init__()
        self.seen: list[str] = []

    def flush(self) -> None:
        self.seen.append(self.getvalue())
        super().flush()


@pytest.fixture
def filled(shared_repo, gm) -> Path:  # type: ignore[no-untyped-def]
    """A memory of 1,200 corpus entries: more than a pipe buffer of `list` output."""

    def fill(repo: Path) -> None:
        source = write_corpus(repo.parent / "c.jsonl", 1200)
        assert gm("import", "--format", "jsonl", str(source)).returncode == 0

    return shared_repo("stream-readers-filled", fill)


def _capture(monkeypatch: pytest.MonkeyPatch) -> Flushes:
    sink = Flushes()
    monkeypatch.setattr(sys, "stdout", sink)
    return sink


def test_list_flushes_its_first_line_before_writing_the_rest(
    filled: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    sink = _capture(monkeypatch)
    assert list_.run(types=(), tags=(), include_all=False, limit=None, as_json=False) == 0
    lines = sink.getvalue().splitlines()
    assert len(lines) == 1200
    assert sink.seen, "nothing was flushed while the command ran"
    assert sink.seen[0] == lines[0] + "\n"  # flushed with one line written, not 1,200


def test_list_json_streams_the_same_bytes_as_one_json_dump(
    filled: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    sink = _capture(monkeypatch)
    assert list_.run(types=(), tags=(), include_all=False, limit=None, as_json=True) == 0
    text = sink.getvalue()
    entries = json.loads(text)
    assert len(entries) == 1200
    assert text == json.dumps(entries, ensure_ascii=False, indent=2) + "\n"
    assert sink.seen[0].count('"id"') == 1  # the first item went out on its own


def test_export_jsonl_flushes_its_header_first(
    filled: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    sink = _capture(monkeypatch)
    assert export.run(None, fmt="jsonl") == 0
    lines = sink.getvalue().splitlines()
    assert json.loads(lines[0])["records"] == len(lines) - 1 == 1200
    assert sink.seen[0] == lines[0] + "\n"


def test_an_empty_list_still_says_how_to_add(git_repo: Path, gm) -> None:  # type: ignore[no-untyped-def]
    assert gm("add", "LEARNED: one entry so the branch exists").returncode == 0
    assert out(gm("list", "--json", "--type", "decision")) == "[]\n"
    shown = out(gm("list", "--type", "decision"))
    assert shown.startswith("no entries yet")


@pytest.mark.parametrize("args", [("list",), ("list", "--json"), ("export", "--format", "jsonl")])
def test_a_reader_closing_the_pipe_ends_the_command_quietly(
    filled: Path, args: tuple[str, ...]
) -> None:
    proc = subprocess.Popen(["git", "memory", *args], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE)
    assert proc.stdout is not None and proc.stderr is not None
    first = proc.stdout.readline()
    proc.stdout.close()  # like `| head -1`: the rest (over 64 KiB) meets a closed pipe
    stderr = proc.stderr.read()
    assert proc.wait(timeout=120) == 0
    assert first.strip()
    assert stderr == b"", stderr.decode()


def test_log_and_curate_stop_quietly_at_a_closed_pipe(filled: Path, gm) -> None:  # type: ignore[no-untyped-def]
    for command in ("git memory log | head -1", "git memory curate --dry-run | head -1"):
        done = subprocess.run(f"set -o pipefail; {command}", shell=True, executable="/bin/bash",
                              capture_output=True, text=True)
        assert done.returncode == 0, (command, done.stderr)
        assert done.stdout.count("\n") == 1 and done.stderr == ""
    curated = gm("curate", "--dry-run")  # one run, both of its streams checked
    assert "near-duplicate search:" in out(curated)
    assert err(curated) == ""


def test_log_counts_a_large_import_without_listing_its_files(filled: Path, gm) -> None:  # type: ignore[no-untyped-def]
    assert gm("add", "LEARNED: one more entry after the import").returncode == 0
    lines = out(gm("log")).splitlines()
    assert lines[0].endswith("(+1 record)")
    assert any(line.endswith("(+1200 records)") for line in lines)
    branch = MemoryBranch(discover())
    for commit in branch.history(branch.tip() or ""):
        parent = commit.parents[0] if commit.parents else None
        listed = [d for d in branch.diff(parent, commit.id)
                  if d.path.split("/", 1)[0] in RECORD_ROOTS]
        expected = (sum(d.status != "D" for d in listed), sum(d.status == "D" for d in listed))
        assert branch.count_changes(parent, commit.id) == expected

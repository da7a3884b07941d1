"""Bad input: one `error:` line on stderr, exit 1, and the memory branch unchanged."""

from __future__ import annotations

from pathlib import Path

import pytest

from conftest import err, out, tip


@pytest.fixture
def seeded(shared_repo, gm) -> Path:
    def seed(repo: Path) -> None:
        assert gm("add", "FACT: seed entry").returncode == 0

    return shared_repo("errors-seeded", seed)


def _assert_refused(result, before: str | None, repo: Path, words: str) -> None:
    assert result.returncode == 1, (out(result), err(result))
    lines = err(result).strip().splitlines()
    assert len(lines) == 1, lines
    assert lines[0].startswith("error: ") and words in lines[0]
    assert out(result) == ""
    assert tip(repo) == before


@pytest.mark.parametrize(
    "args, stdin, words",
    [
        (["add", ""], None, "empty"),
        (["add", "   \n\t "], None, "empty"),
        (["add", "LEARNED:   "], None, "empty"),
        (["add", "--type", "opinion", "text"], None, "unknown type"),
        (["add", "no marker here"], None, "no type"),
        (["add", "-"], b"LEARNED: bad \xff\xfe bytes", "not valid UTF-8"),
        (["add", "-"], b"LEARNED: a\x00b", "NUL byte"),
        (["add", "-"], b"", "empty"),
    ],
)
def test_bad_add_input(seeded: Path, gm, args, stdin, words) -> None:
    before = tip(seeded)
    _assert_refused(gm(*args, input=stdin), before, seeded, words)


def test_invalid_utf8_argument(seeded: Path) -> None:
    import os
    import subprocess

    before = tip(seeded)
    result = subprocess.run(
        [b"git", b"memory", b"add", b"LEARNED: caf\xe9"], capture_output=True, env=os.environ
    )
    _assert_refused(result, before, seeded, "not valid UTF-8")


def test_outside_a_repository(tmp_path: Path, gm) -> None:
    result = gm("add", "LEARNED: nowhere", cwd=tmp_path)
    assert result.returncode == 1
    assert err(result).strip() == "error: not a git repository (or any of the parent directories)"
    assert gm("list", cwd=tmp_path).returncode == 1


def test_usage_errors_exit_2(seeded: Path, gm) -> None:
    before = tip(seeded)
    for args in (["add"], ["list", "--limit", "zero"], ["nonsense"], ["import", "x", "--format", "csv"]):
        result = gm(*args)
        assert result.returncode == 2, args
        assert tip(seeded) == before
    conflict = gm("add", "LEARNED: x", "--type", "fact")
    assert conflict.returncode == 2 and err(conflict).startswith("error: ")


@pytest.mark.parametrize(
    "content, words",
    [
        (b'{"type": "learned", "content": "ok"}\nnot json\n', "line 2: not valid JSON"),
        (b'{"type": "learned", "content": "ok"}\n[1, 2]\n', "line 2: not a JSON object"),
        (b'{"type": "learned", "content": "ok \xff"}\n', "line 1: not valid UTF-8"),
        (b'{"type": "learned", "content": "a\x00b"}\n', "line 1: contains a NUL byte"),
        (b"", "holds no entries"),
    ],
)
def test_malformed_import_changes_nothing(seeded: Path, gm, content: bytes, words: str) -> None:
    before = tip(seeded)
    path = seeded.parent / "bad.jsonl"
    path.write_bytes(content)
    _assert_refused(gm("import", str(path)), before, seeded, words)


def test_import_missing_file(seeded: Path, gm) -> None:
    before = tip(seeded)
    _assert_refused(gm("import", str(seeded / "nope.jsonl")), before, seeded, "cannot read")

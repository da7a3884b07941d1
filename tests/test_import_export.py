"""`import` (our JSON lines and Lavra's real logs) and `export`."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from conftest import DATA, err, git, out, tip
from ptyread import drain

LAVRA = DATA / "lavra-knowledge"


def _write(path: Path, rows: list[object]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


def test_lavra_log_imports_as_it_is(git_repo: Path, gm) -> None:
    source = LAVRA / "lavra.knowledge.jsonl"
    lines = source.read_text(encoding="utf-8").splitlines()
    double_encoded = [n for n, line in enumerate(lines, 1) if line.startswith('"')]
    assert len(lines) == 217 and len(double_encoded) > 50
    result = gm("import", "--format", "lavra", "--json", str(source))
    assert result.returncode == 0, err(result)
    summary = json.loads(out(result))
    assert summary["imported"] >= 200
    assert summary["imported"] + summary["duplicates"] + summary["rejected"] == 217
    for reject in summary["rejects"]:
        assert reject["where"].startswith("line ") and reject["reason"]
    entries = json.loads(out(gm("list", "--json")))
    assert len(entries) == summary["imported"]
    by_key = {e["key"]: e for e in entries}
    # A double-encoded line arrives decoded, with its key, type and time kept.
    first = json.loads(json.loads(lines[double_encoded[0] - 1]))
    entry = by_key[first["key"]]
    assert entry["type"] == first["type"]
    assert entry["source"] == "import"
    assert entry["created"].startswith("2026-")
    assert entry["fields"]["lavra_bead"] == first["bead"]
    # Importing the same file again adds nothing.
    before = tip(git_repo)
    again = json.loads(out(gm("import", "--format", "lavra", "--json", str(source))))
    assert again["imported"] == 0
    assert again["duplicates"] == summary["imported"]
    assert tip(git_repo) == before


@pytest.mark.parametrize("name", ["unraid-mcp", "recordian", "syslog-mcp.raw", "syslog-mcp.cleaned"])
def test_other_lavra_logs(git_repo: Path, gm, name: str) -> None:
    source = LAVRA / f"{name}.knowledge.jsonl"
    total = len(source.read_text(encoding="utf-8").splitlines())
    summary = json.loads(out(gm("import", "--format", "lavra", "--json", str(source))))
    assert summary["imported"] + summary["duplicates"] + summary["rejected"] == total
    assert summary["imported"] >= total * 0.9


def test_import_is_one_commit_with_a_summary(git_repo: Path, gm) -> None:
    rows = [
        {"type": "learned", "content": "first", "tags": ["a"], "key": "k1"},
        {"type": "decision", "content": "second", "created": "2025-03-04T05:06:07Z",
         "rationale": "it is simpler"},
        {"type": "fact", "content": "first"},  # the same text as line 1
        {"type": "opinion", "content": "unknown type"},
        {"type": "fact", "content": "   "},
    ]
    path = _write(git_repo.parent / "in.jsonl", rows)
    assert gm("init").returncode == 0
    before = int(git("rev-list", "--count", "git-memory", cwd=git_repo))
    result = gm("import", str(path))
    assert result.returncode == 0, err(result)
    assert "imported 2, skipped 1 duplicate, rejected 2" in out(result)
    assert "skipped line 4: unknown type 'opinion'" in err(result)
    assert "skipped line 5: no content" in err(result)
    assert int(git("rev-list", "--count", "git-memory", cwd=git_repo)) == before + 1
    entries = {e["content"]: e for e in json.loads(out(gm("list", "--json")))}
    assert entries["second"]["created"] == "2025-03-04T05:06:07Z"
    assert entries["second"]["fields"]["rationale"] == "it is simpler"
    assert entries["first"]["key"] == "k1"
    path_on_branch = entries["second"]["path"]
    assert path_on_branch.startswith("entries/2025/03/04/decision-second-")


def test_skip_bad_reports_malformed_lines(git_repo: Path, gm) -> None:
    path = git_repo.parent / "mixed.jsonl"
    path.write_text('{"type": "fact", "content": "good"}\n{broken\n', encoding="utf-8")
    result = gm("import", "--skip-bad", str(path))
    assert result.returncode == 0
    assert "skipped line 2: not valid JSON" in err(result)
    assert "imported 1" in out(result)


def test_import_from_stdin(git_repo: Path, gm) -> None:
    result = gm("import", "-", input='{"type": "fact", "content": "from stdin"}\n')
    assert result.returncode == 0, err(result)
    assert [e["content"] for e in json.loads(out(gm("list", "--json")))] == ["from stdin"]


def test_export_markdown_tree_and_jsonl(git_repo: Path, gm, tmp_path: Path) -> None:
    gm("add", "LEARNED: exported entry", "--tag", "x")
    gm("add", "FACT: another exported entry")
    target = tmp_path / "export"
    result = gm("export", str(target))
    assert result.returncode == 0 and "exported 2 entries and 0 curation records" in out(result)
    files = sorted(p.relative_to(target).as_posix() for p in target.rglob("*.md"))
    assert len(files) == 2 and all(f.startswith("entries/") for f in files)
    text = (target / files[0]).read_text(encoding="utf-8")
    on_branch = git("show", f"git-memory:{files[0]}", cwd=git_repo)
    assert text.startswith("---\nid: ") and text == on_branch  # the file as the branch has it
    lines = out(gm("export", "--format", "jsonl")).strip().splitlines()
    assert json.loads(lines[0]) == {"git_memory_export": 1, "records": 2,
                                    "ref": "refs/heads/git-memory"}
    assert sorted(json.loads(line)["content"] for line in lines[1:]) == [
        "another exported entry", "exported entry"]
    assert gm("export").returncode == 2
    blocker = tmp_path / "file.txt"
    blocker.write_text("x")
    refused = gm("export", str(blocker))
    assert refused.returncode == 1 and err(refused).startswith("error: ")
    refused = gm("export", "--format", "jsonl", str(target))  # a folder is not a FILE
    assert refused.returncode == 1 and err(refused).startswith("error: ")


def test_import_shows_progress_on_a_terminal(git_repo: Path) -> None:
    import os
    import pty
    import subprocess

    rows = [{"type": "fact", "content": f"progress fact {i}"} for i in range(2500)]
    path = _write(git_repo.parent / "many.jsonl", rows)
    leader, follower = pty.openpty()
    proc = subprocess.Popen(
        ["git", "memory", "import", str(path)], cwd=git_repo,
        stdout=subprocess.PIPE, stderr=follower,
    )
    os.close(follower)
    shown_bytes = drain(leader)
    stdout = proc.communicate()[0].decode()
    os.close(leader)
    shown = shown_bytes.decode(errors="replace")
    assert proc.returncode == 0
    import re

    assert re.search(r"importing: \d+/2500 \(\d+%\)", shown), shown
    assert "imported 2500" in stdout


def test_no_progress_when_not_a_terminal(git_repo: Path, gm) -> None:
    rows = [{"type": "fact", "content": f"quiet fact {i}"} for i in range(1200)]
    result = gm("import", str(_write(git_repo.parent / "q.jsonl", rows)))
    assert result.returncode == 0 and err(result) == ""


def test_imported_status_survives_indexing(git_repo: Path, gm) -> None:
    rows = [{"type": "learned", "content": "needs a second look", "status": "needs_review"},
            {"type": "fact", "content": "plain fact"}]
    assert gm("import", str(_write(git_repo.parent / "s.jsonl", rows))).returncode == 0
    status = {e["content"]: e["status"] for e in json.loads(out(gm("list", "--json")))}
    assert status == {"needs a second look": "needs_review", "plain fact": "active"}
    # The same after a rebuild from the branch alone.
    (git_repo / ".git" / "git-memory" / "index.sqlite").unlink()
    status = {e["content"]: e["status"] for e in json.loads(out(gm("list", "--json")))}
    assert status["needs a second look"] == "needs_review"

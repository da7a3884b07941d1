"""`git memory session hook`: a Claude Code Stop / SessionEnd payload on stdin."""

from __future__ import annotations

import json

from conftest import err, git, out, tip
from agents_support import TWO, _session_entries, _with_two_learned
from agents_support import _payload


def test_hook_captures_from_the_transcript_it_names_within_the_hook_time(git_repo, gm, tmp_path):
    copy = _with_two_learned(tmp_path)
    other = tmp_path / "elsewhere"
    other.mkdir()
    # The repository comes from the payload's cwd, not the process's. How long this takes
    # is measured by bench/bench_context.py (no timing asserts in unit tests); here the
    # call must complete, capture, and report its own time.
    result = gm("session", "hook", input=_payload(copy, git_repo), cwd=other)
    assert result.returncode == 0, err(result)
    assert out(result) == ""  # nothing a Stop hook could misread
    assert "2 new" in err(result) and " ms)" in err(result)
    assert sorted(e["content"] for e in _session_entries(gm)) == sorted(
        t.split(": ", 1)[1] for t in TWO)
    before = tip(git_repo)
    again = gm("session", "hook", input=_payload(copy, git_repo, "SessionEnd"))
    assert again.returncode == 0 and tip(git_repo) == before


def test_hook_never_fails_the_session(git_repo, gm, tmp_path):
    for payload in ("not json", json.dumps({"cwd": str(git_repo)}),
                    _payload(tmp_path / "missing.jsonl", git_repo)):
        result = gm("session", "hook", input=payload)
        assert result.returncode == 0
        assert err(result).startswith("git-memory: session hook:")
    assert tip(git_repo) is None
    log = (git_repo / ".git" / "git-memory" / "session-hook.log").read_text()
    assert "transcript not found" in log


def test_stop_archives_once_and_session_end_refreshes(git_repo, gm, tmp_path):
    copy = _with_two_learned(tmp_path)
    assert gm("session", "hook", input=_payload(copy, git_repo)).returncode == 0
    first = git("rev-parse", "refs/memory/sessions", cwd=git_repo)
    with copy.open("a", encoding="utf-8") as handle:
        record = json.loads(copy.read_text().splitlines()[2])
        record["message"] = {"role": "user", "content": "one more question about the docs"}
        handle.write(json.dumps(record) + "\n")
    assert gm("session", "hook", input=_payload(copy, git_repo)).returncode == 0
    assert git("rev-parse", "refs/memory/sessions", cwd=git_repo) == first  # not every turn
    assert gm("session", "hook", input=_payload(copy, git_repo, "SessionEnd")).returncode == 0
    assert git("rev-parse", "refs/memory/sessions", cwd=git_repo) != first
    names = git("ls-tree", "-r", "--name-only", "refs/memory/sessions", cwd=git_repo).split()
    text = git("show", f"refs/memory/sessions:{names[0]}", cwd=git_repo)
    assert "one more question about the docs" in text


def test_import_a_directory(git_repo, gm, tmp_path):
    folder = tmp_path / "project"
    folder.mkdir()
    _with_two_learned(folder)
    result = gm("session", "import", str(folder))
    assert result.returncode == 0 and "2 new" in out(result)

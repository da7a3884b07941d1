"""Capture from commit messages: markers, trailers, continuation lines, #tags, provenance."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

from conftest import git, tip
from hooks_support import commit, entries, head

from git_memory.capture.commit import parse_message, strip_comments
from git_memory.githooks.install import render
from git_memory.model import ENTRY_TYPES

ROOT = Path(__file__).resolve().parents[1]


def test_parse_markers_trailers_continuations_and_tags() -> None:
    message = (
        "Fix the cache\n\n"
        "LEARNED: the cache must be warmed before the first request #perf #cache\n"
        "  even when the process restarts\n"
        "\tand on every node\n"
        "Plain prose that is not a continuation.\n"
        "  DECISION: keep sqlite for the index because #fts5 is enough\n"
        "\n"
        "Signed-off-by: Someone <s@example.com>\n"
        "Failure: the first migration lost rows\n"
    )
    found = parse_message(message)
    assert [(m.type, m.line) for m in found] == [("learned", 3), ("decision", 7), ("failure", 10)]
    assert found[0].text == (
        "the cache must be warmed before the first request\n"
        "even when the process restarts\nand on every node"
    )
    assert found[0].tags == ["perf", "cache"]
    assert found[1].text == "keep sqlite for the index because fts5 is enough"
    assert found[1].tags == ["fts5"]
    assert found[2].text == "the first migration lost rows"


def test_not_markers() -> None:
    assert parse_message("learned: lower case is prose\nLEARNEDX: no\nC# is a #1 language") == []
    assert parse_message("Learned:\n") == []  # a marker with no text is nothing


def test_key_ignores_case_and_spacing_but_not_type() -> None:
    one, two, three = parse_message(
        "LEARNED: Cache  must be WARM.\nLearned: cache must be warm\nFACT: cache must be warm"
    )
    assert one.key == two.key
    assert one.key != three.key


def test_strip_comments_and_scissors() -> None:
    text = "LEARNED: keep\n# LEARNED: a comment\n# ------------------------ >8 ------------------------\nFACT: below"
    assert strip_comments(text) == "LEARNED: keep"


def _has_marker_function() -> str:
    """The `has_marker` sh function of a shim as installed (its patterns filled in)."""
    shim = render("commit-msg")
    return re.search(r"^has_marker\(\) \{\n.*?^\}\n", shim, re.MULTILINE | re.DOTALL).group(0)


def test_shim_marker_patterns_are_the_models_markers() -> None:
    """The installed shim's patterns are written from model.ENTRY_TYPES, nothing typed by hand."""
    template = (ROOT / "hooks" / "hook-shim.sh").read_text(encoding="utf-8")
    assert "DECISION:*" not in template and "@LINE_MARKERS@" in template
    patterns = re.findall(r"^ +([A-Za-z:*|]+)\)\n +return 0 ;;", _has_marker_function(),
                          re.MULTILINE)
    assert [set(p.split("|")) for p in patterns] == [
        {f"{t.capitalize()}:*" for t in ENTRY_TYPES}, {f"{t.upper()}:*" for t in ENTRY_TYPES},
    ]
    assert len(ENTRY_TYPES) == 8


def test_shim_marker_test_and_python_parser_agree(tmp_path: Path) -> None:
    """The shell test that skips Python must say yes whenever the parser finds a marker."""
    function = _has_marker_function()
    cases = [
        "subject only", "LEARNED: x", "  FACT: indented", "\tDECISION: tab", "Learned: trailer",
        "learned: no", "x\n\nHandoff: next", "PATTERN:y", "Note: LEARNED: mid-line",
        "HANDOFF: open items", "  Learned: an indented trailer is prose", "no newline\nFAILURE: end",
        "caf\u00e9 \u2014 only prose", "FACT:",
    ]
    for message in cases:
        path = tmp_path / "msg"
        path.write_text(message, encoding="utf-8")  # no final newline: read must still see it
        shell = subprocess.run(["sh", "-c", function + 'has_marker < "$1"', "sh", str(path)]).returncode
        expected = bool(parse_message(message)) or message == "FACT:"  # the shim may say yes more often
        assert (shell == 0) == expected, message


def test_commit_with_two_markers_and_a_trailer_adds_three_entries(git_repo: Path, gm) -> None:
    assert gm("install").returncode == 0
    git("checkout", "-q", "-b", "feat/login", cwd=git_repo)
    commit(
        git_repo,
        "Login callback\n\n"
        "LEARNED: the OAuth redirect URI must match exactly #oauth\n"
        "  including the trailing slash\n"
        "DECISION: keep sessions server side\n\n"
        "Fact: the provider rotates keys daily\n",
        "src/auth/callback.py", "src/auth/session.py",
    )
    sha = head(git_repo)
    found = sorted(entries(git_repo), key=lambda e: e["type"])
    assert [e["type"] for e in found] == ["decision", "fact", "learned"]
    for entry in found:
        assert entry["source"] == "commit"
        assert entry["origin"]["commit"] == sha
        assert entry["origin"]["branch"] == "feat/login"
        assert entry["origin"]["paths"] == ["src/auth/callback.py", "src/auth/session.py"]
        assert entry["key"].startswith("commit-" + entry["type"] + "-")
    learned = found[2]
    assert learned["content"] == "the OAuth redirect URI must match exactly\nincluding the trailing slash"
    assert learned["tags"] == ["oauth"]
    # One memory commit for all markers of the message.
    log = git("log", "--format=%s", "git-memory", cwd=git_repo).splitlines()
    assert sum("capture" in line for line in log) == 1


def test_commit_without_markers_adds_nothing(git_repo: Path, gm) -> None:
    assert gm("install").returncode == 0
    commit(git_repo, "Refactor: nothing learned here\n\nJust code.", "a.py")
    assert tip(git_repo) is None


def test_amend_and_rebase_with_the_same_markers_add_no_duplicate(git_repo: Path, gm) -> None:
    assert gm("install").returncode == 0
    commit(git_repo, "Work\n\nLEARNED: amend must not duplicate\nFACT: neither must rebase", "a.py")
    before = tip(git_repo)
    assert len(entries(git_repo)) == 2
    result = subprocess.run(["git", "commit", "-q", "--amend", "--no-edit"], cwd=git_repo,
                            capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    # Rebase the commit onto a new base: the sequencer runs post-commit again.
    git("checkout", "-q", "-b", "base", "HEAD~1", cwd=git_repo)
    commit(git_repo, "unrelated base change", "b.py")
    git("checkout", "-q", "main", cwd=git_repo)
    git("rebase", "-q", "base", cwd=git_repo)
    assert len(entries(git_repo)) == 2
    assert tip(git_repo) == before  # not even a reinforce record: a pure duplicate skip
    # A new marker in an amended message is captured, the old one still is not.
    git("commit", "-q", "--amend", "-m",
        "Work\n\nLEARNED: amend must not duplicate\nFACT: neither must rebase\nPATTERN: new one",
        cwd=git_repo)
    assert sorted(e["type"] for e in entries(git_repo)) == ["fact", "learned", "pattern"]


def test_secret_in_marker_is_not_captured_when_commit_msg_is_skipped(git_repo: Path, gm) -> None:
    from hooks_support import fake_aws_key

    assert gm("install").returncode == 0
    result = subprocess.run(
        ["git", "commit", "-q", "--allow-empty", "--no-verify", "-m",
         f"LEARNED: the key is {fake_aws_key()}\nFACT: this one is fine"],
        cwd=git_repo, capture_output=True, text=True,
    )
    assert result.returncode == 0
    assert "aws-access-key-id" in result.stderr
    assert fake_aws_key() not in result.stderr + result.stdout
    assert [e["type"] for e in entries(git_repo)] == ["fact"]


def test_root_commit_and_detached_head(tmp_path: Path, gm, monkeypatch) -> None:
    from conftest import make_repo

    repo = make_repo(tmp_path / "fresh", commit=False)
    monkeypatch.chdir(repo)
    assert gm("install").returncode == 0
    commit(repo, "FACT: the root commit is captured too", "a.py", "src/b.py")
    git("checkout", "-q", "--detach", cwd=repo)
    commit(repo, "FACT: a detached commit has no branch", "c.py")
    by_text = {e["content"]: e["origin"] for e in entries(repo)}
    assert by_text["the root commit is captured too"]["paths"] == ["a.py", "src/b.py"]
    assert by_text["the root commit is captured too"]["branch"] == "main"
    assert by_text["a detached commit has no branch"]["branch"] is None


def test_cherry_pick_revert_and_worktree_commits_are_captured(git_repo: Path, gm, tmp_path: Path) -> None:
    """The post-commit shim reads COMMIT_EDITMSG only when `git commit` wrote it; a
    cherry-pick (which leaves an older message there) still gets its markers captured."""
    git("checkout", "-q", "-b", "side", cwd=git_repo)
    commit(git_repo, "side work\n\nLEARNED: made before the hooks were installed", "s.py")
    git("checkout", "-q", "main", cwd=git_repo)
    assert gm("install").returncode == 0
    commit(git_repo, "a plain commit leaves COMMIT_EDITMSG without markers", "m.py")
    git("cherry-pick", "side", cwd=git_repo)
    assert [e["content"] for e in entries(git_repo)] == ["made before the hooks were installed"]
    git("revert", "--no-edit", "HEAD", cwd=git_repo)  # REVERT_HEAD: the shim asks git, finds none
    linked = tmp_path / "linked"
    git("worktree", "add", "-q", "-b", "wt", str(linked), cwd=git_repo)
    commit(linked, "FACT: a linked worktree has its own COMMIT_EDITMSG", "w.py")
    contents = sorted(e["content"] for e in entries(git_repo))
    assert contents == ["a linked worktree has its own COMMIT_EDITMSG",
                        "made before the hooks were installed"]

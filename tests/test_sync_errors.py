"""Sync failures: one `error:` line, exit 1, and the local memory exactly as it was."""

from __future__ import annotations

from pathlib import Path

import pytest

from conftest import err, git, make_repo, out
from sync_world import clone, entries, make_remote, rev, write_hook


def assert_one_error(result, *needles: str) -> str:
    assert result.returncode == 1, out(result)
    lines = err(result).strip().splitlines()
    assert len(lines) == 1, lines
    assert lines[0].startswith("error: ")
    for needle in needles:
        assert needle in lines[0], lines[0]
    return lines[0]


@pytest.mark.parametrize("command", ["sync", "pull", "push"])
def test_unreachable_remote(git_repo: Path, gm, command: str) -> None:
    gm("add", "LEARNED: stays put", cwd=git_repo)
    git("remote", "add", "origin", "/nonexistent/path", cwd=git_repo)
    before = rev(git_repo)
    result = gm(command, cwd=git_repo)
    assert_one_error(result, "origin", "/nonexistent/path")
    assert rev(git_repo) == before
    assert rev(git_repo, "refs/remotes/origin/git-memory") is None


@pytest.mark.parametrize("command", ["sync", "pull", "push"])
def test_no_remote_at_all(git_repo: Path, gm, command: str) -> None:
    gm("add", "LEARNED: stays put", cwd=git_repo)
    before = rev(git_repo)
    result = gm(command, cwd=git_repo)
    assert_one_error(result, "no remote", "git remote add")
    assert rev(git_repo) == before


def test_unknown_remote_name(git_repo: Path, gm, tmp_path: Path) -> None:
    bare = make_remote(tmp_path)
    git("remote", "add", "origin", str(bare), cwd=git_repo)
    gm("add", "LEARNED: stays put", cwd=git_repo)
    before = rev(git_repo)
    marker = tmp_path / "ran"
    # A remote "name" that git would take as an option never reaches git.
    result = gm("sync", "--", f"--upload-pack=touch {marker}", cwd=git_repo)
    assert_one_error(result, "no remote named")
    assert gm("sync", "a", "b", cwd=git_repo).returncode == 2  # usage error
    assert not marker.exists()
    assert_one_error(gm("sync", "elsewhere", cwd=git_repo), "no remote named 'elsewhere'")
    assert rev(git_repo) == before
    assert rev(bare) is None


def test_remote_hook_refusal_changes_nothing(tmp_path: Path, gm) -> None:
    bare = make_remote(tmp_path)
    a, b = clone(bare, tmp_path / "a"), clone(bare, tmp_path / "b")
    gm("add", "LEARNED: from A", cwd=a)
    assert gm("sync", cwd=a).returncode == 0
    # Now the remote protects the memory branch, as a hosting service's protected branch would.
    write_hook(
        bare, "update",
        'if [ "$1" = refs/heads/git-memory ]; then echo "memory branch is protected" >&2;'
        " exit 1; fi",
    )
    gm("add", "LEARNED: from B", cwd=b)
    before = rev(b)
    remote_before = rev(bare)
    result = gm("sync", cwd=b)
    line = assert_one_error(result, "origin refused the memory push", "hook declined")
    assert "memory branch is protected" in line
    assert rev(b) == before  # the merge that could not be pushed was not kept locally
    assert rev(bare) == remote_before
    # B's own branch holds its one entry; what the fetch brought is read from origin's
    # copy (team memory: what git fetched, recall sees), labelled, never merged in.
    shown = entries(gm, b)
    assert sorted(str(e["from"]) for e in shown) == ["None", "origin"]


def test_local_pre_push_refusal_is_one_line(tmp_path: Path, gm) -> None:
    bare = make_remote(tmp_path)
    a = clone(bare, tmp_path / "a")
    write_hook(
        a / ".git", "pre-push",
        'echo "git-memory: push refused: carries a secret" >&2;'
        ' echo "git-memory: the way out: redact it" >&2; exit 1',
    )
    gm("add", "LEARNED: blocked locally", cwd=a)
    before = rev(a)
    result = gm("sync", cwd=a)
    assert_one_error(result, "cannot push to origin", "push refused: carries a secret")
    assert rev(a) == before
    assert rev(bare) is None


def test_not_a_repository(tmp_path: Path, gm) -> None:
    empty = tmp_path / "plain"
    empty.mkdir()
    assert_one_error(gm("sync", cwd=empty), "not a git repository")


def test_remote_without_memory_branch_pull_is_fine(tmp_path: Path, gm) -> None:
    bare = make_remote(tmp_path)
    a = clone(bare, tmp_path / "a")
    result = gm("pull", cwd=a)
    assert result.returncode == 0, err(result)
    assert "nothing to sync" in out(result)
    assert rev(a) is None
    repo = make_repo(tmp_path / "other")
    git("remote", "add", "origin", str(bare), cwd=repo)
    gm("add", "LEARNED: local only", cwd=repo)
    tip = rev(repo)
    assert gm("pull", cwd=repo).returncode == 0
    assert rev(repo) == tip and rev(bare) is None  # pull never pushes

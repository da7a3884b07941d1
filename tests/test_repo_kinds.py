"""Where the memory works: bare repositories, linked worktrees, hooks' environment,
concurrent writers, and two clones merged with plain git."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from conftest import err, git, make_repo, out, tip


@pytest.mark.slow  # twenty writers at once: a scale test
def test_twenty_concurrent_adds_leave_twenty_entries(git_repo: Path, gm) -> None:
    assert gm("init").returncode == 0
    procs = [
        subprocess.Popen(
            ["git", "memory", "add", f"FACT: concurrent writer number {i}"],
            cwd=git_repo, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
        )
        for i in range(20)
    ]
    results = [(p.wait(), p.stderr.read().decode()) for p in procs]  # type: ignore[union-attr]
    assert all(code == 0 for code, _ in results), results
    entries = json.loads(out(gm("list", "--json")))
    assert sorted(e["content"] for e in entries) == sorted(
        f"concurrent writer number {i}" for i in range(20)
    )
    # Every write is its own commit on one line of history: nothing was overwritten.
    count = git("rev-list", "--count", "git-memory", cwd=git_repo).strip()
    assert int(count) == 21


def test_bare_repository(tmp_path: Path, gm) -> None:
    bare = tmp_path / "bare.git"
    git("init", "-q", "--bare", str(bare), cwd=tmp_path)
    result = gm("add", "DECISION: bare repositories hold memory too", cwd=bare)
    assert result.returncode == 0, err(result)
    entries = json.loads(out(gm("list", "--json", cwd=bare)))
    assert [e["content"] for e in entries] == ["bare repositories hold memory too"]
    assert (bare / "git-memory" / "index.sqlite").exists()


def test_linked_worktree_shares_branch_and_index(git_repo: Path, tmp_path: Path, gm) -> None:
    other = tmp_path / "wt"
    git("worktree", "add", "-q", str(other), "-b", "feature", cwd=git_repo)
    assert gm("add", "FACT: written from a worktree", cwd=other).returncode == 0
    from_main = json.loads(out(gm("list", "--json", cwd=git_repo)))
    assert [e["content"] for e in from_main] == ["written from a worktree"]
    assert (git_repo / ".git" / "git-memory" / "index.sqlite").exists()
    assert not (other / ".git").is_dir()  # a worktree's .git is a file; nothing written there
    assert git("status", "--porcelain", cwd=other) == ""


def test_git_dir_environment_as_in_hooks(git_repo: Path, tmp_path: Path, gm) -> None:
    env = {"GIT_DIR": str(git_repo / ".git")}
    result = gm("add", "FACT: from a hook environment", cwd=tmp_path, env=env)
    assert result.returncode == 0, err(result)
    assert len(json.loads(out(gm("list", "--json")))) == 1


def test_two_clones_merge_with_plain_git(tmp_path: Path, gm) -> None:
    origin = make_repo(tmp_path / "origin")
    bare = tmp_path / "shared.git"
    git("clone", "-q", "--bare", str(origin), str(bare), cwd=tmp_path)
    one = tmp_path / "one"
    two = tmp_path / "two"
    git("clone", "-q", str(bare), str(one), cwd=tmp_path)
    git("clone", "-q", str(bare), str(two), cwd=tmp_path)
    assert gm("add", "FACT: the first clone's shared fact", cwd=one).returncode == 0
    git("push", "-q", "origin", "git-memory", cwd=one)
    git("fetch", "-q", "origin", cwd=two)
    # Clone two starts from the remote memory branch and adds its own entries.
    for i in range(3):
        assert gm("add", f"LEARNED: clone two learned thing {i}", cwd=two).returncode == 0
    for i in range(3):
        assert gm("add", f"LEARNED: clone one learned thing {i}", cwd=one).returncode == 0
    git("push", "-q", "origin", "git-memory", cwd=one)
    git("fetch", "-q", "origin", cwd=two)
    # A plain `git merge` of the two memory branches, in a checkout of the memory branch.
    checkout = tmp_path / "merge-here"
    git("worktree", "add", "-q", str(checkout), "git-memory", cwd=two)
    merge = subprocess.run(
        ["git", "merge", "--no-edit", "origin/git-memory"], cwd=checkout,
        capture_output=True, text=True,
    )
    assert merge.returncode == 0, merge.stdout + merge.stderr
    assert "CONFLICT" not in merge.stdout
    contents = sorted(e["content"] for e in json.loads(out(gm("list", "--json", cwd=two))))
    assert len(contents) == 7
    assert "the first clone's shared fact" in contents
    assert tip(two) == git("rev-parse", "HEAD", cwd=checkout).strip()


def test_fresh_clone_reads_remote_memory_without_setup(tmp_path: Path, gm) -> None:
    origin = make_repo(tmp_path / "origin")
    assert gm("add", "FACT: carried by the clone", cwd=origin).returncode == 0
    clone = tmp_path / "clone"
    git("clone", "-q", str(origin), str(clone), cwd=tmp_path)
    assert tip(clone) is None  # only refs/remotes/origin/git-memory arrived
    entries = json.loads(out(gm("list", "--json", cwd=clone)))
    assert [e["content"] for e in entries] == ["carried by the clone"]
    assert gm("add", "FACT: added in the clone", cwd=clone).returncode == 0
    assert git("merge-base", "--is-ancestor", "origin/git-memory", "git-memory", cwd=clone) == ""
    assert len(json.loads(out(gm("list", "--json", cwd=clone)))) == 2

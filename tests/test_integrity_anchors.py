"""Anchors judge the code, not the memory branch (issue #12): a worktree on the memory
branch or an unrelated orphan branch flags nothing; a code branch that removes an
anchored file flags its entry."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

from conftest import git, out
from hooks_support import commit, entries, local_flags

SYNC = {"GIT_MEMORY_HOOK_SYNC": "1"}  # the shim runs the check in the foreground


def _git(*args: str, cwd: Path) -> None:
    result = subprocess.run(["git", *args], cwd=cwd, capture_output=True, text=True,
                            env={**os.environ, **SYNC})
    assert result.returncode == 0, result.stderr


def _anchored(repo: Path, gm) -> dict[str, str]:
    assert gm("install").returncode == 0
    commit(repo, "LEARNED: a.py parses the header first", "a.py")
    commit(repo, "LEARNED: b.py keeps the cache warm", "b.py")
    return {e["origin"]["paths"][0]: e["id"] for e in entries(repo)}


def test_a_worktree_on_the_memory_branch_flags_nothing(git_repo: Path, gm, tmp_path) -> None:
    ids = _anchored(git_repo, gm)
    _git("worktree", "add", "-q", str(tmp_path / "mem"), "git-memory", cwd=git_repo)
    assert local_flags(git_repo / ".git") == {}
    _git("checkout", "-q", "--detach", "git-memory", cwd=tmp_path / "mem")
    assert local_flags(git_repo / ".git") == {}
    curate = gm("curate", "--json")
    assert curate.returncode == 0 and "stale" not in out(curate)
    # A code branch that removes an anchored file is still judged.
    git("checkout", "-q", "-b", "cleanup", cwd=git_repo)
    git("rm", "-q", "a.py", cwd=git_repo)
    git("commit", "-q", "-m", "remove a", cwd=git_repo)
    _git("checkout", "-q", "main", cwd=git_repo)
    _git("checkout", "-q", "cleanup", cwd=git_repo)
    flags = local_flags(git_repo / ".git")
    assert set(flags) == {ids["a.py"]} and flags[ids["a.py"]][0] == "stale"


def test_an_unrelated_orphan_branch_flags_nothing(git_repo: Path, gm) -> None:
    ids = _anchored(git_repo, gm)
    _git("checkout", "-q", "--orphan", "pages", cwd=git_repo)
    _git("rm", "-q", "-rf", ".", cwd=git_repo)
    (git_repo / "index.html").write_text("<p>site</p>\n", encoding="utf-8")
    _git("add", "index.html", cwd=git_repo)
    _git("commit", "-q", "-m", "site", cwd=git_repo)
    _git("checkout", "-q", "main", cwd=git_repo)
    _git("checkout", "-q", "pages", cwd=git_repo)
    assert local_flags(git_repo / ".git") == {}
    _git("checkout", "-q", "main", cwd=git_repo)
    git("rm", "-q", "b.py", cwd=git_repo)
    git("commit", "-q", "-m", "drop b", cwd=git_repo)
    _git("checkout", "-q", "HEAD~1", cwd=git_repo)
    _git("checkout", "-q", "main", cwd=git_repo)
    assert set(local_flags(git_repo / ".git")) == {ids["b.py"]}
    assert json.loads(out(gm("list", "--json")))  # readers unaffected

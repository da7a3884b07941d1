"""`memory.shareSessions`: sync carries the session archive too, never by default.

Real clones of a real bare remote that refuses non-fast-forward pushes; sessions
come from real Claude Code transcripts (`session import`) or, where a test needs a
session file changed on two machines, from commits made with git plumbing.
"""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

from conftest import err, git, out
from sync_world import assert_never_forced, clone, make_remote, write_hook
from agents_support import TRANSCRIPTS

SESSIONS = "refs/memory/sessions"
IDEAS = TRANSCRIPTS / "-experiments-ideas" / "03eb5929-52b3-4b13-ada3-b93ae35806b8.jsonl"
WORKTREES = TRANSCRIPTS / "-experiments-worktrees" / "ef958aa1-0e93-49f0-bb71-150f63befcd1.jsonl"


def files(repo: Path, ref: str = SESSIONS) -> list[str]:
    return git("ls-tree", "-r", "--name-only", ref, cwd=repo).split()


def share(repo: Path) -> Path:
    git("config", "memory.shareSessions", "true", cwd=repo)
    return repo


def write_session(repo: Path, path: str, text: str) -> None:
    """Commit one file on the archive ref with plumbing (what a hand edit would do)."""
    env = {**os.environ, "GIT_INDEX_FILE": str(repo / ".git" / "scratch-index")}
    parent = subprocess.run(["git", "rev-parse", "--verify", "-q", SESSIONS], cwd=repo,
                            capture_output=True, text=True).stdout.strip()
    run = lambda *a, **k: subprocess.run(["git", *a], cwd=repo, env=env, check=True,  # noqa: E731
                                         capture_output=True, text=True, **k).stdout.strip()
    if parent:
        run("read-tree", parent)
    else:
        run("read-tree", "--empty")
    blob = run("hash-object", "-w", "--stdin", input=text)
    run("update-index", "--add", "--cacheinfo", f"100644,{blob},{path}")
    tree = run("write-tree")
    commit = run("commit-tree", tree, *(["-p", parent] if parent else []), "-m", "sessions: edit")
    run("update-ref", SESSIONS, commit, *([parent] if parent else []))


def test_shared_sessions_travel_both_ways_and_stay_searchable(tmp_path: Path, gm) -> None:
    bare = make_remote(tmp_path)
    a = share(clone(bare, tmp_path / "a"))
    b = share(clone(bare, tmp_path / "b"))
    assert gm("session", "import", str(IDEAS), cwd=a).returncode == 0
    assert gm("session", "import", str(WORKTREES), cwd=b).returncode == 0
    first = gm("sync", cwd=a)
    assert first.returncode == 0, err(first)
    assert "session archive: created it on origin" in out(first)
    second = gm("sync", "--json", cwd=b)
    assert second.returncode == 0, err(second)
    report = json.loads(out(second))["sessions"]
    assert report["action"] == "merge" and report["received"] == 1 and report["sent"] == 1
    third = gm("sync", "--json", cwd=a)
    assert json.loads(out(third))["sessions"]["received"] == 1
    both = files(a)
    assert len(both) == 2 and files(b) == both == files(bare)
    assert git("rev-parse", SESSIONS, cwd=a) == git("rev-parse", SESSIONS, cwd=b)
    # B can search what was said in A's session (the search index follows the ref).
    hits = json.loads(out(gm("session", "search", "--json", "weak points convention", cwd=b)))
    assert hits and hits[0]["session"] == "03eb5929-52b3-4b13-ada3-b93ae35806b8"
    assert_never_forced(bare, SESSIONS)
    # The tracking copy lives outside refs/remotes, so `git branch -r` does not list it.
    assert git("rev-parse", "refs/memory/remotes/origin/sessions", cwd=a).strip()
    assert "sessions" not in git("branch", "-r", cwd=a)


def test_sessions_stay_local_unless_shared(tmp_path: Path, gm) -> None:
    bare = make_remote(tmp_path)
    a = clone(bare, tmp_path / "a")
    assert gm("session", "import", str(IDEAS), cwd=a).returncode == 0
    assert gm("add", "LEARNED: nightly builds run at 02:00", cwd=a).returncode == 0
    result = gm("sync", "--json", cwd=a)
    assert result.returncode == 0, err(result)
    assert json.loads(out(result))["sessions"] is None
    assert git("ls-remote", str(bare), "refs/memory/*", cwd=a) == ""
    assert git("ls-remote", str(bare), "refs/heads/git-memory", cwd=a) != ""


def test_a_session_grown_on_two_machines_keeps_the_longer_copy(tmp_path: Path, gm) -> None:
    bare = make_remote(tmp_path)
    a = share(clone(bare, tmp_path / "a"))
    b = share(clone(bare, tmp_path / "b"))
    path = "sessions/2026/01/s1.md"
    write_session(a, path, "# s1\n\nhello\n")
    assert gm("sync", cwd=a).returncode == 0
    assert gm("sync", cwd=b).returncode == 0
    assert files(b) == [path]
    write_session(a, path, "# s1\n\nhello\nA said a little\n")
    longer = "# s1\n\nhello\nB said much more, over several turns\n"
    write_session(b, path, longer)
    assert gm("sync", cwd=a).returncode == 0  # A's version reaches the remote first
    merged = gm("sync", "--json", cwd=b)
    assert merged.returncode == 0, err(merged)
    assert json.loads(out(merged))["sessions"]["action"] == "merge"
    assert gm("sync", cwd=a).returncode == 0
    for repo in (a, b):
        assert files(repo) == [path]  # no conflict copy beside it
        assert git("show", f"{SESSIONS}:{path}", cwd=repo) == longer
    assert_never_forced(bare, SESSIONS)


def test_a_refused_session_push_says_the_memory_went_through(tmp_path: Path, gm) -> None:
    bare = make_remote(tmp_path)
    write_hook(bare, "pre-receive",
               'while read old new ref; do case "$ref" in refs/memory/*) '
               'echo "no sessions here" >&2; exit 1;; esac; done; exit 0')
    a = share(clone(bare, tmp_path / "a"))
    assert gm("add", "LEARNED: the cache warms in ten minutes", cwd=a).returncode == 0
    assert gm("session", "import", str(IDEAS), cwd=a).returncode == 0
    before = git("rev-parse", SESSIONS, cwd=a)
    result = gm("sync", cwd=a)
    assert result.returncode == 1
    lines = err(result).splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: memory synced with origin, but not")
    assert "no sessions here" in lines[0]
    memory = git("rev-parse", "refs/heads/git-memory", cwd=a)
    assert git("ls-remote", str(bare), "refs/heads/git-memory", cwd=a).split()[0] == memory.strip()
    assert git("rev-parse", SESSIONS, cwd=a) == before  # the local archive is untouched
    assert git("ls-remote", str(bare), "refs/memory/*", cwd=a) == ""
    # The pre-push hook's auto-sync says the same, once, and never fails the code push.
    git("config", "memory.autoSync", "true", cwd=a)
    assert gm("add", "LEARNED: a second fact for the auto sync", cwd=a).returncode == 0
    auto = gm("sync", "--auto", "origin", cwd=a)
    assert auto.returncode == 0
    said = err(auto).strip().splitlines()
    assert len(said) == 1
    assert said[0].startswith("git-memory: memory synced with origin, but not the session archive:")


def test_auto_sync_carries_the_archive_too(tmp_path: Path, gm) -> None:
    bare = make_remote(tmp_path)
    a = share(clone(bare, tmp_path / "a"))
    git("config", "memory.autoSync", "true", cwd=a)
    assert gm("add", "LEARNED: builds are cached for a day", cwd=a).returncode == 0
    assert gm("session", "import", str(IDEAS), cwd=a).returncode == 0
    assert gm("sync", "--auto", "origin", cwd=a).returncode == 0
    assert files(bare) == files(a) and len(files(a)) == 1


def test_pull_and_push_carry_the_archive_and_push_never_merges(tmp_path: Path, gm) -> None:
    bare = make_remote(tmp_path)
    a = share(clone(bare, tmp_path / "a"))
    b = share(clone(bare, tmp_path / "b"))
    assert gm("add", "LEARNED: the queue drains in order", cwd=a).returncode == 0
    assert gm("session", "import", str(IDEAS), cwd=a).returncode == 0
    pushed = gm("push", cwd=a)
    assert pushed.returncode == 0, err(pushed)
    assert "session archive: created it on origin" in out(pushed)
    pulled = gm("pull", cwd=b)
    assert pulled.returncode == 0, err(pulled)
    assert "session archive: took origin's" in out(pulled)
    assert files(b) == files(a)
    write_session(a, "sessions/2026/03/s3.md", "# s3\n")
    write_session(b, "sessions/2026/03/s2.md", "# s2\n")
    assert gm("push", cwd=a).returncode == 0
    assert gm("add", "LEARNED: the queue retries three times", cwd=b).returncode == 0
    refused = gm("push", cwd=b)
    assert refused.returncode == 1
    assert err(refused).strip() == (
        "error: memory pushed to origin, but not the session archive: origin has sessions"
        " this clone lacks; run `git memory sync origin` to merge and push")
    assert git("ls-remote", str(bare), "refs/heads/git-memory", cwd=b).split()[0] == \
        git("rev-parse", "refs/heads/git-memory", cwd=b).strip()
    assert "sessions/2026/03/s2.md" not in files(bare)
    assert gm("sync", cwd=b).returncode == 0
    assert len(files(b)) == 3 and files(bare) == files(b)
    assert_never_forced(bare, SESSIONS)

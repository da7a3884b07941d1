"""Index builds that answer early, resume after a kill and leave nothing behind.

A memory of a few thousand entries in a bare-ish origin, cloned: the clone has no index.
Builds are slowed down with GIT_MEMORY_BUILD_BATCH (files per committed batch) and
GIT_MEMORY_BUILD_PAUSE (seconds after each batch), so a test can see a build in progress
and SIGKILL it mid-way. Scale (100k, 1M) is bench/bench_build.py's.
"""

from __future__ import annotations

import json
import os
import pty
import signal
import sqlite3
import subprocess
import time
from pathlib import Path


from conftest import git, make_repo
from ptyread import drain

ENTRIES = 3000
SLOW = {"GIT_MEMORY_BUILD_BATCH": "300", "GIT_MEMORY_BUILD_PAUSE": "0.4"}


def _origin(built_once, gm) -> Path:
    """The origin every test clones (and none writes to): made once per worker."""
    return built_once("index-build-origin", lambda folder: _make_origin(folder, gm)) / "origin"


def _make_origin(tmp_path: Path, gm) -> None:
    origin = make_repo(tmp_path / "origin")
    rows = [
        {"type": "learned", "created": f"2025-{1 + i % 12:02d}-{1 + i % 28:02d}T10:00:{i % 60:02d}Z",
         "content": f"Cache shard {i} warms up in {i % 97} seconds after the deploy of service {i}"}
        for i in range(ENTRIES)
    ]
    rows.append({"type": "decision", "created": "2026-01-05T09:00:00Z",
                 "content": "Newest decision: the zebra rollout waits for the canary"})
    corpus = tmp_path / "corpus.jsonl"
    corpus.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    assert gm("import", str(corpus), cwd=origin).returncode == 0
    assert gm("handoff", "Open item: finish the shard migration", cwd=origin).returncode == 0


def _clone(origin: Path, where: Path) -> Path:
    git("clone", "-q", str(origin), str(where), cwd=origin.parent)
    return where


def _memory_dir(repo: Path) -> Path:
    return repo / ".git" / "git-memory"


def _meta(path: Path) -> dict[str, str]:
    conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True, timeout=5)
    try:
        return dict(conn.execute("SELECT k, v FROM meta").fetchall())
    finally:
        conn.close()


def _wait(predicate, seconds: float = 60.0) -> None:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if predicate():
            return
        time.sleep(0.1)
    raise AssertionError("timed out")


def _building(repo: Path) -> bool:
    lock = _memory_dir(repo) / "index.build.lock"
    if not lock.exists():
        return False
    import fcntl

    with open(lock, "a+") as handle:
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            return True
        fcntl.flock(handle, fcntl.LOCK_UN)
    return False


def _leftovers(repo: Path) -> list[str]:
    """Files of the memory folder other than the index, its locks and the build log."""
    keep = {"index.sqlite", "index.lock", "index.build.lock", "build.log", "embed.lock"}
    return sorted(p.name for p in _memory_dir(repo).iterdir() if p.name not in keep)


def _build_done(repo: Path) -> int:
    path = _memory_dir(repo) / "index.sqlite.build"
    try:
        return int(_meta(path).get("build_done", 0)) if path.exists() else 0
    except sqlite3.Error:
        return 0


def test_fresh_clone_context_answers_at_once_and_builds_in_the_background(tmp_path, gm, built_once):
    origin = _origin(built_once, gm)
    clone = _clone(origin, tmp_path / "clone")
    assert not (_memory_dir(clone) / "index.sqlite").exists()
    env = {**os.environ, **SLOW}
    started = time.monotonic()
    result = subprocess.run(["timeout", "15", "git", "memory", "context", "--format", "claude"],
                            cwd=clone, env=env, capture_output=True)
    assert result.returncode == 0, result.stderr
    text = json.loads(result.stdout)["hookSpecificOutput"]["additionalContext"]
    assert time.monotonic() - started < 15
    assert "Open item: finish the shard migration" in text  # the handoff
    assert "zebra rollout" in text  # the newest entry, read from the branch
    assert "index of this memory is being built in the background" in text
    # One detached build runs (it outlived the hook) and finishes.
    assert _building(clone)
    second = subprocess.run(["git", "memory", "context", "--format", "json"], cwd=clone,
                            env=env, capture_output=True)
    assert json.loads(second.stdout)["building"] is True
    _wait(lambda: not _building(clone))
    assert (_memory_dir(clone) / "index.sqlite").exists()
    assert _leftovers(clone) == []
    meta = _meta(_memory_dir(clone) / "index.sqlite")
    assert meta["stamp"] == git("rev-parse", "origin/git-memory", cwd=clone).strip()
    # The next context uses the full index: no note, the handoff first.
    data = json.loads(gm("context", "--format", "json", cwd=clone).stdout)
    assert data["building"] is False
    assert "being built" not in data["text"]
    assert data["items"][0]["section"] == "handoff"
    assert json.loads(gm("list", "--json", "-n", "5000", cwd=clone).stdout).__len__() == ENTRIES + 2


def _start_build(repo: Path) -> subprocess.Popen:
    return subprocess.Popen(["git", "memory", "reindex", "--background"], cwd=repo,
                            env={**os.environ, **SLOW}, stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL, start_new_session=True)


def test_a_killed_build_resumes_and_no_temporary_file_is_left(tmp_path, gm, built_once):
    origin = _origin(built_once, gm)
    clone = _clone(origin, tmp_path / "clone")
    folder = _memory_dir(clone)
    folder.mkdir(parents=True, exist_ok=True)
    # What an older version's killed build left behind (its process is long gone).
    stale = folder / "index.sqlite.999999999.tmp"
    stale.write_bytes(b"x" * 4096)
    # doctor sees it (before it builds anything itself)
    report = json.loads(gm("doctor", "--json", cwd=clone).stdout)
    assert report["build"]["stale_temp_files"] == [stale.name]
    (folder / "index.sqlite").unlink()  # doctor built the index: start again from none
    stale.write_bytes(b"x" * 4096)
    kills = []
    for _ in range(2):
        before = _build_done(clone)
        proc = _start_build(clone)
        _wait(lambda: _build_done(clone) >= before + 600)
        os.killpg(proc.pid, signal.SIGKILL)  # git and the git-memory it runs
        proc.wait()
        kills.append(_build_done(clone))
    assert kills[0] >= 600 and kills[1] >= kills[0] + 600  # the second run went on from the first
    assert not stale.exists()  # removed by the first build
    # A build in progress (paused), as doctor reports it.
    proc = _start_build(clone)
    _wait(lambda: _build_done(clone) > kills[1])
    report = json.loads(gm("doctor", "--json", cwd=clone, env={"GIT_MEMORY_BUILD_PAUSE": ""}).stdout)
    assert report["build"]["running"] is True
    assert report["build"]["done"] > kills[1] and report["build"]["total"] >= ENTRIES
    proc.wait(timeout=60)
    assert _leftovers(clone) == []
    meta = _meta(folder / "index.sqlite")
    # The last build started where the killed ones stopped: fewer batches than a full build.
    resumed = int(meta["build_resumed_from"])
    assert resumed >= kills[1]
    conn = sqlite3.connect(folder / "index.sqlite")
    assert conn.execute("SELECT count(*) FROM records").fetchone()[0] == ENTRIES + 2
    assert conn.execute("SELECT count(DISTINCT path) FROM records").fetchone()[0] == ENTRIES + 2
    conn.close()
    assert gm("doctor", cwd=clone).returncode == 0


def test_one_build_at_a_time(tmp_path, gm, built_once):
    origin = _origin(built_once, gm)
    clone = _clone(origin, tmp_path / "clone")
    first = _start_build(clone)
    _wait(lambda: _build_done(clone) > 0)
    started = time.monotonic()
    second = _start_build(clone)
    assert second.wait(timeout=30) == 0
    assert time.monotonic() - started < 5  # it saw the lock and left
    assert first.poll() is None
    # A command that needs the index waits for the running build instead of starting its own.
    result = gm("recall", "zebra", "rollout", cwd=clone)
    assert result.returncode == 0 and b"zebra rollout" in result.stdout
    assert result.stderr == b""  # not a terminal: no progress drawn
    first.wait(timeout=60)
    assert _leftovers(clone) == []


def test_progress_is_shown_on_a_terminal_while_a_command_builds(tmp_path, gm, built_once):
    origin = _origin(built_once, gm)
    clone = _clone(origin, tmp_path / "clone")
    parent, child = pty.openpty()
    proc = subprocess.Popen(["git", "memory", "recall", "zebra"], cwd=clone,
                            env={**os.environ, "GIT_MEMORY_BUILD_BATCH": "500"},
                            stdout=subprocess.PIPE, stderr=child)
    os.close(child)
    shown = drain(parent)
    proc.wait(timeout=60)
    os.close(parent)
    assert proc.returncode == 0 and b"zebra rollout" in proc.stdout.read()
    assert b"indexing: " in shown and b"(100%)" in shown


def test_two_hooks_at_the_same_instant_start_one_build(tmp_path, gm, built_once):
    # The hook takes the build lock itself and hands it to the detached build: between the
    # first hook's answer and its build's start there is no gap a second hook could use.
    origin = _origin(built_once, gm)
    clone = _clone(origin, tmp_path / "clone")
    env = {**os.environ, **SLOW}
    hooks = [subprocess.Popen(["git", "memory", "context", "--format", "json"], cwd=clone, env=env,
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE) for _ in range(2)]
    outs = [json.loads(h.communicate(timeout=30)[0]) for h in hooks]
    assert all(o["building"] for o in outs)
    assert _building(clone)  # held already, by the build a hook started
    _wait(lambda: not _building(clone))
    log = (_memory_dir(clone) / "build.log").read_text()
    assert "Traceback" not in log
    assert _leftovers(clone) == []
    assert json.loads(gm("list", "--json", "-n", "5000", cwd=clone).stdout).__len__() == ENTRIES + 2


def test_a_build_given_a_descriptor_that_is_not_its_lock_takes_its_own(tmp_path, gm, built_once):
    origin = _origin(built_once, gm)
    clone = _clone(origin, tmp_path / "clone")
    env = {**os.environ, "GIT_MEMORY_HELD_LOCK_FD": "0"}  # stdin, not the lock file
    result = subprocess.run(["git", "memory", "reindex", "--background"], cwd=clone, env=env,
                            capture_output=True, stdin=subprocess.DEVNULL)
    assert result.returncode == 0, result.stderr
    assert (_memory_dir(clone) / "index.sqlite").exists()
    assert _leftovers(clone) == []

"""A cold build with worker processes (git_memory.parallel) gives the index one process gives.

- workers (GIT_MEMORY_BUILD_WORKERS=2, small steps so each worker makes many) yield the
  same rows, rowids, search text, problems and stamp as the build in one process, also
  when files that make no row (malformed, refused) sit mid-tree and the rows after them
  must be renumbered;
- a build whose building process is killed leaves no worker behind (they hold the build
  lock's descriptor) and resumes to the same index; one whose worker is killed fails in
  one line, leaves no process, and resumes too;
- the same queries give the same `recall --json` after both builds.
"""

from __future__ import annotations

import fcntl
import json
import os
import signal
import sqlite3
import subprocess
import sys
import threading
import time
from pathlib import Path

from build_support import build_done, built_origin, dump_index, plant_files
from conftest import git

ONE = {"GIT_MEMORY_BUILD_WORKERS": "0"}
FORKED = {"GIT_MEMORY_BUILD_WORKERS": "2", "GIT_MEMORY_BUILD_BATCH": "100"}


def _clone(origin: Path, where: Path) -> Path:
    git("clone", "-q", str(origin), str(where), cwd=origin.parent)
    return where


def _index(repo: Path) -> Path:
    return repo / ".git" / "git-memory" / "index.sqlite"


def _env(extra: dict[str, str]) -> dict[str, str]:
    return {**os.environ, **extra}


def test_forked_build_equals_a_build_in_one_process(tmp_path: Path, gm, built_once) -> None:
    origin = built_origin(tmp_path, gm, built_once)
    plant_files(origin, {  # files that make no row, early and mid-tree: later rowids shift
        "entries/2025/01/01/aaa-broken.md": ("100644", "no front matter at all\n"),
        "entries/2025/06/15/mid-broken.md": ("100644", "---\nid: x\ntype: nonsense\n---\nhi\n"),
        "entries/2025/09/09/mid-link.md": ("120000", "../../../../etc/passwd"),
    })
    one, forked = _clone(origin, tmp_path / "one"), _clone(origin, tmp_path / "forked")
    assert subprocess.run(["git", "memory", "reindex"], cwd=one, env=_env(ONE),
                          capture_output=True).returncode == 0
    result = subprocess.run(["git", "memory", "reindex"], cwd=forked, env=_env(FORKED),
                            capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    dumped = dump_index(_index(forked))
    assert len(dumped[2]) == 3  # the three problems are there
    records = dumped[0]
    assert [r[0] for r in records] == list(range(1, len(records) + 1))  # no gap in rowids
    assert dumped == dump_index(_index(one))
    for repo in (one, forked):  # the build's FTS settings are not left in the index
        config = sqlite3.connect(_index(repo)).execute("SELECT k FROM fts_config").fetchall()
        assert ("hashsize",) not in config and ("version",) in config
    for query in ("cache shard", "svc7 deploy", "warms up"):
        outs = [gm("recall", query, "--json", cwd=repo).stdout for repo in (one, forked)]
        assert json.loads(outs[0]) and outs[0] == outs[1]


def _workers_of(repo: Path) -> list[int]:
    """Processes whose working folder is `repo` (a build and its workers)."""
    found = []
    for proc in Path("/proc").iterdir():
        try:
            if proc.name.isdigit() and Path(os.readlink(proc / "cwd")) == repo.resolve():
                found.append(int(proc.name))
        except OSError:
            continue
    return found


def test_killed_forked_build_leaves_no_worker_and_resumes(tmp_path: Path, gm, built_once) -> None:
    origin = built_origin(tmp_path, gm, built_once)
    full = _clone(origin, tmp_path / "full")
    assert gm("reindex", cwd=full).returncode == 0
    repo = _clone(origin, tmp_path / "killed")
    slow = _env({**FORKED, "GIT_MEMORY_BUILD_BATCH": "250", "GIT_MEMORY_BUILD_PAUSE": "0.3"})
    proc = subprocess.Popen([sys.executable, "-m", "git_memory", "reindex", "--background"], cwd=repo,
                            env=slow, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                            start_new_session=True)
    deadline = time.monotonic() + 60
    while build_done(repo) < 500 and time.monotonic() < deadline:
        time.sleep(0.05)
    assert len(_workers_of(repo)) >= 2  # the build and its workers
    os.kill(proc.pid, signal.SIGKILL)  # the building process only: its workers must follow
    proc.wait()
    deadline = time.monotonic() + 20
    while _workers_of(repo) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert _workers_of(repo) == []
    with open(repo / ".git" / "git-memory" / "index.build.lock", "a+") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)  # free: nobody holds it
    killed_at = build_done(repo)
    assert 500 <= killed_at < 1500
    result = subprocess.run(["git", "memory", "reindex", "--background"], cwd=repo,
                            env=_env(FORKED), capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    meta = dict(sqlite3.connect(_index(repo)).execute("SELECT k, v FROM meta").fetchall())
    assert int(meta["build_resumed_from"]) == killed_at
    assert dump_index(_index(repo)) == dump_index(_index(full))
    assert not list((repo / ".git" / "git-memory").glob("index.sqlite.*"))


def test_worker_count(monkeypatch) -> None:
    from git_memory import parallel
    from git_memory.index.build.full import MIN_FILES

    def count(files: int) -> int:
        return parallel.count(files, MIN_FILES, 2, "GIT_MEMORY_BUILD_WORKERS")

    monkeypatch.delenv("GIT_MEMORY_BUILD_WORKERS", raising=False)
    monkeypatch.setattr(os, "sched_getaffinity", lambda pid: {0, 1, 2})
    assert count(MIN_FILES - 1) == 0  # small: starting workers costs more
    assert count(100_000) == 2  # at most two
    monkeypatch.setattr(threading, "active_count", lambda: 2)
    assert count(100_000) == 0  # other threads running: no fork
    monkeypatch.setattr(threading, "active_count", lambda: 1)
    monkeypatch.setattr(os, "sched_getaffinity", lambda pid: {0})
    assert count(100_000) == 0  # one core: nothing to gain
    monkeypatch.setenv("GIT_MEMORY_BUILD_WORKERS", "3")
    assert count(10) == 3
    monkeypatch.setenv("GIT_MEMORY_BUILD_WORKERS", "lots")
    assert count(10) == 0  # not a number: the default rules


def _children(pid: int) -> list[int]:
    found = []
    for proc in Path("/proc").iterdir():
        try:
            if proc.name.isdigit() and int((proc / "stat").read_text().rsplit(")", 1)[1].split()[1]) == pid:
                found.append(int(proc.name))
        except (OSError, ValueError, IndexError):
            continue
    return sorted(found)


def test_a_build_whose_worker_dies_fails_cleanly_and_resumes(
        tmp_path: Path, gm, built_once) -> None:
    """A worker killed mid-build: the build stops with a one-line error, the other
    worker exits, and the next build (three workers) resumes to the index one process
    makes."""
    origin = built_origin(tmp_path, gm, built_once)
    full = _clone(origin, tmp_path / "full")
    assert subprocess.run(["git", "memory", "reindex"], cwd=full, env=_env(ONE),
                          capture_output=True).returncode == 0
    repo = _clone(origin, tmp_path / "killed")
    slow = _env({**FORKED, "GIT_MEMORY_BUILD_BATCH": "250", "GIT_MEMORY_BUILD_PAUSE": "0.3"})
    proc = subprocess.Popen([sys.executable, "-m", "git_memory", "reindex"], cwd=repo,
                            env=slow, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                            start_new_session=True)
    deadline = time.monotonic() + 60
    while build_done(repo) < 500 and time.monotonic() < deadline:
        time.sleep(0.05)
    workers = _children(proc.pid)
    assert len(workers) == 2
    os.kill(workers[0], signal.SIGKILL)
    _, err = proc.communicate(timeout=60)
    assert proc.returncode != 0
    assert len(err.decode().strip().splitlines()) == 1, err  # one line, no traceback
    deadline = time.monotonic() + 20
    while _workers_of(repo) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert _workers_of(repo) == []
    killed_at = build_done(repo)
    assert killed_at >= 500
    three = _env({"GIT_MEMORY_BUILD_WORKERS": "3", "GIT_MEMORY_BUILD_BATCH": "100"})
    result = subprocess.run(["git", "memory", "reindex", "--background"], cwd=repo, env=three,
                            capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    meta = dict(sqlite3.connect(_index(repo)).execute("SELECT k, v FROM meta").fetchall())
    assert int(meta["build_resumed_from"]) == killed_at
    assert dump_index(_index(repo)) == dump_index(_index(full))
    assert not list((repo / ".git" / "git-memory").glob("index.sqlite.*"))

"""What the index-build tests share: a memory of ENTRIES entries made once per run, a
build killed part-way, the build's progress stamp, an index dumped for comparison, and
files planted on the memory branch with plain git.

The three build test modules (test_index_build_fast, _workers, _end) import these from
here, so that no test module imports another.
"""

from __future__ import annotations

import fcntl
import json
import os
import signal
import sqlite3
import subprocess
import time
from pathlib import Path

from conftest import copy_repo, git, make_repo

ENTRIES = 1500


def built_origin(tmp_path: Path, gm, built_once) -> Path:
    """The memory the build tests clone: made once per run (`built_once`: an import of
    ENTRIES entries and two curation records, about 1 s of CPU) and copied to
    tmp_path/"origin", the test's own to change."""
    made = built_once("index-build-fast-origin", lambda folder: _make_origin(folder, gm))
    return copy_repo(made / "origin", tmp_path / "origin")


def _make_origin(tmp_path: Path, gm) -> None:
    origin = make_repo(tmp_path / "origin")
    rows = [{"type": ("learned", "decision")[i % 2],
             "created": f"2025-{1 + i % 12:02d}-{1 + i % 28:02d}T10:00:{i % 60:02d}Z",
             "tags": [f"t{i % 7}"],
             "content": f"Cache shard {i} warms up in {i % 97} s after the deploy of svc{i}"}
            for i in range(ENTRIES)]
    corpus = tmp_path / "corpus.jsonl"
    corpus.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    assert gm("import", str(corpus), cwd=origin).returncode == 0
    # curation records too: the fold runs over the resumed index as over the full one
    listed = json.loads(gm("list", "--json", "-n", "3", cwd=origin).stdout)
    assert gm("flag", listed[0]["id"], "--status", "needs_review", "--reason", "check",
              cwd=origin).returncode == 0
    assert gm("supersede", listed[1]["id"], listed[2]["id"], "--reason", "newer",
              cwd=origin).returncode == 0


def dump_index(index: Path) -> list[object]:
    conn = sqlite3.connect(index)
    try:
        return [
            conn.execute("SELECT * FROM records ORDER BY rowid").fetchall(),
            conn.execute("SELECT rowid, * FROM fts ORDER BY rowid").fetchall(),
            conn.execute("SELECT * FROM problems ORDER BY path").fetchall(),
            conn.execute("SELECT k, v FROM meta WHERE k != 'build_resumed_from' ORDER BY k")
            .fetchall(),
            conn.execute("SELECT rowid FROM fts WHERE fts MATCH 'cache OR svc7' ORDER BY rowid")
            .fetchall(),
        ]
    finally:
        conn.close()


def build_done(repo: Path) -> int:
    path = repo / ".git" / "git-memory" / "index.sqlite.build"
    try:
        conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True, timeout=5)
        try:
            row = conn.execute("SELECT v FROM meta WHERE k = 'build_done'").fetchone()
        finally:
            conn.close()
        return int(row[0]) if row else 0
    except sqlite3.Error:
        return 0


def kill_build_past(clone: Path, files: int) -> None:
    """Start the detached build in `clone`, slowed (small batches, a pause after each),
    and kill its process group (SIGKILL) once its stamp says at least `files` are in."""
    slow = {**os.environ, "GIT_MEMORY_BUILD_BATCH": "250", "GIT_MEMORY_BUILD_PAUSE": "0.3"}
    proc = subprocess.Popen(["git", "memory", "reindex", "--background"], cwd=clone, env=slow,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                            start_new_session=True)
    deadline = time.monotonic() + 60
    while build_done(clone) < files and time.monotonic() < deadline:
        time.sleep(0.05)
    os.killpg(proc.pid, signal.SIGKILL)
    proc.wait()
    _wait_lock_free(clone)


def _wait_lock_free(clone: Path) -> None:
    """Until the killed build's lock is free: `wait` reaps only the group's leader, and
    its forked workers and full-text writer, which share the lock's open file, may still
    be exiting for some milliseconds (a build started then finds the lock held and, as
    it should, leaves the build to the one it thinks is running)."""
    path = clone / ".git" / "git-memory" / "index.build.lock"
    deadline = time.monotonic() + 10
    with open(path, "a+") as handle:
        while True:
            try:
                fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                assert time.monotonic() < deadline, "the killed build's lock stayed held"
                time.sleep(0.01)
                continue
            fcntl.flock(handle, fcntl.LOCK_UN)
            return



def plant_files(repo: Path, files: dict[str, tuple[str, str]]) -> None:
    """Commit files (path: (mode, text)) onto the memory branch with plain git."""
    env = {**os.environ, "GIT_INDEX_FILE": str(repo / ".git" / "raw-index")}

    def run(*args: str, stdin: str | None = None) -> str:
        return subprocess.run(["git", *args], cwd=repo, env=env, input=stdin, text=True,
                              capture_output=True, check=True).stdout.strip()

    run("read-tree", "git-memory")
    for path, (mode, text) in files.items():
        blob = run("hash-object", "-w", "--stdin", stdin=text)
        run("update-index", "--add", "--cacheinfo", f"{mode},{blob},{path}")
    commit = run("commit-tree", run("write-tree"), "-p", "git-memory", "-m", "planted")
    run("update-ref", "refs/heads/git-memory", commit)

"""What a killed import leaves (its temporary pack), as doctor reports it and the next import
removes it; and that a live import's temporary pack is never taken for a leftover.

An import reading JSON lines from a pipe streams them: after the first 20,000 lines (the
read-ahead that decides whether to use workers) it writes blobs into its temporary pack
as lines come, and waits on the pipe for more. So a test holds an import mid-write by
keeping the pipe open: no timing, no sleeps.
"""

from __future__ import annotations

import fcntl
import json
import os
import signal
import subprocess
import time
from pathlib import Path
from typing import Callable

from conftest import err, out
from git_memory.store import leftovers
from git_memory.store.locate import discover

AHEAD = 20000  # commands/import_.PARALLEL: lines read before the import starts writing


def _lines(label: str, count: int) -> bytes:
    return "".join(json.dumps({"type": "learned", "content": f"{label} fact {n} about pumps"})
                   + "\n" for n in range(count)).encode("utf-8")


def _start_import(repo: Path, first: bytes) -> subprocess.Popen:
    """`git memory import -` in its own process group, fed `first`; stdin stays open."""
    proc = subprocess.Popen(["git", "memory", "import", "--format", "jsonl", "-"], cwd=repo,
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, start_new_session=True)
    assert proc.stdin is not None
    proc.stdin.write(first)
    proc.stdin.flush()
    return proc


def _temp_packs(repo: Path) -> list[Path]:
    return sorted((repo / ".git" / "objects" / "pack").glob(leftovers.PACK_PREFIX + "*"))


def _wait(ready: Callable[[], bool], proc: subprocess.Popen) -> None:
    """Until `ready()`; a hang bound of 120 s, and the import must not have died."""
    deadline = time.monotonic() + 120
    while not ready():
        assert proc.poll() is None, proc.stderr.read().decode() if proc.stderr else ""
        assert time.monotonic() < deadline, "the import never got that far"
        time.sleep(0.02)


def _writing(repo: Path) -> Callable[[], bool]:
    """The import's temporary pack holds objects (more than its 12-byte header)."""
    return lambda: any(p.stat().st_size > 4096 for p in _temp_packs(repo) if p.exists())


def _dead_pid() -> int:
    """The id of a process that has exited (a pid nobody else holds for a while)."""
    proc = subprocess.Popen(["true"])
    proc.wait()
    return proc.pid


def _import_file(gm, repo: Path, label: str, count: int) -> subprocess.CompletedProcess:
    path = repo.parent / f"{label}.jsonl"
    path.write_bytes(_lines(label, count))
    return gm("import", "--format", "jsonl", str(path), cwd=repo)


def _wait_unlocked(path: Path, seconds: float = 20.0) -> None:
    deadline = time.monotonic() + seconds
    with open(path, "rb") as handle:
        while True:
            try:
                fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                assert time.monotonic() < deadline, f"{path} still locked"
                time.sleep(0.05)
                continue
            fcntl.flock(handle, fcntl.LOCK_UN)
            return


def test_killed_import_leaves_a_temp_pack_doctor_reports_and_next_import_removes(
        gm, git_repo: Path) -> None:
    proc = _start_import(git_repo, _lines("killed", AHEAD + 500))
    _wait(_writing(git_repo), proc)
    os.killpg(proc.pid, signal.SIGKILL)  # the import and its workers, mid-write
    proc.wait()
    left = _temp_packs(git_repo)
    assert len(left) == 1 and left[0].stat().st_size > 4096  # git runs git-memory: its pid
    # SIGKILL is sent, but a worker of the group may still be exiting (its copy of the
    # pack's lock not yet closed) on a loaded machine: wait until the lock is free.
    _wait_unlocked(left[0])
    # A small state file a killed writer left too (sync's screen record, mid-rename).
    state = git_repo / ".git" / "git-memory" / f"incoming.json.{_dead_pid()}.tmp"
    state.parent.mkdir(exist_ok=True)
    state.write_text("{}", encoding="utf-8")

    result = gm("doctor", "--json", cwd=git_repo)
    assert result.returncode == 1
    report = json.loads(out(result))["leftovers"]
    assert [item["path"] for item in report] == [str(p) for p in left] + [str(state)]
    assert [item["bytes"] for item in report] == [p.stat().st_size for p in left] + [2]
    assert report[0]["remove"] == f"rm -f -- {left[0]}"
    assert report[0]["what"] == "a temporary pack a killed import left"
    lines = out(gm("doctor", cwd=git_repo)).splitlines()
    shown = [ln for ln in lines if ln.startswith(f"stale {left[0]} (")]
    assert len(shown) == 1 and " kB): a temporary pack a killed import left; the next" in shown[0]
    assert shown[0].endswith(f"removes it, or: rm -f -- {left[0]}")
    # The command doctor gives removes it.
    subprocess.run(report[-1]["remove"], shell=True, check=True)
    assert not state.exists()

    result = _import_file(gm, git_repo, "after", 3)
    assert result.returncode == 0, err(result)
    assert _temp_packs(git_repo) == []
    after = json.loads(out(gm("doctor", "--json", cwd=git_repo)))
    assert after["leftovers"] == []
    listed = json.loads(out(gm("list", "--json", cwd=git_repo)))
    assert len(listed) == 3  # the killed import committed nothing


def test_a_live_imports_temp_pack_is_not_removed_by_a_concurrent_import(
        gm, git_repo: Path) -> None:
    data = _lines("live", AHEAD + 2000)
    cut = data.index(b"live fact %d " % (AHEAD + 1000)) - len(b'{"type": "learned", "content": "')
    proc = _start_import(git_repo, data[:cut])  # the read-ahead and 1,000 lines more
    _wait(_writing(git_repo), proc)
    live = _temp_packs(git_repo)
    assert len(live) == 1
    report = json.loads(out(gm("doctor", "--json", cwd=git_repo)))
    assert report["leftovers"] == []  # locked by a live writer: not a leftover

    result = _import_file(gm, git_repo, "beside", 5)
    assert result.returncode == 0, err(result)
    assert live[0].exists() and proc.poll() is None  # still there, still being written

    stdout, stderr = proc.communicate(data[cut:], timeout=300)
    assert proc.returncode == 0, stderr.decode()
    assert f"imported {AHEAD + 2000},".encode() in stdout
    assert _temp_packs(git_repo) == []
    listed = json.loads(out(gm("list", "--json", cwd=git_repo)))
    assert len(listed) == AHEAD + 2000 + 5


def test_stale_means_writer_gone_and_pack_unlocked(git_repo: Path, monkeypatch) -> None:
    """The rule itself, on real files: a pack whose writer's pid is dead is stale; a pack
    held by a live writer (this process's lock, taken by another descriptor as a writer
    in another process would hold it) never is, however old; an unlocked pack whose pid
    lives (a reused pid) is stale once silent for STALE_AGE."""
    monkeypatch.chdir(git_repo)
    dirs = discover()
    folder = git_repo / ".git" / "objects" / "pack"
    folder.mkdir(parents=True, exist_ok=True)
    dead = folder / f"{leftovers.PACK_PREFIX}{_dead_pid()}_1a"
    reused = folder / f"{leftovers.PACK_PREFIX}1_2b"  # pid 1 is alive (init): a reused pid
    held = folder / f"{leftovers.PACK_PREFIX}1_3c"
    for path in (dead, reused, held):
        path.write_bytes(b"PACK" + bytes(8))
    old = time.time() - leftovers.STALE_AGE - 60
    fd = os.open(held, os.O_RDONLY)
    try:
        leftovers.lock(fd)
        assert {item.path for item in leftovers.find(dirs)} == {dead}
        for path in (reused, held):
            os.utime(path, (old, old))
        assert {item.path for item in leftovers.find(dirs)} == {dead, reused}
        assert {item.path for item in leftovers.remove(dirs)} == {dead, reused}
        assert held.exists() and not dead.exists() and not reused.exists()
    finally:
        os.close(fd)
    assert [item.path for item in leftovers.find(dirs)] == [held]  # its writer let go

"""Optional distillation through a real detached worker, a real lock and a fake LLM command.

Only the LLM is replaced: by small Python scripts given as `memory.distillCommand`.
The queue, the detached worker, the fcntl lock, the subprocess timeout and the
parsing of what the command prints are the real code paths.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

from conftest import err, git, out
from agents_support import _lines, _with_two_learned, _write
from agents_support import _reinforce_files, _session_copy

FAKE = r'''
import json, os, sys, time
here = os.path.dirname(os.path.abspath(__file__))
data = sys.stdin.read()
with open(os.path.join(here, "calls.log"), "a") as log:
    log.write(f"start {os.getpid()} {time.time()} {len(data)}\n")
open(os.path.join(here, "stdin-%d.txt" % os.getpid()), "w").write(data)
if "HANG-PLEASE" in data:
    open(os.path.join(here, "hung.pid"), "w").write(str(os.getpid()))
    time.sleep(3600)
while os.path.exists(os.path.join(here, "hold")):
    time.sleep(0.05)
time.sleep(float(os.environ.get("FAKE_DELAY", "0.3")))
sid = data.split("Session ", 1)[1].split()[0][:8]
print("Sure! Here is what I distilled from the session:\n")
print("```json")
print(json.dumps({
    "decisions": [{"content": f"Keep work docs apart from dev docs ({sid})",
                   "rationale": "they age differently"}],
    "failures": [{"content": f"The first split lost links ({sid})",
                  "prevention": "Check relative links after moving files"}],
    "learnings": [f"Reviewers read dev-docs first ({sid})"],
    "handoff": ["Move the two stale files"],
}))
print("```\nLet me know if you need anything else.")
with open(os.path.join(here, "calls.log"), "a") as log:
    log.write(f"end {os.getpid()} {time.time()}\n")
'''


def _setup(repo: Path, tmp: Path, timeout: int = 60) -> Path:
    fake_dir = tmp / "fake"
    fake_dir.mkdir()
    (fake_dir / "llm.py").write_text(FAKE, encoding="utf-8")
    git("config", "memory.distillCommand", f"{sys.executable} {fake_dir / 'llm.py'}", cwd=repo)
    git("config", "memory.distillTimeout", str(timeout), cwd=repo)
    git("config", "memory.distillMinMessages", "2", cwd=repo)
    git("config", "memory.distillMinUserChars", "10", cwd=repo)
    git("config", "memory.distillMaxChars", "3000", cwd=repo)
    return fake_dir


def _wait(predicate, seconds: float = 60) -> bool:
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        if predicate():
            return True
        time.sleep(0.05)
    return False


def _distill_dir(repo: Path) -> Path:
    return repo / ".git" / "git-memory" / "distill"


def _hook(gm, path: Path, repo: Path, event: str = "Stop"):
    payload = {"session_id": "x", "transcript_path": str(path), "cwd": str(repo),
               "hook_event_name": event}
    return gm("session", "hook", input=json.dumps(payload))


def _distilled(gm) -> list[dict]:
    return [e for e in json.loads(out(gm("list", "--json"))) if e["source"] == "distill"]


def test_fenced_json_becomes_needs_review_entries_and_the_hook_does_not_wait(git_repo, gm,
                                                                             tmp_path):
    fake = _setup(git_repo, tmp_path)
    (fake / "hold").write_text("")  # the fake LLM waits until this file is gone
    copy = _with_two_learned(tmp_path)
    result = _hook(gm, copy, git_repo)
    assert result.returncode == 0, err(result)
    assert "queued for distillation" in err(result)
    # The hook has returned while the command is still held: it only queued.
    assert _wait(lambda: (fake / "calls.log").exists())
    assert _distilled(gm) == []
    (fake / "hold").unlink()
    assert _wait(lambda: len(_distilled(gm)) == 4)
    entries = _distilled(gm)
    assert {e["status"] for e in entries} == {"needs_review"}
    assert sorted(e["type"] for e in entries) == ["decision", "failure", "handoff", "learned"]
    failure = next(e for e in entries if e["type"] == "failure")
    assert failure["fields"]["prevention"] == "Check relative links after moving files"
    assert all(e["origin"]["session"] == "03eb5929-52b3-4b13-ada3-b93ae35806b8" for e in entries)
    shown = out(gm("context"))
    assert "Move the two stale files" in shown and "not reviewed yet" in shown
    assert "Check relative links after moving files (id" in shown and "unreviewed" in shown
    sent = next(fake.glob("stdin-*.txt")).read_text()
    assert len(sent) <= 3000  # memory.distillMaxChars
    assert "USER: Ok, so there's isn't much to see here" in sent
    assert "ls -la /home/user/project/" not in sent  # no tool payloads
    assert _wait(lambda: not list((_distill_dir(git_repo) / "queue").glob("*.json")))
    # The same session with nothing new is not queued again.
    assert "queued" not in err(_hook(gm, copy, git_repo))


def test_debounce_and_session_end(git_repo, gm, tmp_path):
    _setup(git_repo, tmp_path)
    copy = _with_two_learned(tmp_path)
    assert "queued" in err(_hook(gm, copy, git_repo))
    records = _lines(copy)
    base = next(r for r in records if r.get("type") == "user")
    _write(copy, records + [{**base, "message": {"role": "user", "content": "one more thing"}}])
    assert "queued" not in err(_hook(gm, copy, git_repo))  # debounced (600 s default)
    assert "queued" in err(_hook(gm, copy, git_repo, "SessionEnd"))  # the last word always goes
    assert _wait(lambda: not list((_distill_dir(git_repo) / "queue").glob("*.json")))


def test_a_hanging_command_times_out_and_the_queue_moves_on(git_repo, gm, tmp_path):
    fake = _setup(git_repo, tmp_path, timeout=2)
    hanging = _session_copy(tmp_path, "aaaaaaaa-hang", "HANG-PLEASE now")
    fine = _session_copy(tmp_path, "bbbbbbbb-fine")
    assert "queued" in err(_hook(gm, hanging, git_repo))
    assert "queued" in err(_hook(gm, fine, git_repo))
    assert _wait(lambda: len(_distilled(gm)) == 4)
    assert all("(bbbbbbbb)" in e["content"] or e["type"] == "handoff" for e in _distilled(gm))
    failed = _distill_dir(git_repo) / "failed"
    assert _wait(lambda: any(failed.glob("*.reason")))
    reason = next(failed.glob("*.reason")).read_text()
    assert "timed out after 2s" in reason
    pid = int((fake / "hung.pid").read_text())
    assert _wait(lambda: not Path(f"/proc/{pid}").exists() or
                 Path(f"/proc/{pid}/stat").read_text().split()[2] == "Z", 10)


def test_a_poison_task_is_moved_aside_and_never_blocks(git_repo, gm, tmp_path):
    _setup(git_repo, tmp_path)
    queue = _distill_dir(git_repo) / "queue"
    queue.mkdir(parents=True)
    (queue / "0-poison.json").write_text("{this is not json")
    (queue / "1-nopath.json").write_text(json.dumps({"session_id": "x"}))
    (queue / "2-missing.json").write_text(json.dumps({"transcript_path": str(tmp_path / "no")}))
    good = _session_copy(tmp_path, "cccccccc-good")
    (queue / "3-good.json").write_text(json.dumps({"transcript_path": str(good)}))
    for number, name in enumerate(sorted(queue.iterdir())):
        os.utime(name, (1000 + number, 1000 + number))  # oldest first: the poison goes first
    result = gm("session", "worker")
    assert result.returncode == 0, err(result)
    assert "failed 0-poison.json" in out(result) and "done 3-good.json" in out(result)
    assert len(_distilled(gm)) == 4
    assert list(queue.iterdir()) == []
    failed = sorted(p.name for p in (_distill_dir(git_repo) / "failed").glob("*.json"))
    assert len(failed) == 3


def test_two_workers_never_run_at_once(git_repo, gm, tmp_path):
    fake = _setup(git_repo, tmp_path)
    queue = _distill_dir(git_repo) / "queue"
    queue.mkdir(parents=True)
    for n in range(3):
        path = _session_copy(tmp_path, f"{n}ddddddd-x")
        (queue / f"{n}.json").write_text(json.dumps({"transcript_path": str(path)}))
    (fake / "hold").write_text("")
    cmd = ["git", "memory", "session", "worker"]
    first = subprocess.Popen(cmd, cwd=git_repo, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    assert _wait(lambda: (fake / "calls.log").exists())  # the first worker is inside a task
    second = subprocess.run(cmd, cwd=git_repo, capture_output=True, timeout=60)
    assert second.returncode == 0
    assert "another worker holds the lock" in second.stdout.decode()
    racers = [subprocess.Popen(cmd, cwd=git_repo, stdout=subprocess.PIPE) for _ in range(2)]
    (fake / "hold").unlink()
    first.communicate(timeout=120)
    for racer in racers:
        racer.communicate(timeout=120)
    events = [line.split() for line in (fake / "calls.log").read_text().splitlines()]
    assert [e[0] for e in events] == ["start", "end"] * 3  # strictly one command at a time
    # The three sessions say the same three things, their session ids aside (near
    # duplicates by curate's measure): the first session's entries are added, the other
    # two reinforce them; the shared handoff text is stored once.
    assert len(_distilled(gm)) == 4
    assert len(_reinforce_files(git_repo)) == 6


def test_gates_keep_small_and_headless_sessions_out_of_the_queue(git_repo, gm, tmp_path):
    _setup(git_repo, tmp_path)
    copy = _with_two_learned(tmp_path)
    git("config", "memory.distillMinUserChars", "100000", cwd=git_repo)
    result = _hook(gm, copy, git_repo)
    assert result.returncode == 0 and "2 new" in err(result)  # capture still happens
    assert "queued" not in err(result)
    git("config", "memory.distillMinUserChars", "10", cwd=git_repo)
    git("config", "memory.distillMinMessages", "1000", cwd=git_repo)
    assert "queued" not in err(_hook(gm, copy, git_repo))
    git("config", "memory.distillMinMessages", "2", cwd=git_repo)
    from agents_support import HEADLESS
    assert "queued" not in err(_hook(gm, HEADLESS[0], git_repo))
    assert not list((_distill_dir(git_repo) / "queue").glob("*.json"))
    assert "queued" in err(_hook(gm, copy, git_repo))  # the gates, not the setup, held it back
    assert _wait(lambda: not list((_distill_dir(git_repo) / "queue").glob("*.json")))

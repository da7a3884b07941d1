"""Optional distillation: a queue, a detached single worker, a command with a timeout.

The Stop hook only decides and drops one task file per session in `distill/queue/`. The
worker (one per repository: an fcntl lock) claims a task by renaming it into `running/`
and files one that fails under `failed/` with the reason, so a poison task never blocks the
queue; with the queue empty it unlocks and looks once more, so no late task is stranded.
"""

from __future__ import annotations

import fcntl
import hashlib
import json
import os
import signal
import subprocess
import time
from contextlib import closing
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

from git_memory.agents import distill_io, distill_known, settings, detached
from git_memory.agents.gitinfo import current_branch
from git_memory.agents.session_capture import gate
from git_memory.agents.transcript import Transcript, read_transcript
from git_memory.errors import BadInput, GitMemoryError
from git_memory.index.db import open_index
from git_memory.index.entries import by_key
from git_memory.model import Record, new_id, utc_now
from git_memory.sanitize.scan import mask, redact_string
from git_memory.store.branch import MemoryBranch
from git_memory.store.locate import GitDirs
from git_memory.write.append import NewEntry, write_entries


Log = Callable[[str], None]


def root(dirs: GitDirs) -> Path:
    return dirs.memory_dir / "distill"


def _dir(dirs: GitDirs, name: str) -> Path:
    path = root(dirs) / name
    path.mkdir(parents=True, exist_ok=True)
    return path


def _safe(name: str) -> str:
    return "".join(c if c.isalnum() or c in "-_." else "_" for c in name)[:120] or "session"


def _write_json(path: Path, value: Any) -> None:
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    tmp.write_text(json.dumps(value), encoding="utf-8")
    os.replace(tmp, path)


def should_queue(dirs: GitDirs, transcript: Transcript, event: str | None) -> str | None:
    """Why this session is not distilled now, or None."""
    reason = gate(dirs, transcript, "distillMinMessages", "distillMinUserChars")
    if reason:
        return reason
    state_file = _dir(dirs, "state") / f"{_safe(transcript.session_id or '')}.json"
    try:
        state = json.loads(state_file.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    if state.get("messages") == transcript.message_count:
        return "nothing new since the last distillation"
    waited = time.time() - float(state.get("queued", 0))
    if event != "SessionEnd" and waited < settings.get_int(dirs, "distillDebounce"):
        return f"debounced (queued {int(waited)}s ago)"
    return None


def queue(dirs: GitDirs, transcript: Transcript, transcript_path: str, cwd: str | None,
          event: str | None) -> Path:
    sid = _safe(transcript.session_id or Path(transcript_path).stem)
    task = {"session_id": transcript.session_id, "transcript_path": transcript_path,
            "cwd": cwd, "event": event, "queued": time.time()}
    path = _dir(dirs, "queue") / f"{sid}.json"
    _write_json(path, task)
    _write_json(_dir(dirs, "state") / f"{sid}.json",
                {"queued": time.time(), "messages": transcript.message_count})
    return path


def start_worker(dirs: GitDirs) -> int:
    """Start a detached worker (it exits at once when another one holds the lock)."""
    return detached.start(dirs, ["session", "worker"], root(dirs) / "worker.log")


def _lock(dirs: GitDirs) -> Any:
    handle = open(root(dirs) / "worker.lock", "a+")
    try:
        fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        handle.close()
        return None
    handle.seek(0)
    handle.truncate()
    handle.write(str(os.getpid()))
    handle.flush()
    return handle


def run_worker(dirs: GitDirs, log: Log = lambda _: None) -> bool:
    """Drain the queue; False when another worker held the lock."""
    ran = False
    _dir(dirs, "queue")
    while True:
        handle = _lock(dirs)
        if handle is None:
            return ran
        ran = True
        with handle:  # closing the file releases its flock
            _drain(dirs, log)
        if not any(_dir(dirs, "queue").glob("*.json")):
            return ran


def _drain(dirs: GitDirs, log: Log) -> None:
    while True:
        tasks = sorted(_dir(dirs, "queue").glob("*.json"), key=lambda p: p.stat().st_mtime)
        if not tasks:
            return
        claimed = _dir(dirs, "running") / tasks[0].name
        try:
            os.replace(tasks[0], claimed)
        except FileNotFoundError:
            continue
        try:
            result = process(dirs, claimed)
        except (GitMemoryError, OSError, ValueError, subprocess.SubprocessError) as exc:
            reason = mask(str(exc))  # the worker log and failed/*.reason hold no secret
            _fail(dirs, claimed, reason)
            log(f"failed {claimed.name}: {reason}")
            continue
        claimed.unlink(missing_ok=True)
        log(f"done {claimed.name}: {result.added} entr{'y' if result.added == 1 else 'ies'}"
            f" added, {result.reinforced} reinforced, {result.dropped} already recorded")


def _fail(dirs: GitDirs, claimed: Path, reason: str) -> None:
    target = _dir(dirs, "failed") / f"{int(time.time())}-{claimed.name}"
    os.replace(claimed, target)
    target.with_name(target.name + ".reason").write_text(reason + "\n", encoding="utf-8")


def run_command(dirs: GitDirs, command: str, text: str) -> str:
    """Run the configured command with `text` on stdin; its stdout, or raise on failure."""
    timeout = settings.get_int(dirs, "distillTimeout") or 1
    proc = subprocess.Popen(
        command, shell=True, cwd=str(dirs.work_tree or dirs.git_dir),
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
        start_new_session=True,  # its own process group, so a timeout kills it all
    )
    try:
        out, errs = proc.communicate(text.encode("utf-8"), timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.communicate()
        raise BadInput(f"the distill command timed out after {timeout}s") from None
    if proc.returncode != 0:
        tail = errs.decode("utf-8", "replace").strip().splitlines()[-1:] or [""]
        # The command's own words go to the worker log and failed/*.reason: no secret there.
        line = mask(tail[0])[:200]
        raise BadInput(f"the distill command failed (exit {proc.returncode}) {line}")
    return out.decode("utf-8", "replace")


@dataclass
class Distilled:
    added: int = 0
    reinforced: int = 0  # existing entries a distilled item duplicated
    dropped: int = 0  # items this session had recorded already (no reinforcement)


def process(dirs: GitDirs, task_path: Path) -> Distilled:
    """Distil one claimed task: add the new items, reinforce the entries they repeat."""
    task = json.loads(task_path.read_text(encoding="utf-8"))
    if not isinstance(task, dict) or not isinstance(task.get("transcript_path"), str):
        raise BadInput("task file has no transcript_path")
    command = settings.get_str(dirs, "distillCommand")
    if command is None:
        raise BadInput("memory.distillCommand is not set")
    transcript = read_transcript(task["transcript_path"])
    branch = transcript.branch or current_branch(dirs)
    cap = settings.get_int(dirs, "distillMaxChars")
    known = _nearest(dirs, transcript, cap)
    text = distill_io.summary(transcript, branch, cap, distill_known.block(known))
    result = distill_io.parse_output(run_command(dirs, command, text))
    sid = transcript.session_id or "unknown"
    origin = {k: v for k, v in {"session": sid, "branch": branch,
                                "cwd": task.get("cwd") or transcript.cwd}.items() if v}
    items, repeats, done = _split(dirs, distill_io.entries(result, sid, origin), known, sid)
    added: list[Record] = []
    if items:
        # Nobody reviews the command's output before it is written: a secret in it is
        # replaced by [REDACTED:rule] and logged, never refused (the rest is still worth keeping).
        outcome = write_entries(dirs, items, f"memory: distil session {redact_string(sid[:8])[0]}",
                                reinforce_duplicates=False, strict=False, redact_secrets=True)
        added = outcome.added
    _record(dirs, added, repeats, sid)
    return Distilled(len(added), len(repeats), done)


def _nearest(dirs: GitDirs, transcript: Transcript, cap: int) -> list[distill_known.Known]:
    """The entries nearest the session, within the configured budget."""
    count = settings.get_int(dirs, "distillKnownEntries")
    chars = min(settings.get_int(dirs, "distillKnownChars"), cap // 4)
    with closing(open_index(dirs)) as index:
        return distill_known.nearest(index, transcript, count, chars)


def _split(
    dirs: GitDirs, items: list[NewEntry], known: list[distill_known.Known], sid: str
) -> tuple[list[NewEntry], dict[str, str], int]:
    """(items to add, {existing id: why} to reinforce, how many were dropped). An item whose
    key is known already, or a handoff (open items, not knowledge), is left to the writer."""
    fresh: list[NewEntry] = []
    repeats: dict[str, str] = {}
    dropped = 0
    with closing(open_index(dirs)) as index:
        for item in items:
            found = None
            if item.type != "handoff" and not (item.key and by_key(index, item.key)):
                found = distill_known.match(index, item.content, known, sid)
            if found is None:
                fresh.append(item)
            elif not found.reinforce:
                dropped += 1
            elif by_key(index, _reinforce_key(sid, found.target)) is None:
                repeats.setdefault(found.target, found.why)
    return fresh, repeats, dropped


def _reinforce_key(sid: str, target: str) -> str:
    """One reinforcement per session and entry, however often the session is distilled.
    (A hash of the id, not the id: the secret scanner takes a bare ULID in a key for a token.)"""
    return f"distill-{sid}-reinforce-{hashlib.sha1(target.encode()).hexdigest()[:16]}"


def _record(dirs: GitDirs, added: list[Record], repeats: dict[str, str], sid: str) -> None:
    """Status records saying the distilled entries wait for a human (they carry the status
    already; the records make the fold agree whatever the index does with a status an entry
    is born with), and a reinforce record for each entry the session repeated: one commit."""
    if not added and not repeats:
        return
    branch = MemoryBranch(dirs)
    author = branch.author()
    session = redact_string(sid[:8])[0]
    events = [
        Record(id=new_id(), kind="status", created=utc_now(), author=author, source="distill",
               fields={"target": entry.id, "status": "needs_review",
                       "review_reason": "distilled by memory.distillCommand; accept or drop it"})
        for entry in added
    ]
    events += [
        Record(id=new_id(), kind="reinforce", created=utc_now(), author=author, source="distill",
               key=_reinforce_key(sid, target),
               fields={"target": target,
                       "review_reason": f"distilled again from session {session} ({why})"})
        for target, why in repeats.items()
    ]
    parts = [f"{len(added)} distilled entries need review"] if added else []
    parts += [f"{len(repeats)} reinforced"] if repeats else []
    branch.append(events, "memory: " + ", ".join(parts))

"""`git memory session import|hook|search|worker`: capture from agent transcripts."""

from __future__ import annotations

import json
import os
import sys
import time
from pathlib import Path
from typing import Any

import click

from git_memory import ui
from git_memory.agents import distill, settings
from git_memory.agents.session_capture import CaptureResult
from git_memory.api.memory import Memory
from git_memory.cli import options
from git_memory.errors import BadInput, GitMemoryError
from git_memory.sanitize.scan import mask
from git_memory.store.locate import discover

MAX_PAYLOAD = 1_000_000


@click.group("session")
def session_cmd() -> None:
    """Capture knowledge from agent transcripts (Claude Code) and search archived sessions."""


def _summary(result: CaptureResult) -> dict[str, Any]:
    return {
        "session": result.session_id,
        "path": result.path,
        "skipped": result.skipped,
        "found": result.found,
        "added": [r.id for r in result.added],
        "known": result.known,
        "rejected": [{"label": lab, "reason": why} for lab, why in result.rejected],
        "redacted": result.redacted,
        "archived": result.archived,
    }


def _line(result: CaptureResult) -> str:
    sid = (result.session_id or "?")[:8]
    if result.skipped:
        return f"skipped {sid}: {result.skipped}"
    text = f"imported {sid}: {len(result.added)} new, {result.known} already known"
    if result.redacted:
        text += f", {len(result.redacted)} with a secret replaced by [REDACTED:rule]"
    if result.rejected:
        text += f", {len(result.rejected)} refused ({result.rejected[0][1]})"
    return text


def _expand(paths: list[str]) -> list[Path]:
    """Files as given; a directory stands for every transcript under it."""
    files: list[Path] = []
    for name in paths:
        path = Path(name)
        if path.is_dir():
            files.extend(sorted(path.rglob("*.jsonl")))
        elif path.is_file():
            files.append(path)
        else:
            raise BadInput(f"{name}: no such transcript file or directory")
    return files


@session_cmd.command("import")
@click.argument("paths", metavar="PATH...", nargs=-1, required=True)
@options.as_json()
def session_import_cmd(paths: tuple[str, ...], as_json: bool) -> int:
    """Capture markers from transcript files (or every *.jsonl under a directory, such as
    ~/.claude/projects/NAME) and archive the sessions; importing again adds only what is new."""
    with Memory() as memory:
        results = [memory.import_transcript(path) for path in _expand(list(paths))]
    if as_json:
        ui.out_json([_summary(r) for r in results])
    else:
        for result in results:
            ui.out(_line(result))
    return 0


def _payload() -> dict[str, Any]:
    raw = sys.stdin.buffer.read(MAX_PAYLOAD + 1)
    if len(raw) > MAX_PAYLOAD:
        raise BadInput("hook payload is too large")
    try:
        data = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, ValueError):
        raise BadInput("hook payload on stdin is not JSON") from None
    if not isinstance(data, dict) or not isinstance(data.get("transcript_path"), str):
        raise BadInput("hook payload has no transcript_path")
    return data


def _log(dirs: Any, line: str) -> None:
    """Keep hook failures in `<git common dir>/git-memory/session-hook.log` too."""
    if dirs is None:
        return
    try:
        dirs.memory_dir.mkdir(parents=True, exist_ok=True)
        stamp = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
        with open(dirs.memory_dir / "session-hook.log", "a", encoding="utf-8") as handle:
            handle.write(f"{stamp} {mask(line)}\n")  # an error may quote what it choked on
    except OSError:
        pass


@session_cmd.command("hook")
def session_hook_cmd() -> int:
    """Run from a Claude Code Stop/SessionEnd hook: reads the hook's JSON on stdin."""
    # Capture from the transcript a Claude Code hook names; never fail the session.
    started = time.monotonic()
    dirs = None
    try:
        data = _payload()
        cwd = data.get("cwd") if isinstance(data.get("cwd"), str) else None
        dirs = discover(cwd if cwd and os.path.isdir(cwd) else None)
        path = os.path.expanduser(data["transcript_path"])
        if not Path(path).is_file():
            raise BadInput(f"{path}: transcript not found")
        event = data.get("hook_event_name")
        mode = "always" if event == "SessionEnd" else "missing"
        result = Memory.at(dirs).import_transcript(path, archive=mode)
        note = ""
        if settings.get_str(dirs, "distillCommand") and result.transcript is not None:
            reason = distill.should_queue(dirs, result.transcript, event)
            if reason is None:
                distill.queue(dirs, result.transcript, path, cwd, event)
                distill.start_worker(dirs)
                note = ", queued for distillation"
        elapsed = (time.monotonic() - started) * 1000
        ui.warn(f"git-memory: {_line(result)}{note} ({elapsed:.0f} ms)")
    except GitMemoryError as exc:
        ui.warn(f"git-memory: session hook: {exc}")
        _log(dirs, f"error: {exc}")
    except Exception as exc:  # a hook must never break the agent's session
        ui.warn(f"git-memory: session hook: failed ({exc.__class__.__name__}: {exc})")
        _log(dirs, f"unexpected {exc.__class__.__name__}: {exc}")
    return 0


def run_search(query: str, *, limit: int, as_json: bool) -> int:
    with Memory() as memory:
        hits = memory.sessions(query, limit=limit)
    if as_json:
        ui.out_json(hits)
        return 0
    if not hits:
        ui.warn("no archived session matched")
        return 0
    for hit in hits:
        ui.out(f"{hit['session'][:8]}  {hit['title'][:70]}\n    {hit['snippet']}")
    return 0


@session_cmd.command("worker", hidden=True)
def session_worker_cmd() -> int:
    """Drain the distillation queue (started detached by the session hook)."""
    dirs = discover()
    stamp = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
    ran = distill.run_worker(dirs, log=lambda line: ui.out(f"{stamp} [{os.getpid()}] {line}"))
    if not ran:
        ui.out(f"{stamp} [{os.getpid()}] another worker holds the lock; leaving it the queue")
    return 0


@session_cmd.command("search")
@click.argument("query")
@options.limit("At most this many.", default=10)
@options.as_json()
def session_search_cmd(query: str, limit: int, as_json: bool) -> int:
    """Search the archived sessions (refs/memory/sessions)."""
    return run_search(query, limit=limit, as_json=as_json)

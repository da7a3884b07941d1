"""Run our installed agent hooks the way each agent would, for `doctor`: `sh -c COMMAND` in
the work tree, only a minimal PATH (as under `env -i`), and a harmless payload on stdin (a
Stop names an empty transcript, which the short-session gate skips: nothing is written).
"""

from __future__ import annotations

import json
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path

from git_memory.agents import integrations
from git_memory.agents.integrations import SCOPES, FoundHook, shared
from git_memory.errors import GitMemoryError

MINIMAL_PATH = "/usr/bin:/bin"
TIMEOUT = 30  # seconds; the agents' own limits are 15 and 60


@dataclass
class HookCheck:
    scope: str
    event: str
    command: str
    problem: str | None  # None when the hook ran as the agent needs
    agent: str


def _payload(event: str, args: tuple[str, ...], cwd: Path, transcript: Path) -> str:
    data: dict[str, object] = {"session_id": "git-memory-doctor", "cwd": str(cwd),
                               "transcript_path": str(transcript)}
    if args[:1] == ("context",):
        data.update(hook_event_name="SessionStart", source="startup")
    else:  # a Stop, even for SessionEnd: Stop archives nothing for a skipped session
        data.update(hook_event_name="Stop", stop_hook_active=False)
    return json.dumps(data)


def _first_line(text: str) -> str:
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    return lines[0][:200] if lines else ""


def _judge(args: tuple[str, ...], result: subprocess.CompletedProcess) -> str | None:
    if result.returncode != 0:
        detail = _first_line(result.stderr) or _first_line(result.stdout)
        return f"exited {result.returncode}" + (f": {detail}" if detail else "")
    if args[:1] == ("context",) and result.stdout.strip():
        try:
            printed = json.loads(result.stdout)
        except ValueError:
            return f"printed something other than hook JSON: {_first_line(result.stdout)}"
        fmt = args[-1]  # the agent whose JSON shape `context --format` printed
        if not isinstance(printed, dict) or set(printed) != set(
                integrations.get(fmt).hook_output("")):
            return f"printed JSON {fmt} does not read: {_first_line(result.stdout)}"
    if "failed (" in result.stderr or "Traceback" in result.stderr:
        return f"reported a failure: {_first_line(result.stderr)}"
    return None


def run_one(hook: FoundHook, cwd: Path) -> str | None:
    """Run one hook command as the agent would; the problem, or None when it works."""
    with tempfile.TemporaryDirectory(prefix="git-memory-doctor-") as tmp:
        transcript = Path(tmp) / "empty-session.jsonl"
        transcript.write_text("", encoding="utf-8")
        try:
            result = subprocess.run(
                ["/bin/sh", "-c", hook.command], cwd=cwd, env={"PATH": MINIMAL_PATH},
                input=_payload(hook.event, hook.args, cwd, transcript), capture_output=True,
                text=True, timeout=TIMEOUT,
            )
        except subprocess.TimeoutExpired:
            return f"did not finish within {TIMEOUT} s"
        except OSError as exc:
            return f"could not start: {exc.strerror}"
    return _judge(hook.args, result)


def check_all(work_tree: Path | None, cwd: Path) -> list[HookCheck]:
    """Every hook of ours each agent's files hold, project scope first; a command found
    twice in one file runs once."""
    checks: list[HookCheck] = []
    for scope in SCOPES if work_tree is not None else SCOPES[1:]:
        base = work_tree if scope == "project" and work_tree is not None else shared.home()
        for name in integrations.names():
            integration = integrations.get(name)
            try:
                found = integration.found(scope, base)
            except GitMemoryError as exc:  # doctor reports a broken file; it does not stop on it
                path = integration.files(scope, base)[-1].path  # its hooks file comes last
                checks.append(HookCheck(scope, "-", str(path), f"unreadable: {exc}", name))
                continue
            seen: dict[str, str | None] = {}
            for hook in found:
                if hook.command not in seen:
                    seen[hook.command] = run_one(hook, cwd)
                checks.append(HookCheck(scope, hook.event, hook.command, seen[hook.command], name))
    return checks

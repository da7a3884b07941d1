"""Run our installed Claude Code hooks the way the agent would, for `doctor`.

Each of our hook commands in the project and user settings runs as `sh -c COMMAND` in the
work tree with a clean environment (only `PATH=/usr/bin:/bin`, as `env -i` would leave it
plus a minimal PATH) and a harmless payload on stdin: a SessionStart for the context hook,
a Stop naming an empty transcript for the session hook (the short-session gate skips it,
so nothing is written). Reports what failed; never prints. May import agents.claude_settings,
errors and the standard library.
"""

from __future__ import annotations

import json
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path

from git_memory.agents import claude_settings
from git_memory.errors import GitMemoryError

MINIMAL_PATH = "/usr/bin:/bin"
TIMEOUT = 30  # seconds; the agent's own limits are 15 and 60


@dataclass
class HookCheck:
    scope: str
    event: str
    command: str
    problem: str | None  # None when the hook ran as the agent needs


def _settings_files(work_tree: Path | None) -> list[tuple[str, Path]]:
    files = [("user", claude_settings.settings_path("user", None))]
    if work_tree is not None:
        files.insert(0, ("project", claude_settings.settings_path("project", work_tree)))
    return files


def _payload(event: str, args: tuple[str, ...], cwd: Path, transcript: Path) -> str:
    data: dict[str, object] = {"session_id": "git-memory-doctor", "cwd": str(cwd),
                               "transcript_path": str(transcript)}
    if args == claude_settings.CONTEXT_ARGS:
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
    if args == claude_settings.CONTEXT_ARGS and result.stdout.strip():
        try:
            json.loads(result.stdout)
        except ValueError:
            return f"printed something other than hook JSON: {_first_line(result.stdout)}"
    if "failed (" in result.stderr or "Traceback" in result.stderr:
        return f"reported a failure: {_first_line(result.stderr)}"
    return None


def run_one(command: str, event: str, cwd: Path) -> str | None:
    """Run one hook command as the agent would; the problem, or None when it works."""
    args = claude_settings.our_args(command) or claude_settings.SESSION_ARGS
    with tempfile.TemporaryDirectory(prefix="git-memory-doctor-") as tmp:
        transcript = Path(tmp) / "empty-session.jsonl"
        transcript.write_text("", encoding="utf-8")
        try:
            result = subprocess.run(
                ["/bin/sh", "-c", command], cwd=cwd, env={"PATH": MINIMAL_PATH},
                input=_payload(event, args, cwd, transcript), capture_output=True,
                text=True, timeout=TIMEOUT,
            )
        except subprocess.TimeoutExpired:
            return f"did not finish within {TIMEOUT} s"
        except OSError as exc:
            return f"could not start: {exc.strerror}"
    return _judge(args, result)


def check_all(work_tree: Path | None, cwd: Path) -> list[HookCheck]:
    """Every one of our hooks in the project and user settings, each run once per command."""
    checks: list[HookCheck] = []
    for scope, path in _settings_files(work_tree):
        if not path.is_file():
            continue
        try:
            data = claude_settings.load(path)
        except GitMemoryError as exc:  # doctor reports a broken file; it does not stop on it
            checks.append(HookCheck(scope, "-", str(path), str(exc)))
            continue
        seen: dict[str, str | None] = {}
        for event, command in claude_settings.installed(data):
            if command not in seen:
                seen[command] = run_one(command, event, cwd)
            checks.append(HookCheck(scope, event, command, seen[command]))
    return checks

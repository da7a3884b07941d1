"""Run our installed agent hooks the way the agent would, for `doctor`.

Claude Code's hooks (its project and user settings) and the session-start hooks of
Cursor, VS Code and Codex (their hooks files, see `agents.agent_hooks`): each command runs as `sh -c COMMAND` in the
work tree with a clean environment (only `PATH=/usr/bin:/bin`, as `env -i` would leave it
plus a minimal PATH) and a harmless payload on stdin: a SessionStart for the context hook,
a Stop naming an empty transcript for the session hook (the short-session gate skips it,
so nothing is written). A context hook must print JSON in its agent's shape. Reports what
failed; never prints. May import agents.claude_settings, agents.agent_hooks,
agents.installers, errors and the standard library.
"""

from __future__ import annotations

import json
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path

from git_memory.agents import agent_hooks, claude_settings, installers
from git_memory.errors import GitMemoryError

MINIMAL_PATH = "/usr/bin:/bin"
TIMEOUT = 30  # seconds; the agent's own limits are 15 and 60


@dataclass
class HookCheck:
    scope: str
    event: str
    command: str
    problem: str | None  # None when the hook ran as the agent needs
    agent: str = "claude"


def _settings_files(work_tree: Path | None) -> list[tuple[str, Path]]:
    files = [("user", claude_settings.settings_path("user", None))]
    if work_tree is not None:
        files.insert(0, ("project", claude_settings.settings_path("project", work_tree)))
    return files


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
        agent = args[-1]
        if agent in agent_hooks.HOOK_AGENTS and (
                not isinstance(printed, dict)
                or set(printed) != set(agent_hooks.hook_output(agent, ""))):
            return f"printed JSON {agent} does not read: {_first_line(result.stdout)}"
    if "failed (" in result.stderr or "Traceback" in result.stderr:
        return f"reported a failure: {_first_line(result.stderr)}"
    return None


def run_one(command: str, event: str, cwd: Path, args: tuple[str, ...] | None = None
            ) -> str | None:
    """Run one hook command as the agent would; the problem, or None when it works."""
    args = args or claude_settings.our_args(command) or claude_settings.SESSION_ARGS
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
    return checks + _check_other_agents(work_tree, cwd)


def _check_other_agents(work_tree: Path | None, cwd: Path) -> list[HookCheck]:
    """Our session-start hook in each hooks file of Cursor, VS Code and Codex."""
    checks: list[HookCheck] = []
    for scope in ("project", "user") if work_tree is not None else ("user",):
        for agent in agent_hooks.HOOK_AGENTS:
            path = installers.plans(agent, scope, work_tree)[-1].path
            if not path.is_file():
                continue
            event = agent_hooks.EVENT[agent]
            try:
                data = json.loads(path.read_text(encoding="utf-8"))
                commands = agent_hooks.installed_commands(agent, data if isinstance(
                    data, dict) else {})
            except (OSError, ValueError, GitMemoryError) as exc:
                checks.append(HookCheck(scope, "-", str(path), f"unreadable: {exc}", agent))
                continue
            for command in commands:
                problem = run_one(command, event, cwd, agent_hooks.context_args(agent))
                checks.append(HookCheck(scope, event, command, problem, agent))
    return checks

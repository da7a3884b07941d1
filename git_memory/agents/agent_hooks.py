"""Session-start hooks of Cursor, VS Code and Codex: our entry in each agent's hooks file,
its merge and unmerge, and the JSON each agent reads from a SessionStart hook.

Shapes, from each agent's documentation (sources in docs/agents.md):
- Cursor `hooks.json`: `{"version": 1, "hooks": {"sessionStart": [{"command": ...}]}}`;
  the hook prints `{"additional_context": TEXT}`.
- VS Code `.github/hooks/*.json`: `{"hooks": {"SessionStart": [{"type": "command",
  "command": ..., "timeout": SECONDS}]}}` (flat: no matcher groups); prints
  `{"hookSpecificOutput": {"hookEventName": "SessionStart", "additionalContext": TEXT}}`.
- Codex `hooks.json`: Claude Code's nested shape (`{"hooks": {"SessionStart": [{"hooks":
  [{"type": "command", "command": ..., "timeout": SECONDS}]}]}}`); prints as VS Code.
Only the session-start context hook is installed: none of the three documents the format of
the transcript its hooks point at, so capture goes through the MCP server's `add` instead.
Ours are recognised by the command's shape (`<any python> -m git_memory context --format
AGENT`), so a second install adds nothing and one from another interpreter replaces ours.
Never prints. May import `agents.claude_settings`, `errors`.
"""

from __future__ import annotations

import json
import os
import select
import shlex
import sys
from typing import Any

from git_memory.agents import claude_settings
from git_memory.errors import BadInput

HOOK_AGENTS = ("cursor", "vscode", "codex")
EVENT = {"cursor": "sessionStart", "vscode": "SessionStart", "codex": "SessionStart"}
TIMEOUT = 15  # seconds, in all three (Cursor: documented default is fine, we set none)


def context_args(agent: str) -> tuple[str, ...]:
    return ("context", "--format", agent)


def hook_output(fmt: str, text: str) -> dict[str, Any]:
    """The JSON a SessionStart hook of agent `fmt` prints to hand `text` to the model."""
    if fmt == "cursor":
        return {"additional_context": text}
    return {"hookSpecificOutput": {"hookEventName": "SessionStart", "additionalContext": text}}


def payload_dir() -> str | None:
    """The folder a SessionStart hook's JSON on stdin names (`cwd`, else Cursor's first
    `workspace_roots`), for a hook the agent started outside the repository (a user-scope
    Cursor hook runs in ~/.cursor). None when stdin is a terminal, stays silent for a
    second, or names no folder: the hook must never hang or fail the session."""
    try:
        if sys.stdin.isatty() or not select.select([sys.stdin], [], [], 1.0)[0]:
            return None
        data = json.loads(sys.stdin.read() or "null")
    except (OSError, ValueError):
        return None
    if not isinstance(data, dict):
        return None
    roots = data.get("workspace_roots")
    found = data.get("cwd") or (roots[0] if isinstance(roots, list) and roots else None)
    return found if isinstance(found, str) and os.path.isdir(found) else None


def is_ours(agent: str, command: Any) -> bool:
    """True for our context hook for `agent`, from any interpreter."""
    if not isinstance(command, str):
        return False
    try:
        words = shlex.split(command)
    except ValueError:
        return False
    return len(words) == 6 and words[1:3] == ["-m", "git_memory"] and tuple(
        words[3:]) == context_args(agent)


def _our_hook(agent: str) -> dict[str, Any]:
    command = claude_settings.command_for(context_args(agent))
    if agent == "cursor":
        return {"command": command}
    return {"type": "command", "command": command, "timeout": TIMEOUT}


def _entries(agent: str, groups: list[Any]) -> list[tuple[int, int | None]]:
    """(group index, hook index or None for a flat entry) of ours in an event's list."""
    found: list[tuple[int, int | None]] = []
    for i, group in enumerate(groups):
        if not isinstance(group, dict):
            continue
        if agent == "codex":
            inner = group.get("hooks")
            for j, hook in enumerate(inner if isinstance(inner, list) else []):
                if isinstance(hook, dict) and is_ours(agent, hook.get("command")):
                    found.append((i, j))
        elif is_ours(agent, group.get("command")):
            found.append((i, None))
    return found


def _groups(data: dict[str, Any], agent: str, create: bool) -> list[Any] | None:
    hooks = data.get("hooks")
    if hooks is None and create:
        hooks = data["hooks"] = {}
    if hooks is None:
        return None
    if not isinstance(hooks, dict):
        raise BadInput("'hooks' is not an object; left the file unchanged")
    groups = hooks.get(EVENT[agent])
    if groups is None and create:
        groups = hooks[EVENT[agent]] = []
    if groups is not None and not isinstance(groups, list):
        raise BadInput(f"'hooks.{EVENT[agent]}' is not a list; left the file unchanged")
    return groups


def installed_commands(agent: str, data: dict[str, Any]) -> list[str]:
    """The commands of our hooks in a parsed hooks file (for doctor)."""
    groups = _groups(data, agent, create=False) or []
    return [str((groups[i] if j is None else groups[i]["hooks"][j])["command"])
            for i, j in _entries(agent, groups)]


def add(agent: str) -> Any:
    """The in-place change that puts our hook in (False when it is there as wanted)."""
    def change(data: dict[str, Any]) -> bool:
        wanted = _our_hook(agent)
        groups = _groups(data, agent, create=False) or []
        places = _entries(agent, groups)
        if len(places) == 1:
            i, j = places[0]
            if (groups[i] if j is None else groups[i]["hooks"][j]) == wanted:
                return False
        drop(agent)(data)  # another interpreter's or a duplicate: replaced by ours
        if agent == "cursor" and "version" not in data:
            data["version"] = 1  # the documented file carries its format version
        target = _groups(data, agent, create=True)
        assert target is not None
        target.append({"hooks": [wanted]} if agent == "codex" else wanted)
        return True
    return change


def drop(agent: str) -> Any:
    """The in-place change that takes our hook out, and the lists and objects it alone
    filled (the `version` key stays when anything else does)."""
    def change(data: dict[str, Any]) -> bool:
        groups = _groups(data, agent, create=False)
        if not groups:
            return False
        places = _entries(agent, groups)
        if not places:
            return False
        for i, j in reversed(places):
            if j is None:
                del groups[i]
            else:
                del groups[i]["hooks"][j]
                if not groups[i]["hooks"]:
                    del groups[i]
        hooks = data["hooks"]
        if not groups:
            del hooks[EVENT[agent]]
        if not hooks:
            del data["hooks"]
        if agent == "cursor" and set(data) == {"version"}:
            del data["version"]
        return True
    return change

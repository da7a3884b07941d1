"""Merge our hooks into a Claude Code `settings.json`, and take them out again.

Claude Code reads `hooks: {Event: [{matcher?, hooks: [{type: command, command}]}]}`.
We add one group per event holding our command. The command names the
interpreter that installed it by its absolute path (`/venv/bin/python -m
git_memory ...`), as the git hook shims do, because an agent runs hooks with its
own PATH, where `git memory` may not be found. Ours are recognised by the command's
shape (that interpreter or any other, or the older bare `git memory ...`), so
installing twice adds nothing, installing from another interpreter replaces ours,
and uninstalling removes only ours, leaving every other key, group and hook as it
was. The file is written
to a temporary file and renamed over the old one; a file that is not a JSON
object is refused and left untouched. Never prints.
"""

from __future__ import annotations

import json
import os
import shlex
import sys
from pathlib import Path
from typing import Any

from git_memory.errors import BadInput

CONTEXT_ARGS = ("context", "--format", "claude")
SESSION_ARGS = ("session", "hook")
# Event -> (our subcommand, timeout in seconds).
OUR_HOOKS: dict[str, tuple[tuple[str, ...], int]] = {
    "SessionStart": (CONTEXT_ARGS, 15),
    # Compaction replaces the conversation the model sees with a summary: capture first.
    "PreCompact": (SESSION_ARGS, 60),
    "Stop": (SESSION_ARGS, 60),
    "SessionEnd": (SESSION_ARGS, 60),
}


def command_for(args: tuple[str, ...], python: str | None = None) -> str:
    """The hook command: this interpreter, by absolute path, running our package."""
    interpreter = os.path.abspath(python or sys.executable)
    return " ".join(shlex.quote(word) for word in (interpreter, "-m", "git_memory", *args))


def our_args(command: str) -> tuple[str, ...] | None:
    """Our subcommand when `command` is one of our hooks (any interpreter), else None."""
    try:
        words = shlex.split(command)
    except ValueError:
        return None
    for args in (CONTEXT_ARGS, SESSION_ARGS):
        n = len(args)
        if len(words) == n + 2 and tuple(words[2:]) == args and words[:2] == ["git", "memory"]:
            return args  # the bare form older versions wrote
        if len(words) == n + 3 and tuple(words[3:]) == args and words[1:3] == ["-m", "git_memory"]:
            return args
    return None


def settings_path(scope: str, project_root: Path | None) -> Path:
    if scope == "user":
        return Path(os.path.expanduser("~")) / ".claude" / "settings.json"
    if project_root is None:
        raise BadInput("--scope project needs a repository with a working tree")
    return project_root / ".claude" / "settings.json"


def load(path: Path) -> dict[str, Any]:
    """The settings as a dict ({} when the file is missing or empty)."""
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return {}
    except (OSError, UnicodeDecodeError) as exc:
        raise BadInput(f"cannot read {path}: {exc}") from None
    if not text.strip():
        return {}
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise BadInput(f"{path} is not valid JSON (line {exc.lineno}); left it unchanged") from None
    if not isinstance(data, dict):
        raise BadInput(f"{path} is not a JSON object; left it unchanged")
    hooks = data.get("hooks")
    if hooks is not None and not isinstance(hooks, dict):
        raise BadInput(f"{path}: 'hooks' is not an object; left it unchanged")
    for event, groups in (hooks or {}).items():
        if not isinstance(groups, list):
            raise BadInput(f"{path}: hooks.{event} is not a list; left it unchanged")
    return data


def _is_ours(hook: Any) -> bool:
    return isinstance(hook, dict) and our_args(str(hook.get("command", ""))) is not None


def installed(data: dict[str, Any]) -> list[tuple[str, str]]:
    """(event, command) of each of our hooks in these settings, in file order."""
    found: list[tuple[str, str]] = []
    for event, groups in (data.get("hooks") or {}).items():
        for group in groups:
            inner = group.get("hooks") if isinstance(group, dict) else None
            for hook in inner if isinstance(inner, list) else []:
                if _is_ours(hook):
                    found.append((event, str(hook["command"]).strip()))
    return found


def merge(data: dict[str, Any], python: str | None = None) -> list[str]:
    """Add our hooks where missing, replacing ours for another interpreter (or the bare
    `git memory` form); return the events that changed."""
    wanted = {event: command_for(args, python) for event, (args, _) in OUR_HOOKS.items()}
    have: dict[str, list[str]] = {}
    for event, command in installed(data):
        have.setdefault(event, []).append(command)
    stale = [event for event in wanted if have.get(event, [wanted[event]]) != [wanted[event]]]
    _remove_ours(data, stale)
    hooks = data.setdefault("hooks", {})
    changed: list[str] = []
    for event, (_, timeout) in OUR_HOOKS.items():
        if have.get(event) == [wanted[event]]:
            continue
        hooks.setdefault(event, []).append(
            {"hooks": [{"type": "command", "command": wanted[event], "timeout": timeout}]})
        changed.append(event)
    return changed


def unmerge(data: dict[str, Any]) -> list[str]:
    """Remove our hooks (and the groups and events they alone filled)."""
    return _remove_ours(data, None)


def _remove_ours(data: dict[str, Any], events: list[str] | None) -> list[str]:
    """Remove our hooks from `events` (None: every event); return the events changed."""
    hooks = data.get("hooks")
    if not isinstance(hooks, dict):
        return []
    changed: list[str] = []
    for event in [e for e in hooks if events is None or e in events]:
        groups = hooks[event]
        kept_groups = []
        for group in groups:
            inner = group.get("hooks") if isinstance(group, dict) else None
            if not isinstance(inner, list) or not any(_is_ours(h) for h in inner):
                kept_groups.append(group)
                continue
            if event not in changed:
                changed.append(event)
            rest = [h for h in inner if not _is_ours(h)]
            if rest:
                kept_groups.append({**group, "hooks": rest})
        if event in changed:
            if kept_groups:
                hooks[event] = kept_groups
            else:
                del hooks[event]
    if changed and not hooks:
        del data["hooks"]
    return changed

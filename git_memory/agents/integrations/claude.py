"""Claude Code: our hooks in its `settings.json` (`.claude/` of the work tree or the home
directory), one group per event; no MCP entry. Ours are recognised by the command's shape
(any interpreter, or the older bare `git memory ...`), so installing twice adds nothing and
uninstalling leaves every other key, group and hook as it was.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from git_memory.agents.integrations import (AgentHook, FileChange, FoundHook, McpEntry,
                                            context_args, shared)
from git_memory.errors import BadInput

name = "claude"
title = "Claude Code"
SESSION_ARGS = ("session", "hook")
hooks = (
    AgentHook("SessionStart", context_args(name), 15),
    # Compaction replaces the conversation the model sees with a summary: capture first.
    AgentHook("PreCompact", SESSION_ARGS, 60),
    AgentHook("Stop", SESSION_ARGS, 60),
    AgentHook("SessionEnd", SESSION_ARGS, 60),
)
_ARGS = tuple(dict.fromkeys(hook.args for hook in hooks))
hook_output = shared.hook_specific_output


def files(scope: str, base: Path) -> list[FileChange]:
    return [shared.json_file(base / ".claude" / "settings.json", _add, _drop)]


def mcp(scope: str, base: Path) -> McpEntry | None:
    return None


def found(scope: str, base: Path) -> list[FoundHook]:
    path = files(scope, base)[0].path
    if not path.is_file():
        return []
    return [FoundHook(event, command, args) for event, command, args in _ours(_load(
        shared.read_json(path)))]


def _load(data: dict[str, Any]) -> dict[str, Any]:
    hooks_ = data.get("hooks")
    if hooks_ is not None and (not isinstance(hooks_, dict)
                               or not all(isinstance(g, list) for g in hooks_.values())):
        raise BadInput("'hooks' is not an object of lists; left it unchanged")
    return data


def _our_args(hook: Any) -> tuple[str, ...] | None:
    if not isinstance(hook, dict):
        return None
    return shared.our_args(str(hook.get("command", "")), _ARGS, bare=True)


def _ours(data: dict[str, Any]) -> list[tuple[str, str, tuple[str, ...]]]:
    """(event, command, our subcommand) of each of our hooks, in file order."""
    found_: list[tuple[str, str, tuple[str, ...]]] = []
    for event, groups in (data.get("hooks") or {}).items():
        for group in groups:
            inner = group.get("hooks") if isinstance(group, dict) else None
            for hook in inner if isinstance(inner, list) else []:
                args = _our_args(hook)
                if args is not None:
                    found_.append((event, str(hook["command"]).strip(), args))
    return found_


def _add(data: dict[str, Any]) -> bool:
    """Add our hooks where missing, replacing ours for another interpreter (or the bare
    `git memory` form)."""
    _load(data)
    wanted = {hook.event: shared.command_for(hook.args) for hook in hooks}
    have: dict[str, list[str]] = {}
    for event, command, _ in _ours(data):
        have.setdefault(event, []).append(command)
    stale = [event for event in wanted if have.get(event, [wanted[event]]) != [wanted[event]]]
    changed = _remove_ours(data, stale)
    groups = data.setdefault("hooks", {})
    for hook in hooks:
        if have.get(hook.event) != [wanted[hook.event]]:
            groups.setdefault(hook.event, []).append({"hooks": [
                {"type": "command", "command": wanted[hook.event], "timeout": hook.timeout}]})
            changed = True
    return changed


def _drop(data: dict[str, Any]) -> bool:
    return _remove_ours(data, None)


def _remove_ours(data: dict[str, Any], events: list[str] | None) -> bool:
    """Remove our hooks from `events` (None: every event), and the groups and events they
    alone filled; True when it removed any."""
    groups_of = data.get("hooks")
    if not isinstance(groups_of, dict):
        return False
    changed: list[str] = []
    for event in [e for e in groups_of if events is None or e in events]:
        kept_groups = []
        for group in groups_of[event]:
            inner = group.get("hooks") if isinstance(group, dict) else None
            if not isinstance(inner, list) or not any(_our_args(h) for h in inner):
                kept_groups.append(group)
                continue
            if event not in changed:
                changed.append(event)
            rest = [h for h in inner if not _our_args(h)]
            if rest:
                kept_groups.append({**group, "hooks": rest})
        if event in changed:
            if kept_groups:
                groups_of[event] = kept_groups
            else:
                del groups_of[event]
    if changed and not groups_of:
        del data["hooks"]
    return bool(changed)

"""Gemini CLI: our MCP server (`mcpServers.git-memory`) and a `SessionStart` hook named
`git-memory-context` in its `settings.json` (`.gemini/` of the work tree or the home
directory). The hook prints Claude Code's JSON (`context --format claude`)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from git_memory.agents.integrations import (AgentHook, FileChange, FoundHook, McpEntry,
                                            context_args, shared)
from git_memory.errors import BadInput

name = "gemini"
title = "Gemini CLI"
hooks = (AgentHook("SessionStart", context_args(name), 15000),)  # Gemini counts milliseconds
HOOK_NAME = "git-memory-context"


def mcp(scope: str, base: Path) -> McpEntry:
    return McpEntry(base / ".gemini" / "settings.json", "mcpServers", shared.mcp_server())


def files(scope: str, base: Path) -> list[FileChange]:
    entry = mcp(scope, base)
    add_server, drop_server = shared.add_server(entry), shared.drop_server(entry)

    def add(data: dict[str, Any]) -> bool:
        return _add_hook(data, add_server(data))

    def drop(data: dict[str, Any]) -> bool:
        dropped_server = drop_server(data)
        return _drop_hook(data) or dropped_server
    return [shared.json_file(entry.path, add, drop)]


def found(scope: str, base: Path) -> list[FoundHook]:
    path = files(scope, base)[0].path
    if not path.is_file():
        return []
    groups = _groups(shared.read_json(path)) or []
    return [FoundHook(hooks[0].event, str(hook.get("command")), hooks[0].args)
            for group in groups for hook in _inner(group) if _is_ours(hook)]


def hook_output(text: str) -> dict[str, Any]:
    return shared.hook_specific_output(text)


def _ours() -> dict[str, Any]:
    return {"name": HOOK_NAME, "type": "command", "command": shared.command_for(hooks[0].args),
            "timeout": hooks[0].timeout}


def _is_ours(hook: Any) -> bool:
    return isinstance(hook, dict) and hook.get("name") == HOOK_NAME


def _inner(group: Any) -> list[Any]:
    inner = group.get("hooks") if isinstance(group, dict) else None
    return inner if isinstance(inner, list) else []


def _groups(data: dict[str, Any]) -> list[Any] | None:
    hooks_ = data.get("hooks")
    groups = hooks_.get("SessionStart") if isinstance(hooks_, dict) else None
    return groups if isinstance(groups, list) else None


def _add_hook(data: dict[str, Any], changed: bool) -> bool:
    groups = shared.json_object(data, "hooks").setdefault("SessionStart", [])
    if not isinstance(groups, list):
        raise BadInput("'hooks.SessionStart' is not a list; left the file unchanged")
    ours = _ours()
    if any(isinstance(g, dict) and ours in (g.get("hooks") or []) for g in groups):
        return changed
    _drop_hook(data)
    data.setdefault("hooks", {}).setdefault("SessionStart", []).append({"hooks": [ours]})
    return True


def _drop_hook(data: dict[str, Any]) -> bool:
    groups = _groups(data)
    if groups is None:
        return False
    kept, changed = [], False
    for group in groups:
        if any(_is_ours(h) for h in _inner(group)):
            changed = True
            rest = [h for h in _inner(group) if not _is_ours(h)]
            if rest:
                kept.append({**group, "hooks": rest})
        else:
            kept.append(group)
    if changed:
        hooks_ = data["hooks"]
        if kept:
            hooks_["SessionStart"] = kept
        else:
            del hooks_["SessionStart"]
        if not hooks_:
            del data["hooks"]
    return changed

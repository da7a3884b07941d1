"""Gemini CLI: our MCP server (`mcpServers.git-memory`) and a `SessionStart` hook named
`git-memory-context` in its `settings.json` (`.gemini/` of the work tree or the home
directory). The hook prints Claude Code's JSON (`context --format claude`)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from git_memory.agents.integrations import (AgentHook, FileChange, FoundHook, McpEntry,
                                            context_args, shared)
from git_memory.agents.integrations.hooks_json import SessionStartFile

name = "gemini"
title = "Gemini CLI"
hooks = (AgentHook("SessionStart", context_args(name), 15000),)  # Gemini counts milliseconds
_HOOKS = SessionStartFile(hooks[0], nested=True, name="git-memory-context")
hook_output = shared.hook_specific_output


def mcp(scope: str, base: Path) -> McpEntry:
    return McpEntry(base / ".gemini" / "settings.json", "mcpServers", shared.mcp_server())


def files(scope: str, base: Path) -> list[FileChange]:
    """One file holds both our server and our hook."""
    entry = mcp(scope, base)
    add_server, drop_server = shared.add_server(entry), shared.drop_server(entry)

    def add(data: dict[str, Any]) -> bool:
        added = add_server(data)
        return _HOOKS.add(data) or added

    def drop(data: dict[str, Any]) -> bool:
        dropped = drop_server(data)
        return _HOOKS.drop(data) or dropped
    return [shared.json_file(entry.path, add, drop)]


def found(scope: str, base: Path) -> list[FoundHook]:
    return _HOOKS.found(files(scope, base)[0].path)

"""Cursor: our MCP server in `.cursor/mcp.json` and a `sessionStart` hook in
`.cursor/hooks.json` (under the work tree or the home directory); the hook prints
`{"additional_context": TEXT}`."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from git_memory.agents.integrations import (AgentHook, FileChange, FoundHook, McpEntry,
                                            context_args, shared)
from git_memory.agents.integrations.hooks_json import SessionStartFile

name = "cursor"
title = "Cursor"
hooks = (AgentHook("sessionStart", context_args(name)),)  # Cursor's default timeout is fine
_HOOKS_FILE = SessionStartFile(hooks[0], versioned=True)


def mcp(scope: str, base: Path) -> McpEntry:
    return McpEntry(base / ".cursor" / "mcp.json", "mcpServers", shared.mcp_server())


def files(scope: str, base: Path) -> list[FileChange]:
    return [shared.mcp_file(mcp(scope, base)), _HOOKS_FILE.change(base / ".cursor" / "hooks.json")]


def found(scope: str, base: Path) -> list[FoundHook]:
    return _HOOKS_FILE.found(files(scope, base)[-1].path)


def hook_output(text: str) -> dict[str, Any]:
    return {"additional_context": text}

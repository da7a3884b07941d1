"""VS Code (agent mode): our MCP server in its `mcp.json` (`.vscode/` of the work tree, or
the user's Code settings folder) and a `SessionStart` hook in `git-memory.json` of its hooks
folder (`.github/hooks/`, or `~/.copilot/hooks/`; VS Code loads every *.json there)."""

from __future__ import annotations

import os
import sys
from pathlib import Path

from git_memory.agents.integrations import (AgentHook, FileChange, FoundHook, McpEntry,
                                            context_args, shared)
from git_memory.agents.integrations.hooks_json import SessionStartFile

name = "vscode"
title = "VS Code"
hooks = (AgentHook("SessionStart", context_args(name), 15),)
_HOOKS_FILE = SessionStartFile(hooks[0])
hook_output = shared.hook_specific_output


def _user_dir() -> Path:
    if sys.platform == "darwin":
        return shared.home() / "Library" / "Application Support" / "Code" / "User"
    config = os.environ.get("XDG_CONFIG_HOME") or str(shared.home() / ".config")
    return Path(config) / "Code" / "User"


def mcp(scope: str, base: Path) -> McpEntry:
    path = (_user_dir() if scope == "user" else base / ".vscode") / "mcp.json"
    return McpEntry(path, "servers", shared.mcp_server({"type": "stdio"}))


def files(scope: str, base: Path) -> list[FileChange]:
    hooks_dir = base / (".copilot" if scope == "user" else ".github") / "hooks"
    return [shared.mcp_file(mcp(scope, base)), _HOOKS_FILE.change(hooks_dir / "git-memory.json")]


def found(scope: str, base: Path) -> list[FoundHook]:
    return _HOOKS_FILE.found(files(scope, base)[-1].path)

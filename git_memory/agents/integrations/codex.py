"""Codex: our MCP server as a `[mcp_servers.git-memory]` table in `config.toml`, between two
marker comments appended at the end, and a `SessionStart` hook in `hooks.json` (Claude
Code's nested shape); both in `.codex/` of the work tree (read in trusted projects) or in
`$CODEX_HOME`, else `~/.codex/`."""

from __future__ import annotations

import json
import os
import tomllib
from pathlib import Path
from typing import Any

from git_memory.agents.integrations import (AgentHook, FileChange, FoundHook, McpEntry,
                                            context_args, shared)
from git_memory.agents.integrations.hooks_json import SessionStartFile
from git_memory.errors import BadInput

name = "codex"
title = "Codex"
hooks = (AgentHook("SessionStart", context_args(name), 15),)
_HOOKS_FILE = SessionStartFile(hooks[0], nested=True)
TOML_BEGIN = "# >>> git-memory (git memory install --agent codex; --remove takes it out)"
TOML_END = "# <<< git-memory"
hook_output = shared.hook_specific_output


def _home(scope: str, base: Path) -> Path:
    if scope == "user" and os.environ.get("CODEX_HOME"):
        return Path(os.environ["CODEX_HOME"])
    return base / ".codex"


def mcp(scope: str, base: Path) -> McpEntry:
    return McpEntry(_home(scope, base) / "config.toml", "mcp_servers", shared.mcp_server())


def files(scope: str, base: Path) -> list[FileChange]:
    return [FileChange(mcp(scope, base).path, _toml_add, _toml_drop),
            _HOOKS_FILE.change(_home(scope, base) / "hooks.json")]


def found(scope: str, base: Path) -> list[FoundHook]:
    return _HOOKS_FILE.found(files(scope, base)[-1].path)


def _toml_block() -> str:
    server = shared.mcp_server()
    args = ", ".join(json.dumps(a) for a in server["args"])
    return (f"{TOML_BEGIN}\n[mcp_servers.{shared.SERVER}]\ncommand = {json.dumps(server['command'])}\n"
            f"args = [{args}]\n{TOML_END}\n")


def _toml_parse(text: str) -> dict[str, Any]:
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise BadInput(f"the file is not valid TOML ({exc}); left it unchanged") from None


def _toml_add(text: str) -> str:
    block = _toml_block()
    if block in text:
        return text
    text = _toml_drop(text)
    existing = _toml_parse(text).get("mcp_servers", {})
    if isinstance(existing, dict) and shared.SERVER in existing:
        raise BadInput(f"[mcp_servers.{shared.SERVER}] is already there (not ours); left it unchanged")
    sep = "" if not text or text.endswith("\n\n") else ("\n" if text.endswith("\n") else "\n\n")
    new = text + sep + block
    _toml_parse(new)  # what we write must parse, and keep every other table
    return new


def _toml_drop(text: str) -> str:
    start = text.find(TOML_BEGIN)
    if start < 0:
        return text
    end = text.find(TOML_END, start)
    end = len(text) if end < 0 else end + len(TOML_END) + (1 if text[end + len(TOML_END):][:1] == "\n" else 0)
    return text[:start].rstrip("\n") + ("\n" if text[:start].strip() else "") + text[end:]

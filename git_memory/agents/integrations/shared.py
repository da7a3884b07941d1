"""What every agent integration shares: our commands (this interpreter by absolute path, so
they run under `env -i`), JSON files merged and unmerged (one we cannot parse is refused and
left untouched), the MCP server entry. `context --format` loads this module at an agent's
session start, so the undo's heavier imports sit apart, in `undo`.
"""

from __future__ import annotations

import json
import os
import shlex
import sys
from pathlib import Path
from typing import Any, Callable

from git_memory.agents.integrations import FileChange, McpEntry, Merge
from git_memory.errors import BadInput

SERVER = "git-memory"
MCP_ARGS = ("mcp",)

Change = Callable[[dict[str, Any]], bool]  # edits a JSON object in place; True when it did


def home() -> Path:
    return Path(os.path.expanduser("~"))


def python_path() -> str:
    return os.path.abspath(sys.executable)


def command_for(args: tuple[str, ...]) -> str:
    """A hook command: this interpreter, by absolute path, running our package."""
    return " ".join(shlex.quote(word) for word in (python_path(), "-m", "git_memory", *args))


def our_args(command: Any, candidates: tuple[tuple[str, ...], ...], bare: bool = False
             ) -> tuple[str, ...] | None:
    """Which of `candidates` the hook command runs (from any interpreter; with `bare`, also
    the `git memory ...` form older versions wrote), else None."""
    if not isinstance(command, str):
        return None
    try:
        words = shlex.split(command)
    except ValueError:
        return None
    for args in candidates:
        n = len(args)
        if bare and len(words) == n + 2 and tuple(words[2:]) == args and words[:2] == ["git", "memory"]:
            return args
        if len(words) == n + 3 and tuple(words[3:]) == args and words[1:3] == ["-m", "git_memory"]:
            return args
    return None


def mcp_server(extra: dict[str, Any] | None = None) -> dict[str, Any]:
    """Our MCP server as an agent's JSON names it (`extra` first: VS Code's `type`)."""
    return {**(extra or {}), "command": python_path(), "args": ["-m", "git_memory", *MCP_ARGS]}


# -- JSON files -------------------------------------------------------------------

def load_json(text: str) -> dict[str, Any]:
    if not text.strip():
        return {}
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise BadInput(f"the file is not plain JSON (line {exc.lineno}; comments are not"
                       " supported); left it unchanged") from None
    if not isinstance(data, dict):
        raise BadInput("the file is not a JSON object; left it unchanged")
    return data


def dump_json(data: dict[str, Any]) -> str:
    return json.dumps(data, indent=2, ensure_ascii=False) + "\n"


def json_merge(change: Change) -> Merge:
    """A Merge over a JSON object: the text comes back as it was unless `change` changed it."""
    def merge(text: str) -> str:
        data = load_json(text)
        return dump_json(data) if change(data) else text
    return merge


def json_file(path: Path, add: Change, drop: Change) -> FileChange:
    return FileChange(path, json_merge(add), json_merge(drop))


def read_json(path: Path) -> dict[str, Any]:
    """A JSON file we write into, parsed as a merge parses it ({} when missing)."""
    return load_json(decode(read(path), path))


def json_object(data: dict[str, Any], key: str) -> dict[str, Any]:
    value = data.setdefault(key, {})
    if not isinstance(value, dict):
        raise BadInput(f"'{key}' is not an object; left the file unchanged")
    return value


def add_server(entry: McpEntry) -> Change:
    def change(data: dict[str, Any]) -> bool:
        servers = json_object(data, entry.table)
        if servers.get(SERVER) == entry.server:
            return False
        servers[SERVER] = entry.server
        return True
    return change


def drop_server(entry: McpEntry) -> Change:
    def change(data: dict[str, Any]) -> bool:
        servers = data.get(entry.table)
        if not isinstance(servers, dict) or SERVER not in servers:
            return False
        del servers[SERVER]
        if not servers:
            del data[entry.table]
        return True
    return change


def mcp_file(entry: McpEntry) -> FileChange:
    """A JSON file holding only our MCP server among the user's (Cursor's, VS Code's)."""
    return json_file(entry.path, add_server(entry), drop_server(entry))


def hook_specific_output(text: str) -> dict[str, Any]:
    """The session-start JSON of Claude Code, and of VS Code and Codex, which read its shape."""
    return {"hookSpecificOutput": {"hookEventName": "SessionStart", "additionalContext": text}}


# -- reading the files we write ---------------------------------------------

def read(path: Path) -> bytes | None:
    try:
        return path.read_bytes()
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise BadInput(f"cannot read {path}: {exc}") from None


def decode(raw: bytes | None, path: Path) -> str:
    try:
        return (raw or b"").decode("utf-8")
    except UnicodeDecodeError:
        raise BadInput(f"{path} is not UTF-8 text; left it unchanged") from None

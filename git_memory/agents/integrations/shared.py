"""What every agent integration shares: our commands by absolute path, JSON files merged and
unmerged, the MCP server entry, and the exact undo.

Commands name this interpreter by absolute path (`<python> -m git_memory ...`), so they run
under `env -i` with a bare PATH. Undo is exact: before the first change to a file, its bytes
(or its absence) are saved with the hash of what we wrote, in `<git dir>/git-memory/
agent-installs/` (project scope) or `$XDG_STATE_HOME/git-memory/agent-installs/` (user
scope). `remove` puts those bytes back when the file still holds exactly what we wrote; if
the user edited it since, only our part is taken out. A file we cannot parse is refused and
left untouched. Never prints.
"""

from __future__ import annotations

import base64
import hashlib
import json
import os
import shlex
import sys
import tempfile
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


# -- the exact undo -------------------------------------------------------------

def _digest(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def backup_file(state: Path, path: Path) -> Path:
    return state / (hashlib.sha256(str(path.absolute()).encode()).hexdigest()[:20] + ".json")


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


def _write_atomic(path: Path, data: bytes, mode: int | None) -> None:
    fd, tmp = tempfile.mkstemp(prefix=".git-memory.", suffix=".tmp", dir=str(path.parent))
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
        if mode is not None:
            os.chmod(tmp, mode)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def _apply(merge: Merge, raw: bytes | None, path: Path) -> str:
    try:
        return merge(decode(raw, path))
    except BadInput as exc:
        raise BadInput(f"{path}: {exc}") from None


def install(change: FileChange, state: Path) -> bool:
    """Merge ours into the file; keep a backup of what was there. True when it changed."""
    raw = read(change.path)
    new = _apply(change.merge, raw, change.path)
    if raw is not None and new.encode("utf-8") == raw:
        return False
    created = []
    folder = change.path.parent
    while not folder.exists():
        created.append(str(folder))
        folder = folder.parent
    saved = backup_file(state, change.path)
    old = json.loads(saved.read_text(encoding="utf-8")) if saved.exists() else None
    # A second install over our own earlier write keeps the user's original bytes.
    data = new.encode("utf-8")
    record = {
        "path": str(change.path.absolute()),
        "original": None if raw is None else base64.b64encode(raw).decode("ascii"),
        "created_dirs": created,
        "written": _digest(data),
    }
    if old is not None and old["written"] == _digest(raw or b""):
        record.update(original=old["original"], created_dirs=old["created_dirs"])
    change.path.parent.mkdir(parents=True, exist_ok=True)
    state.mkdir(parents=True, exist_ok=True)
    saved.write_text(json.dumps(record, indent=1) + "\n", encoding="utf-8")
    _write_atomic(change.path, data, change.path.stat().st_mode & 0o777 if raw is not None else None)
    return True


def _restore(change: FileChange, record: dict[str, Any]) -> None:
    if record["original"] is None:
        change.path.unlink()
        for folder in record["created_dirs"]:
            try:
                Path(folder).rmdir()
            except OSError:
                break  # not empty: something else lives there now
        return
    original = base64.b64decode(record["original"])
    # An original that held ours already (an older version's hooks, which install
    # replaced) comes back without them; any other original comes back as it was.
    text = decode(original, change.path)
    without = change.unmerge(text)
    if without != text:
        original = without.encode("utf-8")
    _write_atomic(change.path, original, change.path.stat().st_mode & 0o777)


def remove(change: FileChange, state: Path) -> str:
    """Undo `install`: 'restored' (exact bytes), 'unmerged' (our part only), or 'absent'."""
    raw = read(change.path)
    saved = backup_file(state, change.path)
    record = json.loads(saved.read_text(encoding="utf-8")) if saved.exists() else None
    if record is not None and raw is not None and _digest(raw) == record["written"]:
        _restore(change, record)
        saved.unlink()
        return "restored"
    if record is not None:
        saved.unlink()
    if raw is None:
        return "absent"
    new = _apply(change.unmerge, raw, change.path)
    if new.encode("utf-8") == raw:
        return "absent"
    _write_atomic(change.path, new.encode("utf-8"), change.path.stat().st_mode & 0o777)
    return "unmerged"

"""`install --agent NAME` for every agent: which file, what goes in, and an exact undo.

Each agent gets its own documented configuration (looked up in the agent's docs and
schema, see docs/agents.md): Claude Code's settings hooks; Gemini CLI's settings
(`mcpServers` plus a `SessionStart` hook that prints the context block); Cursor's
and VS Code's `mcp.json`; Codex's `config.toml` (`[mcp_servers.git-memory]`); and the
session-start hook in Cursor's `hooks.json`, VS Code's `.github/hooks/git-memory.json`
(user: `~/.copilot/hooks/`) and Codex's `hooks.json` (`agents.agent_hooks`).
Commands name this interpreter by absolute path (`<python> -m git_memory ...`),
so they run under `env -i` with a bare PATH.

Undo is exact: before the first change to a file, its bytes (or its absence) are
saved with the hash of what we wrote, in `<git dir>/git-memory/agent-installs/`
(project scope) or `$XDG_STATE_HOME/git-memory/agent-installs/` (user scope).
`--remove` puts those bytes back when the file still holds exactly what we wrote;
if the user edited it since, only our part is taken out (and the message says the
formatting may differ). A file we cannot parse is refused and left untouched.
Never prints. May import `agents.claude_settings`, `agents.agent_hooks`, `store.locate`, `errors`.
"""

from __future__ import annotations

import base64
import hashlib
import json
import os
import sys
import tempfile
import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

from git_memory.agents import agent_hooks, claude_settings
from git_memory.errors import BadInput

AGENTS = ("claude", "cursor", "gemini", "codex", "vscode")
SERVER = "git-memory"
MCP_ARGS = ("mcp",)
CONTEXT_ARGS = ("context", "--format", "claude")
GEMINI_HOOK = "git-memory-context"
TOML_BEGIN = "# >>> git-memory (git memory install --agent codex; --remove takes it out)"
TOML_END = "# <<< git-memory"
VSCODE_HOOKS = "git-memory.json"  # VS Code loads every *.json in its hooks folders


def python_path() -> str:
    return os.path.abspath(sys.executable)


def command_line(args: tuple[str, ...]) -> str:
    """A shell command running our package with this interpreter, by absolute path (the
    form Claude Code's hooks use too)."""
    return claude_settings.command_for(args)


def mcp_server() -> dict[str, Any]:
    return {"command": python_path(), "args": ["-m", "git_memory", *MCP_ARGS]}


# -- each agent's file and its merge / unmerge --------------------------------

Merge = Callable[[str], str]  # old text ("" when missing) -> new text


@dataclass
class Plan:
    path: Path
    merge: Merge  # add ours (returns the same text when ours is there already)
    unmerge: Merge  # take ours out of a file the user changed since


def _home() -> Path:
    return Path(os.path.expanduser("~"))


def plans(agent: str, scope: str, root: Path | None) -> list[Plan]:
    """The files `agent` reads, for `scope`, with how to merge ours in and out."""
    if agent not in AGENTS:
        raise BadInput(f"unknown agent {agent!r}; supported: {', '.join(AGENTS)}")
    base = _home() if scope == "user" else root
    if base is None:
        raise BadInput("--scope project needs a repository with a working tree")
    if agent == "claude":
        return [Plan(claude_settings.settings_path(scope, root), _claude_merge, _claude_unmerge)]
    if agent == "cursor":
        return [Plan(base / ".cursor" / "mcp.json", _json(_add_server("mcpServers")),
                     _json(_drop_server("mcpServers"))), _hooks_plan(agent, base / ".cursor" / "hooks.json")]
    if agent == "gemini":
        return [Plan(base / ".gemini" / "settings.json", _json(_gemini_add), _json(_gemini_drop))]
    if agent == "vscode":
        path = (_vscode_user_dir() / "mcp.json") if scope == "user" else base / ".vscode" / "mcp.json"
        hooks = base / (".copilot" if scope == "user" else ".github") / "hooks" / VSCODE_HOOKS
        return [Plan(path, _json(_add_server("servers", {"type": "stdio"})),
                     _json(_drop_server("servers"))), _hooks_plan(agent, hooks)]
    codex_home = Path(os.environ["CODEX_HOME"]) if scope == "user" and os.environ.get(
        "CODEX_HOME") else base / ".codex"
    return [Plan(codex_home / "config.toml", _toml_add, _toml_drop),
            _hooks_plan(agent, codex_home / "hooks.json")]


def _hooks_plan(agent: str, path: Path) -> Plan:
    """The agent's lifecycle hooks file, with our session-start context hook."""
    return Plan(path, _json(agent_hooks.add(agent)), _json(agent_hooks.drop(agent)))


def _vscode_user_dir() -> Path:
    if sys.platform == "darwin":
        return _home() / "Library" / "Application Support" / "Code" / "User"
    config = os.environ.get("XDG_CONFIG_HOME") or str(_home() / ".config")
    return Path(config) / "Code" / "User"


def _load_json(text: str, what: str = "the file") -> dict[str, Any]:
    if not text.strip():
        return {}
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise BadInput(f"{what} is not plain JSON (line {exc.lineno}; comments are not"
                       " supported); left it unchanged") from None
    if not isinstance(data, dict):
        raise BadInput(f"{what} is not a JSON object; left it unchanged")
    return data


def _dump_json(data: dict[str, Any]) -> str:
    return json.dumps(data, indent=2, ensure_ascii=False) + "\n"


def _json(change: Callable[[dict[str, Any]], bool]) -> Merge:
    """A Merge over a JSON object: `change` edits it in place and says whether it did."""
    def merge(text: str) -> str:
        data = _load_json(text)
        return _dump_json(data) if change(data) else text
    return merge


def _object(data: dict[str, Any], key: str) -> dict[str, Any]:
    value = data.setdefault(key, {})
    if not isinstance(value, dict):
        raise BadInput(f"'{key}' is not an object; left the file unchanged")
    return value


def _add_server(key: str, extra: dict[str, Any] | None = None) -> Callable[[dict[str, Any]], bool]:
    def change(data: dict[str, Any]) -> bool:
        servers = _object(data, key)
        wanted = {**(extra or {}), **mcp_server()}
        if servers.get(SERVER) == wanted:
            return False
        servers[SERVER] = wanted
        return True
    return change


def _drop_server(key: str) -> Callable[[dict[str, Any]], bool]:
    def change(data: dict[str, Any]) -> bool:
        servers = data.get(key)
        if not isinstance(servers, dict) or SERVER not in servers:
            return False
        del servers[SERVER]
        if not servers:
            del data[key]
        return True
    return change


def _gemini_add(data: dict[str, Any]) -> bool:
    changed = _add_server("mcpServers")(data)
    hooks = _object(data, "hooks")
    groups = hooks.setdefault("SessionStart", [])
    if not isinstance(groups, list):
        raise BadInput("'hooks.SessionStart' is not a list; left the file unchanged")
    ours = {"name": GEMINI_HOOK, "type": "command", "command": command_line(CONTEXT_ARGS),
            "timeout": 15000}  # Gemini counts hook timeouts in milliseconds
    if any(isinstance(g, dict) and ours in (g.get("hooks") or []) for g in groups):
        return changed
    _gemini_drop_hook(data)
    data.setdefault("hooks", {}).setdefault("SessionStart", []).append({"hooks": [ours]})
    return True


def _gemini_drop_hook(data: dict[str, Any]) -> bool:
    hooks = data.get("hooks")
    groups = hooks.get("SessionStart") if isinstance(hooks, dict) else None
    if not isinstance(groups, list):
        return False
    kept, changed = [], False
    for group in groups:
        inner = group.get("hooks") if isinstance(group, dict) else None
        if isinstance(inner, list) and any(isinstance(h, dict) and h.get("name") == GEMINI_HOOK
                                           for h in inner):
            changed = True
            rest = [h for h in inner if not (isinstance(h, dict) and h.get("name") == GEMINI_HOOK)]
            if rest:
                kept.append({**group, "hooks": rest})
        else:
            kept.append(group)
    if changed:
        assert isinstance(hooks, dict)
        if kept:
            hooks["SessionStart"] = kept
        else:
            del hooks["SessionStart"]
        if not hooks:
            del data["hooks"]
    return changed


def _gemini_drop(data: dict[str, Any]) -> bool:
    dropped_server = _drop_server("mcpServers")(data)
    return _gemini_drop_hook(data) or dropped_server


def _claude_merge(text: str) -> str:
    data = _load_json(text)
    hooks = data.get("hooks")
    if hooks is not None and (not isinstance(hooks, dict)
                              or not all(isinstance(g, list) for g in hooks.values())):
        raise BadInput("'hooks' is not an object of lists; left it unchanged")
    return _dump_json(data) if claude_settings.merge(data) else text


def _claude_unmerge(text: str) -> str:
    data = _load_json(text)
    return _dump_json(data) if claude_settings.unmerge(data) else text


def _toml_block() -> str:
    args = ", ".join(json.dumps(a) for a in ("-m", "git_memory", *MCP_ARGS))
    return (f"{TOML_BEGIN}\n[mcp_servers.{SERVER}]\ncommand = {json.dumps(python_path())}\n"
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
    if isinstance(existing, dict) and SERVER in existing:
        raise BadInput(f"[mcp_servers.{SERVER}] is already there (not ours); left it unchanged")
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


# -- backups: the exact bytes to restore ------------------------------------------

def _digest(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def backup_file(state: Path, path: Path) -> Path:
    return state / (hashlib.sha256(str(path.absolute()).encode()).hexdigest()[:20] + ".json")


def _read(path: Path) -> bytes | None:
    try:
        return path.read_bytes()
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise BadInput(f"cannot read {path}: {exc}") from None


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


def _decode(raw: bytes | None, path: Path) -> str:
    try:
        return (raw or b"").decode("utf-8")
    except UnicodeDecodeError:
        raise BadInput(f"{path} is not UTF-8 text; left it unchanged") from None


def install(plan: Plan, state: Path) -> bool:
    """Merge ours into the file; keep a backup of what was there. True when it changed."""
    raw = _read(plan.path)
    try:
        new = plan.merge(_decode(raw, plan.path))
    except BadInput as exc:
        raise BadInput(f"{plan.path}: {exc}") from None
    if raw is not None and new.encode("utf-8") == raw:
        return False
    created = []
    folder = plan.path.parent
    while not folder.exists():
        created.append(str(folder))
        folder = folder.parent
    saved = backup_file(state, plan.path)
    old = json.loads(saved.read_text(encoding="utf-8")) if saved.exists() else None
    data = new.encode("utf-8")
    record = {
        "path": str(plan.path.absolute()),
        # A second install over our own earlier write keeps the user's original bytes.
        "original": old["original"] if old and old["written"] == _digest(raw or b"") else (
            None if raw is None else base64.b64encode(raw).decode("ascii")),
        "created_dirs": old["created_dirs"] if old and old["written"] == _digest(raw or b"") else created,
        "written": _digest(data),
    }
    plan.path.parent.mkdir(parents=True, exist_ok=True)
    state.mkdir(parents=True, exist_ok=True)
    saved.write_text(json.dumps(record, indent=1) + "\n", encoding="utf-8")
    _write_atomic(plan.path, data, plan.path.stat().st_mode & 0o777 if raw is not None else None)
    return True


def remove(plan: Plan, state: Path) -> str:
    """Undo `install`: 'restored' (exact bytes), 'unmerged' (our part only), or 'absent'."""
    raw = _read(plan.path)
    saved = backup_file(state, plan.path)
    record = json.loads(saved.read_text(encoding="utf-8")) if saved.exists() else None
    if record is not None and raw is not None and _digest(raw) == record["written"]:
        if record["original"] is None:
            plan.path.unlink()
            for folder in record["created_dirs"]:
                try:
                    Path(folder).rmdir()
                except OSError:
                    break  # not empty: something else lives there now
        else:
            original = base64.b64decode(record["original"])
            # An original that held ours already (an older version's hooks, which install
            # replaced) comes back without them; any other original comes back as it was.
            text = _decode(original, plan.path)
            without = plan.unmerge(text)
            if without != text:
                original = without.encode("utf-8")
            _write_atomic(plan.path, original, plan.path.stat().st_mode & 0o777)
        saved.unlink()
        return "restored"
    if record is not None:
        saved.unlink()
    if raw is None:
        return "absent"
    try:
        new = plan.unmerge(_decode(raw, plan.path))
    except BadInput as exc:
        raise BadInput(f"{plan.path}: {exc}") from None
    if new.encode("utf-8") == raw:
        return "absent"
    _write_atomic(plan.path, new.encode("utf-8"), plan.path.stat().st_mode & 0o777)
    return "unmerged"

"""Merge our hooks into a Claude Code `settings.json`, and take them out again.

Claude Code reads `hooks: {Event: [{matcher?, hooks: [{type: command, command}]}]}`.
We add one group per event holding our command; ours are recognised by the
command string alone, so installing twice adds nothing and uninstalling removes
only ours, leaving every other key, group and hook as it was. The file is written
to a temporary file and renamed over the old one; a file that is not a JSON
object is refused and left untouched. Never prints.
"""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path
from typing import Any

from git_memory.errors import BadInput

CONTEXT_COMMAND = "git memory context --format claude"
SESSION_COMMAND = "git memory session hook"
OUR_HOOKS: dict[str, tuple[str, int]] = {
    "SessionStart": (CONTEXT_COMMAND, 15),
    "Stop": (SESSION_COMMAND, 60),
    "SessionEnd": (SESSION_COMMAND, 60),
}


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
    return isinstance(hook, dict) and str(hook.get("command", "")).strip() in (
        CONTEXT_COMMAND, SESSION_COMMAND)


def _has_ours(groups: list[Any], command: str) -> bool:
    for group in groups:
        if isinstance(group, dict) and isinstance(group.get("hooks"), list):
            if any(_is_ours(h) and h.get("command", "").strip() == command for h in group["hooks"]):
                return True
    return False


def merge(data: dict[str, Any]) -> list[str]:
    """Add our hooks where missing; return the events that changed."""
    hooks = data.setdefault("hooks", {})
    changed: list[str] = []
    for event, (command, timeout) in OUR_HOOKS.items():
        groups = hooks.setdefault(event, [])
        if _has_ours(groups, command):
            continue
        groups.append({"hooks": [{"type": "command", "command": command, "timeout": timeout}]})
        changed.append(event)
    return changed


def unmerge(data: dict[str, Any]) -> list[str]:
    """Remove our hooks (and the groups and events they alone filled)."""
    hooks = data.get("hooks")
    if not isinstance(hooks, dict):
        return []
    changed: list[str] = []
    for event in list(hooks):
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


def save(path: Path, data: dict[str, Any]) -> None:
    """Write atomically: a temporary file in the same directory, then a rename."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=".settings.", suffix=".tmp", dir=str(path.parent))
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write(json.dumps(data, indent=2, ensure_ascii=False) + "\n")
        if path.exists():
            os.chmod(tmp, path.stat().st_mode & 0o777)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise

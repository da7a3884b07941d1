"""The `memory.*` git config settings of the agent area, with their defaults.

Read with the pure-Python reader of `store.locate` (no `git` process), since the
session hooks start often. Never prints.
"""

from __future__ import annotations

from git_memory.store.locate import GitDirs, read_config

DEFAULTS: dict[str, int] = {
    "sessionMinMessages": 4,  # user + assistant messages, tool traffic not counted
    "sessionMinUserChars": 40,  # characters the human typed in the whole session
    "distillMinMessages": 6,
    "distillMinUserChars": 200,
    "distillDebounce": 600,  # seconds between two distillations of one session
    "distillMaxChars": 24000,  # cap on what is sent to the command
    "distillTimeout": 120,  # seconds before the command is killed
}


def get_int(dirs: GitDirs, name: str) -> int:
    """An integer setting, or its default when unset or unreadable."""
    raw = read_config(dirs, "memory", name)
    try:
        value = int(raw) if raw is not None else DEFAULTS[name]
    except ValueError:
        value = DEFAULTS[name]
    return max(0, value)


def get_str(dirs: GitDirs, name: str) -> str | None:
    raw = read_config(dirs, "memory", name)
    return raw.strip() if raw and raw.strip() else None


def get_bool(dirs: GitDirs, name: str) -> bool:
    raw = (read_config(dirs, "memory", name) or "").strip().lower()
    return raw in ("1", "true", "yes", "on")

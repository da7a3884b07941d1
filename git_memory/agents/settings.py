"""The `memory.*` git config settings of the agent area, with their defaults (a value git
would refuse raises ConfigError)."""

from __future__ import annotations

from git_memory.store import config
from git_memory.store.locate import GitDirs

DEFAULTS: dict[str, int] = {
    "sessionMinMessages": 4,  # user + assistant messages, tool traffic not counted
    "sessionMinUserChars": 40,  # characters the human typed in the whole session
    "distillMinMessages": 6,
    "distillMinUserChars": 200,
    "distillDebounce": 600,  # seconds between two distillations of one session
    "distillMaxChars": 24000,  # cap on what is sent to the command
    "distillTimeout": 120,  # seconds before the command is killed
    "distillKnownEntries": 12,  # existing entries shown to the command (0: none)
    "distillKnownChars": 2000,  # ... and their characters, at most a quarter of MaxChars
}


def get_int(dirs: GitDirs, name: str) -> int:
    """An integer setting (git's syntax, so `1k` works), or its default when unset."""
    return max(0, config.get_int(dirs, "memory." + name, DEFAULTS[name]))


def get_str(dirs: GitDirs, name: str) -> str | None:
    raw = config.get_str(dirs, "memory." + name)
    return raw.strip() if raw and raw.strip() else None

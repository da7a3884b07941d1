"""Agent integrations: the one list of the coding agents we install into, and the Protocol
each agent's module meets. A new agent is one module here and one line in `REGISTRY`.

The CLI's `--agent` choices read `REGISTRY` and every git hook shim starts that CLI, so this
module imports nothing heavy and loads an agent's module only when asked for it.
"""

from __future__ import annotations

import importlib
from pathlib import Path
from typing import Any, Callable, NamedTuple, Protocol, runtime_checkable

from git_memory.errors import BadInput

# `--agent NAME` -> the `context --format` its session-start hook runs (Gemini CLI's prints
# Claude Code's JSON), in the order help and errors list them. Each NAME is `NAME.py` here.
REGISTRY: dict[str, str] = {
    "claude": "claude", "cursor": "cursor", "gemini": "claude", "codex": "codex",
    "vscode": "vscode",
}
SCOPES = ("project", "user")

Merge = Callable[[str], str]  # a file's text ("" when missing) -> its new text


class FileChange(NamedTuple):
    """One file an integration writes: where, how ours goes in, how it comes out again."""
    path: Path
    merge: Merge  # add ours (the same text back when ours is there as wanted)
    unmerge: Merge  # take ours out of a file the user changed since


class AgentHook(NamedTuple):
    """A hook of ours in an agent's configuration: `<python> -m git_memory ARGS` on EVENT."""
    event: str  # the agent's own event name
    args: tuple[str, ...]
    timeout: int | None = None  # in the agent's unit; None: the agent's default


class McpEntry(NamedTuple):
    """Our MCP server in an agent's configuration: `server` under `table`.`git-memory`."""
    path: Path
    table: str  # the JSON key or TOML table holding the agent's servers
    server: dict[str, Any]


class FoundHook(NamedTuple):
    """A hook of ours found in an agent's files, for `doctor` to run as the agent would."""
    event: str
    command: str
    args: tuple[str, ...]  # our subcommand it runs


@runtime_checkable
class Integration(Protocol):
    """What each agent's module holds. `base` is the work tree (project scope) or the home
    directory (user scope)."""
    name: str  # `--agent NAME`
    title: str  # the agent's own name, for messages and manifests
    hooks: tuple[AgentHook, ...]

    def files(self, scope: str, base: Path) -> list[FileChange]:
        """The files it writes for `scope`, in install order (undone in reverse)."""

    def mcp(self, scope: str, base: Path) -> McpEntry | None:
        """Our MCP server entry and the file it goes in; None when the agent gets none."""

    def found(self, scope: str, base: Path) -> list[FoundHook]:
        """Our hooks in its files for `scope` (BadInput when a file cannot be read)."""

    def hook_output(self, text: str) -> dict[str, Any]:
        """The JSON its session-start hook prints to hand `text` to the model."""


_LOADED: dict[str, Integration] = {}


def names() -> tuple[str, ...]:
    return tuple(REGISTRY)


def context_formats() -> tuple[str, ...]:
    """The agents' `context --format` names: one per JSON shape a session-start hook prints."""
    return tuple(dict.fromkeys(REGISTRY.values()))


def context_args(name: str) -> tuple[str, ...]:
    """The subcommand of agent `name`'s session-start hook."""
    return ("context", "--format", REGISTRY[name])


def get(name: str) -> Integration:
    """Agent `name`'s integration (BadInput for an agent we do not know)."""
    if name not in REGISTRY:
        raise BadInput(f"unknown agent {name!r}; supported: {', '.join(REGISTRY)}")
    if name not in _LOADED:
        _LOADED[name] = importlib.import_module(f"{__name__}.{name}")  # type: ignore[assignment]
    return _LOADED[name]


def register(integration: Integration, context_format: str | None = None) -> None:
    """Add an integration defined elsewhere (a plugin, a test) as if it had a module here."""
    REGISTRY[integration.name] = context_format or integration.name
    _LOADED[integration.name] = integration

"""A lifecycle-hooks JSON object holding our one session-start hook: Cursor's, VS Code's, Codex's
and Gemini CLI's, which differ in the event's name, flat entries or Claude Code's nested
groups, Cursor's `version` key and Gemini's hook `name` (shapes and sources: docs/agents.md).

Ours are recognised by the command's shape (`<any python> -m git_memory context --format
AGENT`), or by Gemini's name, so a second install adds nothing and one from another
interpreter replaces ours.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from git_memory.agents.integrations import AgentHook, FileChange, FoundHook, shared
from git_memory.errors import BadInput


@dataclass(frozen=True)
class SessionStartFile:
    hook: AgentHook
    nested: bool = False  # entries inside `{"hooks": [...]}` groups, as Claude Code's
    versioned: bool = False  # the documented file carries `"version": 1`
    name: str | None = None  # ours is the hook of this name (Gemini CLI's)

    def entry(self) -> dict[str, Any]:
        command = shared.command_for(self.hook.args)
        if self.hook.timeout is None:
            return {"command": command}
        named = {"name": self.name} if self.name else {}
        return {**named, "type": "command", "command": command, "timeout": self.hook.timeout}

    def _ours(self, hook: dict[str, Any]) -> bool:
        if self.name is not None:
            return hook.get("name") == self.name
        return shared.our_args(hook.get("command"), (self.hook.args,)) is not None

    def _places(self, groups: list[Any]) -> list[tuple[int, int | None]]:
        """(group index, hook index or None for a flat entry) of ours in the event's list."""
        found: list[tuple[int, int | None]] = []
        for i, group in enumerate(groups):
            if not isinstance(group, dict):
                continue
            if self.nested:
                inner = group.get("hooks")
                for j, hook in enumerate(inner if isinstance(inner, list) else []):
                    if isinstance(hook, dict) and self._ours(hook):
                        found.append((i, j))
            elif self._ours(group):
                found.append((i, None))
        return found

    def _groups(self, data: dict[str, Any], create: bool) -> list[Any] | None:
        event = self.hook.event
        hooks = data.get("hooks")
        if hooks is None and create:
            hooks = data["hooks"] = {}
        if hooks is None:
            return None
        if not isinstance(hooks, dict):
            raise BadInput("'hooks' is not an object; left the file unchanged")
        groups = hooks.get(event)
        if groups is None and create:
            groups = hooks[event] = []
        if groups is not None and not isinstance(groups, list):
            raise BadInput(f"'hooks.{event}' is not a list; left the file unchanged")
        return groups

    def _at(self, groups: list[Any], place: tuple[int, int | None]) -> Any:
        i, j = place
        return groups[i] if j is None else groups[i]["hooks"][j]

    def add(self, data: dict[str, Any]) -> bool:
        """Put our hook in (False when it is there as wanted)."""
        wanted = self.entry()
        groups = self._groups(data, create=False) or []
        places = self._places(groups)
        if len(places) == 1 and self._at(groups, places[0]) == wanted:
            return False
        self.drop(data)  # another interpreter's or a duplicate: replaced by ours
        if self.versioned and "version" not in data:
            data["version"] = 1
        target = self._groups(data, create=True)
        assert target is not None
        target.append({"hooks": [wanted]} if self.nested else wanted)
        return True

    def drop(self, data: dict[str, Any]) -> bool:
        """Take our hook out, and the lists and objects it alone filled (the `version` key
        stays when anything else does)."""
        groups = self._groups(data, create=False)
        places = self._places(groups or [])
        if not groups or not places:
            return False
        for i, j in reversed(places):
            if j is None:
                del groups[i]
            else:
                del groups[i]["hooks"][j]
                if not groups[i]["hooks"]:
                    del groups[i]
        hooks = data["hooks"]
        if not groups:
            del hooks[self.hook.event]
        if not hooks:
            del data["hooks"]
        if self.versioned and set(data) == {"version"}:
            del data["version"]
        return True

    def change(self, path: Path) -> FileChange:
        return shared.json_file(path, self.add, self.drop)

    def found(self, path: Path) -> list[FoundHook]:
        """Our hook in the file at `path`, if it is there (for doctor)."""
        if not path.is_file():
            return []
        groups = self._groups(shared.read_json(path), create=False) or []
        return [FoundHook(self.hook.event, str(self._at(groups, place).get("command")),
                          self.hook.args)
                for place in self._places(groups)]

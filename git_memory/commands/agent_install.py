"""`git memory agent install|uninstall --agent claude`: our hooks in Claude Code settings.

`run(scope, remove)` is the entry point; the lead also routes
`git memory install --agent claude` here.
"""

from __future__ import annotations

from git_memory import ui
from git_memory.agents import claude_settings
from git_memory.errors import NotARepository, UsageProblem
from git_memory.store.locate import discover


def run(*, scope: str, remove: bool, agent: str = "claude") -> int:
    if agent != "claude":
        raise UsageProblem(f"unknown agent {agent!r}; supported: claude")
    if scope not in ("project", "user"):
        raise UsageProblem(f"unknown scope {scope!r}; expected project or user")
    root = None
    if scope == "project":
        dirs = discover()
        if dirs.work_tree is None:
            raise NotARepository("--scope project needs a repository with a working tree")
        root = dirs.work_tree
    path = claude_settings.settings_path(scope, root)
    if remove and not path.exists():
        ui.out(f"nothing to remove: {path} does not exist")
        return 0
    data = claude_settings.load(path)
    changed = claude_settings.unmerge(data) if remove else claude_settings.merge(data)
    if not changed:
        ui.out(f"{path}: already {'without' if remove else 'with'} the git-memory hooks")
        return 0
    claude_settings.save(path, data)
    verb = "removed" if remove else "added"
    ui.out(f"{path}: {verb} git-memory hooks for {', '.join(changed)}")
    return 0

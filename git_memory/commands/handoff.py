"""`git memory handoff TEXT` / `--clear`: open items for the next session on this branch."""

from __future__ import annotations

from git_memory import ui
from git_memory.agents import handoff
from git_memory.agents.gitinfo import current_branch
from git_memory.commands.add import read_text
from git_memory.errors import UsageProblem
from git_memory.model import split_marker
from git_memory.sanitize.scan import redact_string
from git_memory.sanitize.chars import check_text
from git_memory.store.locate import discover


def run(text: str | None, *, clear: bool, branch: str | None) -> int:
    if clear == bool(text):
        raise UsageProblem("give either TEXT or --clear")
    dirs = discover()
    name = branch or current_branch(dirs) or handoff.DETACHED
    if clear:
        shown = redact_string(name)[0]  # a branch named after a token is not printed as is
        record = handoff.record(dirs, f"Handoff cleared for branch {shown}.", name, clear=True)
        ui.warn(f"cleared the handoff for {shown}")
        ui.out(record.id)
        return 0
    body = check_text(read_text(text or ""), "handoff")
    marker, rest = split_marker(body)
    if marker not in (None, "handoff"):
        raise UsageProblem(f"a handoff cannot start with {marker.upper()}:")
    record = handoff.record(dirs, rest, name)
    ui.warn(f"recorded the handoff for {redact_string(name)[0]}")
    ui.out(record.id)
    return 0

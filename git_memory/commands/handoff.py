"""`git memory handoff TEXT` / `--clear`: open items for the next session on this branch."""

from __future__ import annotations

import click

from git_memory import ui
from git_memory.api.memory import Memory
from git_memory.commands.add import read_text
from git_memory.errors import UsageProblem
from git_memory.sanitize.scan import redact_string


@click.command("handoff")
@click.argument("text", required=False)
@click.option("--clear", is_flag=True, help="Clear this branch's handoff.")
@click.option("--branch", metavar="NAME", help="Another branch than the checked-out one.")
def handoff_cmd(text: str | None, *, clear: bool, branch: str | None) -> int:
    """Record open items for the next session on this branch (newest wins); TEXT may be '-'."""
    if clear == bool(text):
        raise UsageProblem("give either TEXT or --clear")
    with Memory() as memory:
        done = memory.handoff("" if clear else read_text(text or ""), clear=clear,
                              branch=branch)
    shown = redact_string(done.branch)[0]  # a branch named after a token is not printed as is
    ui.warn(f"{'cleared' if done.cleared else 'recorded'} the handoff for {shown}")
    ui.out(done.id)
    return 0

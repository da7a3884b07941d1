"""`git memory promote ID --to personal|team` and `git memory demote ID` (the rules:
`Memory.promote` and `Memory.demote`, api/promoting.py)."""

from __future__ import annotations

import click

from git_memory import ui
from git_memory.api.memory import Memory
from git_memory.cli import options
from git_memory.model import short_id


@click.command("promote")
@click.argument("ref", metavar="ID")
@click.option("--to", "to", required=True, type=click.Choice(["personal", "team"]),
              help="personal: copy an entry of this repository into your personal memory;"
              " team: copy a personal (or memory.sources) entry into this repository's memory.")
@options.as_json()
def promote_cmd(ref: str, *, to: str, as_json: bool) -> int:
    """Copy an entry into personal or team memory, with promoted_from (repository, id, commit)."""
    with Memory() as memory:
        done = memory.promote(ref, to=to)
    if as_json:
        ui.out_json({"id": done.id, "to": to, "promoted_from": done.promoted_from,
                     **({"duplicate": True} if done.duplicate else {})})
        return 0
    where = "personal memory" if to == "personal" else "this repository's memory"
    if done.duplicate:
        ui.warn(f"{where} already holds it as {short_id(done.id)}; reinforced that entry instead")
    else:
        ui.warn(f"promoted {short_id(done.source)} to {where}")
    ui.out(done.id)
    return 0


@click.command("demote")
@click.argument("ref", metavar="ID")
@options.reason(required=False)
@options.as_json()
def demote_cmd(ref: str, *, reason: str | None, as_json: bool) -> int:
    """Mark a promoted copy needs_review where it lives (what curate proposes when it was
    contradicted); `flag ID --status active` undoes it."""
    # Mark a promoted copy `needs_review`, in the memory holding it (personal or this one).
    with Memory() as memory:
        done = memory.demote(ref, reason=reason)
    if as_json:
        ui.out_json({"id": done.id, "status": "needs_review", "record": done.record,
                     "memory": "personal" if done.personal else "team"})
    else:
        ui.warn(f"demoted {short_id(done.id)}: needs review in"
                f" {'personal memory' if done.personal else 'this repository'}")
        ui.out(done.record)
    return 0

"""The manual curation commands: supersede, merge, flag, redact, reinforce, contradict.

Each is `Memory`'s method of the same name (its rules in `api.curating`); here: what was
done, and each new record's id, printed.
"""

from __future__ import annotations

from typing import Callable

import click

from git_memory import ui
from git_memory.api.memory import Memory
from git_memory.api.writes import Curated
from git_memory.cli import options


def done(work: Callable[[Memory], Curated]) -> int:
    with Memory() as memory:
        curated = work(memory)
    ui.warn(curated.summary)
    for record_id in curated.ids:
        ui.out(record_id)
    return 0


@click.command("supersede")
@click.argument("old_ref", metavar="OLD")
@click.argument("new_ref", metavar="NEW")
@options.reason()
def supersede_cmd(old_ref: str, new_ref: str, *, reason: str | None) -> int:
    """Record that entry NEW replaces entry OLD (ids, last 8 characters, or keys)."""
    return done(lambda memory: memory.supersede(old_ref, new_ref, reason=reason or ""))


@click.command("merge")
@click.argument("ids", metavar="ID...", nargs=-1, required=True)
@click.option("--content", required=True, metavar="TEXT",
              help="The text of the canonical entry that replaces them.")
@options.reason()
def merge_cmd(ids: tuple[str, ...], content: str, reason: str) -> int:
    """Merge entries into a new canonical entry (type of the first, union of the tags)."""
    return done(lambda memory: memory.merge(ids, content=content, reason=reason or ""))


@click.command("flag")
@click.argument("ref", metavar="ID")
@click.option("--status", required=True,
              type=click.Choice(["needs_review", "canonical", "active"]),
              help="The status to give the entry.")
@options.reason()
def flag_cmd(ref: str, *, status: str, reason: str | None) -> int:
    """Set an entry's status: needs_review, canonical, or back to active."""
    return done(lambda memory: memory.flag(ref, status=status, reason=reason or ""))


@click.command("redact")
@click.argument("ref", metavar="ID")
@options.reason()
def redact_cmd(ref: str, *, reason: str | None) -> int:
    """Hide an entry everywhere and refuse its text from now on (history: see purge)."""
    return done(lambda memory: memory.redact(ref, reason=reason or ""))


@click.command("reinforce")
@click.argument("ref", metavar="ID")
@options.reason(required=False)
def reinforce_cmd(ref: str, *, reason: str | None) -> int:
    """Confirm an entry: raises its confidence and resets its decay."""
    return done(lambda memory: memory.reinforce(ref, reason=reason))


@click.command("contradict")
@click.argument("ref", metavar="ID")
@options.reason()
def contradict_cmd(ref: str, *, reason: str | None) -> int:
    """Record evidence against an entry: lowers its confidence (recall demotes it)."""
    return done(lambda memory: memory.contradict(ref, reason=reason or ""))

"""`git memory log`: the memory branch's history, one line per commit, as the walk goes."""

from __future__ import annotations

import itertools
import time
from typing import Iterable

import click

from git_memory import terminal, ui
from git_memory.api.memory import Memory
from git_memory.cli import options
from git_memory.store.branch import CommitInfo


@click.command("log")
@options.limit("How many commits (0 for all).", default=20, minimum=0)
def log_cmd(*, limit: int) -> int:
    """History of the memory branch, with the records each commit added."""
    with Memory() as memory:
        history = memory.log()
        first = next(history, None)
        if first is None:
            ui.out("no memory branch yet; add an entry with: git memory add \"LEARNED: ...\"")
            return 0
        colour = terminal.use_colour()
        try:
            with terminal.paged():
                _print(itertools.chain([first], history), limit, colour)
        except BrokenPipeError:
            return ui.reader_left()
    return 0


def _print(history: Iterable[tuple[CommitInfo, int, int]], limit: int, colour: bool) -> None:
    for number, (commit, added, removed) in enumerate(history):
        if limit and number >= limit:
            break
        when = time.strftime("%Y-%m-%d %H:%M", time.gmtime(commit.time))
        change = f"+{added}" + (f" -{removed}" if removed else "")
        noun = "record" if added + removed == 1 else "records"
        lines = commit.message.strip().split("\n")
        sha = terminal.paint(commit.id[:10], "id", colour)
        line = f"{sha} {when} {commit.author}: {lines[0]} ({change} {noun})"
        # The walk streams commit by commit: the first line goes out at once.
        (ui.out_first if number == 0 else ui.out)(line)
        for line in lines[1:]:
            if ": " in line and line.split(": ", 1)[0].replace("-", "").isalpha():
                ui.out(f"    {line.strip()}")

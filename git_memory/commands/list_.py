"""`git memory list`: entries newest first, streamed from the index cursor (the first line
is out before the last row is read)."""

from __future__ import annotations

from typing import Any, Iterator

import click

from git_memory import terminal, ui
from git_memory.api.memory import Memory
from git_memory.api.reads import check_statuses
from git_memory.cli import options
from git_memory.store.sources import memory_dirs

CONTENT_OFF_TERMINAL = 80  # characters of content per line when the width is unknown
MIN_CONTENT = 20  # below this many columns for the text, age and tags give way


def format_row(entry: dict, columns: int | None = None, colour: bool = False) -> str:
    """One line: short id, type, the content's first line, status, age and tags. With
    `columns` (a terminal's width) the content is cut so the whole line fits."""
    short = entry["id"][-8:].lower()
    tags = " ".join("#" + t for t in entry["tags"])
    status = "" if entry["status"] == "active" else f" [{entry['status']}]"
    if entry.get("from"):
        status += f" [{entry['from']}]"  # not the local branch: origin, personal, a source
    when = entry["age"] if "age" in entry else ui.age(entry["created"])
    tail = "  ".join(x for x in (when, tags) if x)
    suffix = status + (f"  ({tail})" if tail else "")
    prefix = f"{short}  {entry['type']:<13} "
    if columns is None:
        content = ui.first_line(entry["content"], CONTENT_OFF_TERMINAL)
    else:
        room = columns - terminal.display_width(prefix + suffix)
        if room < MIN_CONTENT and tail:  # a narrow terminal: the text matters more
            tail, suffix = "", status
            room = columns - terminal.display_width(prefix + suffix)
        content = terminal.fit(entry["content"], max(room, 8))
    painted = (terminal.paint(short, "id", colour) + prefix[len(short):] + content
               + terminal.paint(status, "status", colour))
    return painted + (f"  ({tail})" if tail else "")


def run(
    *, types: tuple[str, ...], tags: tuple[str, ...], include_all: bool, limit: int | None,
    as_json: bool, statuses: tuple[str, ...] = (), personal: bool = False,
) -> int:
    wanted = check_statuses(statuses)
    with Memory.at(memory_dirs(personal)) as memory:
        try:
            entries = memory.list(types=types, tags=tags, include_all=include_all, limit=limit,
                                  statuses=wanted, brief=not as_json)
            if as_json:
                ui.out_json_list(entries)
            else:
                _print(entries, wanted)
        except BrokenPipeError:
            return ui.reader_left()
    return 0


def _print(entries: Iterator[dict[str, Any]], wanted: tuple[str, ...]) -> None:
    """One line per entry as the cursor hands it out; the first is flushed at once."""
    first = next(entries, None)
    if first is None and wanted:
        ui.warn(f"no entries with status {' or '.join(wanted)}")
        return
    if first is None:
        ui.out("no entries yet; add one with: git memory add \"LEARNED: ...\"")
        return
    columns, colour = terminal.width(), terminal.use_colour()
    with terminal.paged():
        ui.out_first(format_row(first, columns, colour))
        for entry in entries:
            ui.out(format_row(entry, columns, colour))


@click.command("list")
@options.types()
@options.tags()
@options.include_all()
@click.option("--status", "statuses", multiple=True, metavar="STATUS",
              help="Only entries with this status: active, canonical, needs_review, "
              "superseded or redacted (repeatable: any of them).")
@options.limit("At most this many (newest first).")
@options.as_json()
@options.personal()
def list_cmd(**flags: Any) -> int:
    """List entries, newest first (teammates' entries that a fetch brought are marked
    with their remote, personal ones with `personal`)."""
    return run(**flags)

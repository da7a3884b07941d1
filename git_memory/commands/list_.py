"""`git memory list`: entries in time order, newest first."""

from __future__ import annotations

from git_memory import terminal, ui
from git_memory.index.db import open_index
from git_memory.index.entries import entry_dict, list_entries
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
    when = ui.age(entry["created"])
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
    as_json: bool, personal: bool = False,
) -> int:
    index = open_index(memory_dirs(personal))
    try:
        rows = list_entries(index, types, tags, include_all, limit)
        adopted = index.adopted()
        entries = [entry_dict(r, adopted) for r in rows]
    finally:
        index.close()
    if as_json:
        ui.out_json(entries)
    elif not entries:
        ui.out("no entries yet; add one with: git memory add \"LEARNED: ...\"")
    else:
        columns, colour = terminal.width(), terminal.use_colour()
        with terminal.paged():
            for entry in entries:
                ui.out(format_row(entry, columns, colour))
    return 0

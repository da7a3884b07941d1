"""`git memory list`: entries in time order, newest first (`--status`: of those statuses),
streamed from the index cursor (flat memory at any size; the first line is out before the
last row is read)."""

from __future__ import annotations

import json
from typing import Iterator

from git_memory import terminal, ui
from git_memory.errors import UsageProblem
from git_memory.fold import EXPLICIT_STATUSES
from git_memory.index.db import open_index
from git_memory.index.entries import entry_dict, iter_entries, source_label
from git_memory.index.schema import Row
from git_memory.store.sources import memory_dirs


# Every status the fold gives an entry.
STATUSES = (*EXPLICIT_STATUSES, "superseded", "redacted")
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


def check_statuses(statuses: tuple[str, ...]) -> tuple[str, ...]:
    """The statuses asked for, each one the fold knows (else a usage error naming them)."""
    wanted = tuple(dict.fromkeys(s.strip().lower().replace("-", "_") for s in statuses))
    for status in wanted:
        if status not in STATUSES:
            raise UsageProblem(f"unknown status {status!r}; expected one of: {', '.join(STATUSES)}")
    return wanted


def run(
    *, types: tuple[str, ...], tags: tuple[str, ...], include_all: bool, limit: int | None,
    as_json: bool, statuses: tuple[str, ...] = (), personal: bool = False,
) -> int:
    wanted = check_statuses(statuses)
    index = open_index(memory_dirs(personal))
    try:
        rows = iter_entries(index, types, tags, include_all, limit, statuses=wanted)
        adopted = index.adopted()
        if as_json:
            ui.out_json_list(entry_dict(r, adopted) for r in rows)
        else:
            _print(rows, wanted, adopted)
    except BrokenPipeError:
        return ui.reader_left()
    finally:
        index.close()
    return 0


def _print(rows: Iterator[Row], wanted: tuple[str, ...], adopted: str | None) -> None:
    """One line per row as the cursor hands it out; the first is flushed at once."""
    first = next(rows, None)
    if first is None and wanted:
        ui.warn(f"no entries with status {' or '.join(wanted)}")
        return
    if first is None:
        ui.out("no entries yet; add one with: git memory add \"LEARNED: ...\"")
        return
    columns, colour = terminal.width(), terminal.use_colour()
    view = _Viewer(adopted)
    with terminal.paged():
        ui.out_first(format_row(view(first), columns, colour))
        for row in rows:
            ui.out(format_row(view(row), columns, colour))


class _Viewer:
    """The fields a line shows, read from a row without `entry_dict`'s four JSON parses;
    tag lists and ages are remembered by their stored text (a long listing repeats them)."""

    LIMIT = 10_000  # remembered values of each kind; cleared when full

    def __init__(self, adopted: str | None) -> None:
        self.adopted = adopted  # the label of local rows when a remote's copy stands in
        self.tags: dict[str, list[str]] = {}
        self.ages: dict[str, str] = {}

    def __call__(self, row: Row) -> dict:
        raw, created = row["tags"], row["created"]
        tags = self.tags.get(raw)
        if tags is None:
            tags = self.tags[raw] = json.loads(raw)
        when = self.ages.get(created)
        if when is None:
            when = self.ages[created] = ui.age(created)
        if len(self.tags) > self.LIMIT or len(self.ages) > self.LIMIT:
            self.tags.clear()
            self.ages.clear()
        return {"id": row["id"], "type": row["type"], "content": row["content"], "tags": tags,
                "status": row["status"], "created": created, "age": when,
                "from": source_label(row) or self.adopted}

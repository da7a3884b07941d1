"""`git memory list`: entries in time order, newest first."""

from __future__ import annotations

from git_memory import ui
from git_memory.index.db import open_index
from git_memory.index.entries import entry_dict, list_entries
from git_memory.store.locate import discover


def format_row(entry: dict) -> str:
    tags = " ".join("#" + t for t in entry["tags"])
    status = "" if entry["status"] == "active" else f" [{entry['status']}]"
    when = ui.age(entry["created"])
    head = f"{entry['id'][-8:].lower()}  {entry['type']:<13} {ui.first_line(entry['content'], 80)}"
    tail = "  ".join(x for x in (when, tags) if x)
    return f"{head}{status}" + (f"  ({tail})" if tail else "")


def run(
    *, types: tuple[str, ...], tags: tuple[str, ...], include_all: bool, limit: int | None, as_json: bool
) -> int:
    index = open_index(discover())
    try:
        rows = list_entries(index, types, tags, include_all, limit)
        entries = [entry_dict(r) for r in rows]
    finally:
        index.close()
    if as_json:
        ui.out_json(entries)
    elif not entries:
        ui.out("no entries yet; add one with: git memory add \"LEARNED: ...\"")
    else:
        for entry in entries:
            ui.out(format_row(entry))
    return 0

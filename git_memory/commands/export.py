"""`git memory export DIR` (every record's file at its branch path) or `--format jsonl
[FILE]` (a header line, then one line per record; standard output without FILE).

Both keep every record, entries and curation records alike, with ids, authors, times
and links, so `git memory import` of the export rebuilds the same memory
(capture/records.py). A redacted entry leaves with the index's placeholder text, never
the text it hid, and keeps its links so the fold stays the same.
"""

from __future__ import annotations

import json
from pathlib import Path

from git_memory import ui
from git_memory.capture.records import header, to_line
from git_memory.errors import BadInput, UsageProblem
from git_memory.index.db import open_index
from git_memory.index.entries import export_records
from git_memory.model import Record
from git_memory.store.layout import MODE_BLOB, check_entry
from git_memory.store.locate import discover, memory_ref
from git_memory.store.record_format import dump_record


def _write_lines(records: list[Record], ref: str, target: str | None) -> None:
    lines = [json.dumps(header(len(records), ref), ensure_ascii=False)]
    lines += [json.dumps(to_line(r), ensure_ascii=False) for r in records]
    if target is None or target == "-":
        for line in lines:
            ui.out(line)
        return
    path = Path(target)
    if path.is_dir():
        raise BadInput(f"{path} is a folder; give a file name, or export DIR without --format")
    try:
        path.write_text("".join(line + "\n" for line in lines), encoding="utf-8")
    except OSError as exc:
        raise BadInput(f"cannot write {path}: {exc.strerror}") from None
    ui.out(f"exported {_count(records)} to {path}")


def _write_tree(records: list[Record], target: Path) -> None:
    if target.exists() and not target.is_dir():
        raise BadInput(f"{target} exists and is not a folder")
    target.mkdir(parents=True, exist_ok=True)
    written: list[Record] = []
    for record in records:
        path = _inside(target, record.path)
        if path is None:  # a hand-made path must not write outside DIR
            continue
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(dump_record(record), encoding="utf-8")
        written.append(record)
    ui.out(f"exported {_count(written)} to {target}")
    if len(written) < len(records):
        skipped = len(records) - len(written)
        ui.warn(f"skipped {skipped} record{'' if skipped == 1 else 's'} whose path would"
                f" leave {target}")


def _count(records: list[Record]) -> str:
    entries = sum(1 for r in records if r.kind == "entry")
    events = len(records) - entries
    return (f"{entries} entr{'y' if entries == 1 else 'ies'} and {events} curation"
            f" record{'' if events == 1 else 's'}")


def run(target: str | None, *, fmt: str) -> int:
    if fmt == "markdown" and not target:
        raise UsageProblem("export needs a folder, or --format jsonl for standard output")
    dirs = discover()
    index = open_index(dirs)
    try:
        records = export_records(index)
    finally:
        index.close()
    if fmt == "jsonl":
        _write_lines(records, memory_ref(dirs), target)
    else:
        _write_tree(records, Path(target or "."))
    return 0


def _inside(target: Path, relative: str) -> Path | None:
    """Where `relative` goes under `target`, or None when it is not a record path or,
    resolved (symlinks already in the folder included), would land outside it."""
    if check_entry(relative, MODE_BLOB) is not None:
        return None
    root = target.resolve()
    path = (root / relative).resolve()
    return path if path.is_relative_to(root) and path != root else None

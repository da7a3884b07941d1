"""`git memory export DIR` (a Markdown tree) or `--format jsonl` (to stdout)."""

from __future__ import annotations

import json
from pathlib import Path

from git_memory import ui
from git_memory.errors import BadInput, UsageProblem
from git_memory.index.db import open_index
from git_memory.index.entries import entry_dict, list_entries, row_to_record
from git_memory.store.layout import MODE_BLOB, check_entry
from git_memory.store.locate import discover
from git_memory.store.record_format import dump_record


def run(directory: str | None, *, fmt: str, include_all: bool) -> int:
    if fmt == "markdown" and not directory:
        raise UsageProblem("export needs a folder, or --format jsonl for standard output")
    index = open_index(discover())
    try:
        rows = list_entries(index, include_all=include_all, newest_first=False)
        if fmt == "jsonl":
            for row in rows:
                ui.out(json.dumps(entry_dict(row), ensure_ascii=False))
            return 0
        target = Path(directory or ".")
        if target.exists() and not target.is_dir():
            raise BadInput(f"{target} exists and is not a folder")
        target.mkdir(parents=True, exist_ok=True)
        written = refused = 0
        for row in rows:
            path = _inside(target, row["path"])
            if path is None:
                refused += 1
                continue
            record = row_to_record(row)
            record.fields["status"] = row["status"]
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(dump_record(record), encoding="utf-8")
            written += 1
    finally:
        index.close()
    ui.out(f"exported {written} entries to {target}")
    if refused:
        ui.warn(f"skipped {refused} entries whose path would leave {target}")
    return 0


def _inside(target: Path, relative: str) -> Path | None:
    """Where `relative` goes under `target`, or None when it is not a record path or,
    resolved (symlinks already in the folder included), would land outside it."""
    if check_entry(relative, MODE_BLOB) is not None:
        return None
    root = target.resolve()
    path = (root / relative).resolve()
    return path if path.is_relative_to(root) and path != root else None

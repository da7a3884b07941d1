"""`git memory export DIR` (a Markdown tree) or `--format jsonl` (to stdout)."""

from __future__ import annotations

import json
from pathlib import Path

from git_memory import ui
from git_memory.errors import BadInput, UsageProblem
from git_memory.index.db import open_index
from git_memory.index.entries import entry_dict, list_entries, row_to_record
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
        for row in rows:
            record = row_to_record(row)
            record.fields["status"] = row["status"]
            path = target / row["path"]
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(dump_record(record), encoding="utf-8")
    finally:
        index.close()
    ui.out(f"exported {len(rows)} entries to {target}")
    return 0

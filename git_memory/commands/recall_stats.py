"""`git memory recall --stats`: counts by type, status and tag, and the index's health."""

from __future__ import annotations

from typing import Any

from git_memory import ui
from git_memory.index import stats
from git_memory.index.db import Index


def show_stats(index: Index, as_json: bool) -> int:
    found: dict[str, Any] = stats.collect(index)
    if as_json:
        ui.out_json(found)
        return 0
    ui.out(ui.plural(found['entries'], 'entry'))
    for title, key in (("by type", "by_type"), ("by status", "by_status"),
                       ("top tags", "by_tag"), ("local flags", "local_flags")):
        if found[key]:
            ui.out(f"{title}: " + ", ".join(f"{k} {v}" for k, v in found[key].items()))
    info = found["index"]
    ui.out(
        f"index: {info['path']} ({info['bytes'] // 1024} KiB, schema {info['schema']},"
        f" at {(info['stamp'] or 'empty branch')[:12]}), {ui.plural(info['records'], 'record')}"
        f" ({info['curation_records']} curation)"
    )
    if info["malformed_files"] or info["fold_problems"]:
        ui.out(f"problems: {info['malformed_files']} malformed files,"
               f" {info['fold_problems']} curation problems (see: git memory doctor)")
    return 0

"""`git memory recall --stats`: counts by type, status and tag, the index's health and the
vectors' coverage per model (also said by `doctor`)."""

from __future__ import annotations

from typing import Any

from git_memory import ui
from git_memory.embed import coverage
from git_memory.index import stats
from git_memory.index.db import Index


def show_stats(index: Index, as_json: bool) -> int:
    found: dict[str, Any] = stats.collect(index)
    found["embedding"] = coverage.report(index.dirs, index)
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
    say_vectors(found["embedding"], "")
    if info["malformed_files"] or info["fold_problems"]:
        ui.out(f"problems: {info['malformed_files']} malformed files,"
               f" {info['fold_problems']} curation problems (see: git memory doctor)")
    return 0


def say_vectors(found: dict[str, Any], lead: str) -> None:
    """Each model's coverage ("4,100 of 5,000 entries"), the current one first; `recall
    --stats` says the same."""
    if found["unavailable"] and found["configured"]:
        ui.out(f"note  recall by meaning unavailable: {found['unavailable']}")
    for item in found["models"]:
        use = "used by recall" if item["current"] else "an earlier model: not used, not mixed"
        ui.out(f"{lead}vectors {item['model']}: {item['have']:,} of {item['total']:,} entries ({use})")
    if found["worker_running"]:
        ui.out(f"{lead}vectors: background embedding running")

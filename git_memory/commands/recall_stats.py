"""`git memory recall --stats`: counts by type, status and tag, and the index's health."""

from __future__ import annotations

import json
from typing import Any

from git_memory import ui
from git_memory.index.db import SCHEMA_VERSION, Index

TOP_TAGS = 20


def collect(index: Index) -> dict[str, Any]:
    """Counts and index facts, as one JSON-ready dict."""
    conn = index.conn

    def counts(sql: str) -> dict[str, int]:
        return {str(k): int(v) for k, v in conn.execute(sql)}

    meta = dict(conn.execute("SELECT k, v FROM meta").fetchall())
    fold_problems = json.loads(meta.get("fold_problems") or "[]")
    size = index.path.stat().st_size if index.path.exists() else 0
    return {
        "entries": conn.execute("SELECT count(*) FROM records WHERE kind = 'entry'").fetchone()[0],
        "by_type": counts("SELECT type, count(*) FROM records WHERE kind = 'entry'"
                          " GROUP BY type ORDER BY 2 DESC, 1"),
        "by_status": counts("SELECT status, count(*) FROM records WHERE kind = 'entry'"
                            " GROUP BY status ORDER BY 2 DESC, 1"),
        "by_tag": counts("SELECT j.value, count(*) FROM records r, json_each(r.tags) j"
                         " WHERE r.kind = 'entry' GROUP BY j.value ORDER BY 2 DESC, 1"
                         f" LIMIT {TOP_TAGS}"),
        "local_flags": counts("SELECT flag, count(*) FROM local_flags GROUP BY flag ORDER BY 1"),
        "index": {
            "path": str(index.path),
            "bytes": size,
            "schema": SCHEMA_VERSION,
            "stamp": index.stamp,
            "records": conn.execute("SELECT count(*) FROM records").fetchone()[0],
            "curation_records": conn.execute(
                "SELECT count(*) FROM records WHERE kind != 'entry'").fetchone()[0],
            "malformed_files": conn.execute("SELECT count(*) FROM problems").fetchone()[0],
            "fold_problems": len(fold_problems),
        },
    }


def show_stats(index: Index, as_json: bool) -> int:
    stats = collect(index)
    if as_json:
        ui.out_json(stats)
        return 0
    ui.out(f"{stats['entries']} entries")
    for title, key in (("by type", "by_type"), ("by status", "by_status"),
                       ("top tags", "by_tag"), ("local flags", "local_flags")):
        if stats[key]:
            ui.out(f"{title}: " + ", ".join(f"{k} {v}" for k, v in stats[key].items()))
    info = stats["index"]
    ui.out(
        f"index: {info['path']} ({info['bytes'] // 1024} KiB, schema {info['schema']},"
        f" at {(info['stamp'] or 'empty branch')[:12]}), {info['records']} records"
        f" ({info['curation_records']} curation)"
    )
    if info["malformed_files"] or info["fold_problems"]:
        ui.out(f"problems: {info['malformed_files']} malformed files,"
               f" {info['fold_problems']} curation problems (see: git memory doctor)")
    return 0

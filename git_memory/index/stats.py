"""Counts and health facts about the index (recall --stats, doctor, reindex)."""

from __future__ import annotations

import json
from typing import Any

from git_memory.index.files import Index
from git_memory.index.schema import SCHEMA_VERSION


TOP_TAGS = 20


def sizes(index: Index) -> dict[str, int]:
    """entries, records (entries and curation) and malformed files skipped."""
    return {
        "entries": _count(index, "SELECT count(*) FROM records WHERE kind = 'entry'"),
        "records": _count(index, "SELECT count(*) FROM records"),
        "malformed_files": _count(index, "SELECT count(*) FROM problems"),
    }


def malformed(index: Index) -> list[dict[str, str]]:
    """The record files the index skipped: [{path, reason}], by path."""
    return [
        {"path": path, "reason": reason}
        for path, reason in index.conn.execute("SELECT path, reason FROM problems ORDER BY path")
    ]


def fold_problems(index: Index) -> list[Any]:
    """The curation records the fold could not apply (as the last refold left them)."""
    row = index.conn.execute("SELECT v FROM meta WHERE k = 'fold_problems'").fetchone()
    return json.loads(row[0] if row and row[0] else "[]")


def indexed_blobs(index: Index) -> list[str]:
    """The blob id of every record file of the local branch the index holds, read or
    skipped (doctor compares them with the branch's; rows from sources are not its)."""
    return [b for (b,) in index.conn.execute(
        "SELECT blob FROM records WHERE src = '' UNION ALL SELECT blob FROM problems")]


def duplicate_texts(index: Index) -> list[list[dict[str, str]]]:
    """Live entries sharing a normalised text hash (the writer keeps one per text; a merge
    of histories can bring a second): groups of [{id, path, created, status}], oldest
    first in each, groups in hash order. The shared hashes come from the hash index alone
    (a covering scan, ~0.1 s at 100k, where filtering live rows first reads the table);
    the few rows holding them are then read and the groups still live kept."""
    groups: dict[str, list[dict[str, str]]] = {}
    for digest, rid, path, created, status in index.conn.execute(
        "SELECT hash, id, path, created, status FROM records WHERE hash IN"
        " (SELECT hash FROM records WHERE hash IS NOT NULL GROUP BY hash HAVING count(*) > 1)"
        " AND kind = 'entry' AND status NOT IN ('superseded', 'redacted')"
        # Only this memory and its remotes' copies: personal memory and memory.sources
        # may hold the same text (a promoted copy) without anything to fix here.
        " AND (src = '' OR src LIKE 'remote:%')"
        " ORDER BY hash, created, id"
    ):
        groups.setdefault(digest, []).append(
            {"id": rid, "path": path, "created": created, "status": status})
    return [group for group in groups.values() if len(group) > 1]


def flag_count(index: Index) -> int:
    return _count(index, "SELECT count(*) FROM local_flags")


def collect(index: Index) -> dict[str, Any]:
    """Counts by type, status, tag and local flag, and the index's facts (JSON-ready)."""
    conn = index.conn

    def counts(sql: str) -> dict[str, int]:
        return {str(k): int(v) for k, v in conn.execute(sql)}

    size = index.path.stat().st_size if index.path.exists() else 0
    return {
        "entries": _count(index, "SELECT count(*) FROM records WHERE kind = 'entry'"),
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
            "records": _count(index, "SELECT count(*) FROM records"),
            "curation_records": _count(index, "SELECT count(*) FROM records WHERE kind != 'entry'"),
            "malformed_files": _count(index, "SELECT count(*) FROM problems"),
            "fold_problems": len(fold_problems(index)),
        },
    }


def _count(index: Index, sql: str) -> int:
    return int(index.conn.execute(sql).fetchone()[0])


def naming(index: Index, blob: str) -> int:
    """How many times live rows name `blob` (a purge record's `blobs` field): doctor
    tells these from a purged blob left behind in the index file's bytes."""
    row = index.conn.execute(
        "SELECT coalesce(sum((length(fields) - length(replace(fields, ?1, ''))) / 40), 0)"
        " FROM records WHERE instr(fields, ?1) > 0", (blob,)).fetchone()
    return int(row[0])

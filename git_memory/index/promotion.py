"""The index's answers for promotion (curation.promotion decides): entries other memories
hold too, promoted copies, entries reinforced enough. A "repository" is a memory this index
reads: the local branch with its remotes' copies, each `source:NAME`, and `personal`.
"""

from __future__ import annotations

import json

from git_memory.index.files import Index
from git_memory.index.schema import TEAM, VISIBLE, Row, rows_in


def in_sources(index: Index) -> dict[str, list[str]]:
    """Team entries whose text or key a memory.sources entry also holds: {id: [source names]}."""
    found: dict[str, set[str]] = {}
    conn = index.conn
    elsewhere = conn.execute(
        f"SELECT hash, key, src FROM records WHERE src != '' AND src LIKE 'source:%'"
        f" AND kind = 'entry' AND {VISIBLE}").fetchall()
    for digest, key, src in elsewhere:
        rows = conn.execute(
            f"SELECT id FROM records WHERE kind = 'entry' AND {VISIBLE} AND {TEAM}"
            " AND (hash = ? OR (? IS NOT NULL AND key = ?))", (digest, key, key)).fetchall()
        for (rid,) in rows:
            found.setdefault(rid, set()).add(src.partition(":")[2])
    return {rid: sorted(names) for rid, names in found.items()}


def reinforced(index: Index, threshold: float) -> list[Row]:
    """Visible team entries reinforced at least once whose confidence reached `threshold`."""
    return index.conn.execute(
        f"SELECT * FROM records WHERE kind = 'entry' AND {VISIBLE} AND {TEAM}"
        " AND state IS NOT NULL AND confidence >= ?"
        " AND json_extract(state, '$.reinforcements') >= 1 ORDER BY created, id",
        (threshold,)).fetchall()


def team_entries(index: Index, ids: list[str]) -> list[Row]:
    """These team entries (visible), oldest first."""
    rows = rows_in(index.conn, f"SELECT * FROM records WHERE kind = 'entry' AND {VISIBLE}"
                   f" AND {TEAM} AND id IN ({{}})", ids)
    return sorted(rows, key=lambda r: (r["created"], r["id"]))


def personal_holds(index: Index) -> tuple[set[str], set[str]]:
    """(text hashes, promoted-from ids) of personal memory's entries, any status."""
    hashes: set[str] = set()
    origins: set[str] = set()
    for digest, fields in index.conn.execute(
            "SELECT hash, fields FROM records WHERE src = 'personal' AND kind = 'entry'"):
        hashes.add(digest)
        came = json.loads(fields or "{}").get("promoted_from")
        if isinstance(came, dict) and came.get("id"):
            origins.add(str(came["id"]))
    return hashes, origins


def promoted_copies(index: Index) -> list[Row]:
    """Entries (personal or this memory's) that carry `promoted_from`, not yet in review."""
    return index.conn.execute(
        f"SELECT * FROM records WHERE kind = 'entry' AND {VISIBLE} AND status != 'needs_review'"
        " AND (src = '' OR src = 'personal')"
        # LIKE first: a plain text test skips the JSON parse of every other row (1M at scale).
        " AND fields LIKE '%\"promoted\\_from\"%' ESCAPE '\\'"
        " AND json_extract(fields, '$.promoted_from.id') IS NOT NULL ORDER BY created, id"
    ).fetchall()


def state_by_id(index: Index, entry_id: str) -> tuple[str, dict] | None:
    """(status, fold state) of any entry with this id, or None."""
    row = index.conn.execute(
        "SELECT status, state FROM records WHERE kind = 'entry' AND id = ? LIMIT 1", (entry_id,)
    ).fetchone()
    if row is None:
        return None
    return row[0], json.loads(row[1]) if row[1] else {}

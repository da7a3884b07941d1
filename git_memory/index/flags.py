"""The checkout hook's local flags (entries whose anchored files are gone here): kept in the
index's `local_flags` table, never on the branch; a rebuild carries them over."""

from __future__ import annotations

import sqlite3

from git_memory.index.files import Index
from git_memory.index.schema import transaction


def local_flags(index: Index) -> dict[str, tuple[str, str | None]]:
    """{entry id: (flag, reason)}; {} when the table cannot be read."""
    try:
        rows = index.conn.execute("SELECT id, flag, reason FROM local_flags").fetchall()
    except sqlite3.DatabaseError:
        return {}
    return {row["id"]: (row["flag"], row["reason"]) for row in rows}


def replace_local_flags(index: Index, flags: dict[str, tuple[str, str]], checked: str) -> None:
    """Replace every flag with `flags` ({id: (flag, reason)}, checked at `checked`), at once."""
    conn = index.conn
    with transaction(conn, "BEGIN IMMEDIATE"):
        conn.execute("DELETE FROM local_flags")
        conn.executemany(
            "INSERT INTO local_flags(id, flag, reason, checked) VALUES (?, ?, ?, ?)",
            [(eid, flag, reason, checked) for eid, (flag, reason) in flags.items()],
        )

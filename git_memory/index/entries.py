"""Reading entries out of the index: filters, listing, and their JSON shape."""

from __future__ import annotations

import json
import sqlite3

from git_memory.index.db import Index

# `typing` costs recall ~2 ms to import and is only needed by the type checker here.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

HIDDEN = ("superseded", "redacted")


def entry_dict(row: sqlite3.Row) -> dict[str, Any]:
    """The public JSON shape of an entry (list --json, recall --json, export)."""
    state = json.loads(row["state"]) if row["state"] else {}
    fields = json.loads(row["fields"] or "{}")
    fields.pop("status", None)
    return {
        "id": row["id"],
        "key": row["key"],
        "type": row["type"],
        "content": row["content"],
        "tags": json.loads(row["tags"]),
        "status": row["status"],
        "created": row["created"],
        "author": row["author"],
        "source": row["source"],
        "origin": json.loads(row["origin"] or "{}"),
        "confidence": row["confidence"],
        "path": row["path"],
        "supersedes": state.get("supersedes", []),
        "superseded_by": state.get("superseded_by", []),
        "merged_from": state.get("merged_from", []),
        "fields": fields,
    }


def filters(
    types: tuple[str, ...] | list[str] = (),
    tags: tuple[str, ...] | list[str] = (),
    include_all: bool = False,
    since: str | None = None,
    alias: str = "r",
) -> tuple[str, list[Any]]:
    """A WHERE fragment (without WHERE) and its parameters."""
    where = [f"{alias}.kind = 'entry'"]
    params: list[Any] = []
    if not include_all:
        where.append(f"{alias}.status NOT IN ('superseded', 'redacted')")
    if types:
        where.append(f"{alias}.type IN ({','.join('?' * len(types))})")
        params.extend(t.lower() for t in types)
    for tag in tags:
        where.append(f"EXISTS (SELECT 1 FROM json_each({alias}.tags) WHERE value = ?)")
        params.append(tag.lstrip("#").lower())
    if since:
        where.append(f"{alias}.created >= ?")
        params.append(since)
    return " AND ".join(where), params


def list_entries(
    index: Index,
    types: tuple[str, ...] | list[str] = (),
    tags: tuple[str, ...] | list[str] = (),
    include_all: bool = False,
    limit: int | None = None,
    newest_first: bool = True,
) -> list[sqlite3.Row]:
    where, params = filters(types, tags, include_all)
    order = "DESC" if newest_first else "ASC"
    sql = f"SELECT * FROM records r WHERE {where} ORDER BY r.created {order}, r.id {order}"
    if limit:
        sql += " LIMIT ?"
        params.append(limit)
    return index.conn.execute(sql, params).fetchall()

"""Every question about entries (by id, key or text, newest, anchored near some paths, the
current handoff, ...) as a named function, and an entry's public JSON shape.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator, Sequence

from git_memory.errors import GitMemoryError
from git_memory.index.files import Index
from git_memory.index.rank.hits import JOIN_FLAGS, SELECT
from git_memory.index.schema import TEAM, VISIBLE, Row, rows_in

TYPE_CHECKING = False  # `typing` is off the hot path: for the type checker only
if TYPE_CHECKING:
    from typing import Any


def entry_dict(row: Row, adopted: str | None = None) -> dict[str, Any]:
    """The public JSON shape of an entry; `adopted`: the label of local rows (Index.adopted)."""
    state = json.loads(row["state"]) if row["state"] else {}
    fields = json.loads(row["fields"] or "{}")
    fields.pop("status", None)
    entry: dict[str, Any] = {
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
        "from": source_label(row) or adopted,
    }
    if state.get("reverted"):  # flagged by a revert of the commit it was captured from
        entry["reverted_by"] = state["reverted"].get("by")
    return entry


def source_label(row: Row) -> str | None:
    """Where a row comes from: `origin`, `personal`, a source's name; None: the local branch."""
    try:
        src = row["src"]
    except (IndexError, KeyError):  # a row of a narrower SELECT
        return None
    return (src.partition(":")[2] or src) if src else None


def filters(
    types: Sequence[str] = (),
    tags: Sequence[str] = (),
    include_all: bool = False,
    since: str | None = None,
    alias: str = "r",
) -> tuple[str, list[Any]]:
    """A WHERE fragment (without WHERE) and its parameters."""
    where = [f"{alias}.kind = 'entry'"]
    params: list[Any] = []
    if not include_all:
        where.append(f"{alias}.{VISIBLE}")
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


def iter_entries(
    index: Index,
    types: Sequence[str] = (),
    tags: Sequence[str] = (),
    include_all: bool = False,
    limit: int | None = None,
    newest_first: bool = True,
    statuses: Sequence[str] = (),
) -> Iterator[Row]:
    """Entries passing the filters, by creation time (ties by id), from the cursor (list
    streams them). With `statuses`, only entries of those folded statuses (superseded and
    redacted included when named)."""
    where, params = filters(types, tags, include_all or bool(statuses))
    if statuses:
        where += f" AND r.status IN ({','.join('?' * len(statuses))})"
        params.extend(statuses)
    order = "DESC" if newest_first else "ASC"
    sql = f"SELECT * FROM records r WHERE {where} ORDER BY r.created {order}, r.id {order}"
    if limit:
        sql += " LIMIT ?"
        params.append(limit)
    return index.conn.execute(sql, params)  # a cursor: closing the index ends it cleanly


def newest(index: Index, count: int, types: Sequence[str] = ()) -> list[Row]:
    """The `count` newest visible entries (walks the created index backwards: no full scan)."""
    where, params = filters(types)
    return index.conn.execute(
        f"SELECT * FROM records r WHERE {where} ORDER BY r.created DESC LIMIT ?",
        [*params, count],
    ).fetchall()


def newest_flagged(
    index: Index, count: int, types: Sequence[str] = (), tags: Sequence[str] = (),
    include_all: bool = False, since: str | None = None,
) -> list[Row]:
    """The `count` newest entries passing the filters, with their `local_flag` (recall)."""
    where, params = filters(types, tags, include_all, since)
    return index.conn.execute(
        f"SELECT {SELECT} FROM records r {JOIN_FLAGS} WHERE {where}"
        " ORDER BY r.created DESC, r.id DESC LIMIT ?",
        [*params, count],
    ).fetchall()


def has_entries(index: Index) -> bool:
    """Is there any visible entry at all?"""
    where, params = filters()
    found = index.conn.execute(f"SELECT 1 FROM records r WHERE {where} LIMIT 1", params)
    return found.fetchone() is not None


def review_queue(index: Index, machine_sources: Sequence[str], below: float) -> list[Row]:
    """Visible entries waiting for a person, oldest first: `needs_review`, or (while not
    `canonical`, which a review or a curation merge makes them) written by one of
    `machine_sources` or with a confidence under `below`."""
    marks = ",".join("?" * len(machine_sources)) or "NULL"
    return index.conn.execute(
        f"SELECT * FROM records WHERE kind = 'entry' AND {VISIBLE} AND {TEAM}"
        f" AND status != 'canonical'"
        f" AND (status = 'needs_review' OR source IN ({marks}) OR confidence < ?)"
        " ORDER BY created, id",
        [*machine_sources, below],
    ).fetchall()


def anchored(index: Index) -> list[Row]:
    """Visible entries with anchors: id, origin and fields (the checkout hook's check)."""
    return index.conn.execute(
        f"SELECT id, origin, fields FROM records WHERE kind = 'entry' AND {VISIBLE}"
        " AND anchors != ''"
    ).fetchall()


def anchored_near(index: Index, paths: Sequence[str], limit: int = 100) -> list[Row]:
    """Visible entries anchored at one of `paths` (the first 20) or in its folder, newest
    first, through the FTS anchors column (no scan): callers check for look-alikes."""
    phrases = {_phrase(p) for p in paths[:20]}
    phrases |= {_phrase(p.rsplit("/", 1)[0]) for p in paths[:20] if "/" in p}
    phrases.discard("")
    if not phrases:
        return []
    where, params = filters()
    match = " OR ".join(f"anchors : {p}" for p in sorted(phrases))
    return index.conn.execute(
        f"SELECT r.* FROM fts JOIN records r ON r.rowid = fts.rowid WHERE fts MATCH ?"
        f" AND {where} ORDER BY r.created DESC LIMIT ?",
        [match, *params, limit],
    ).fetchall()


def _phrase(text: str) -> str:
    """An FTS5 phrase of the words in a path (`src/auth/x.py` -> "src auth x py")."""
    words = re.findall(r"\w+", text)
    return '"' + " ".join(words).replace('"', "") + '"' if words else ""


def latest_handoff(index: Index, branch: str) -> Row | None:
    """The newest visible handoff (a clear too) whose `origin.branch` is `branch` (found
    through the FTS type column, no scan)."""
    return index.conn.execute(
        "SELECT r.* FROM fts JOIN records r ON r.rowid = fts.rowid"
        " WHERE fts MATCH 'type : handoff' AND r.kind = 'entry' AND r.type = 'handoff'"
        f" AND r.{VISIBLE}"
        " AND json_extract(r.origin, '$.branch') = ? ORDER BY r.created DESC, r.id DESC LIMIT 1",
        (branch,),
    ).fetchone()


def by_id(index: Index, entry_id: str) -> Row | None:
    """The entry with exactly this full id, whatever its status."""
    return index.conn.execute(
        "SELECT * FROM records WHERE id = ? AND kind = 'entry'", (entry_id,)
    ).fetchone()


def state_of(index: Index, entry_id: str) -> dict[str, Any]:
    """The fold's state of an entry (supersedes, superseded_by, ...); {} when none."""
    row = index.conn.execute(
        "SELECT state FROM records WHERE kind = 'entry' AND id = ?", (entry_id,)
    ).fetchone()
    return json.loads(row["state"]) if row is not None and row["state"] else {}


def find_entry(index: Index, ref: str) -> Row | None:
    """An entry by full id, short id (last 8 characters or more), or key."""
    return _find(index, ref, "kind = 'entry' AND ", "(id = ? OR key = ?)", (ref, ref), "entries")


def find_record(index: Index, ref: str) -> Row | None:
    """Any record (entry or curation) by full id or its last 8 characters or more."""
    return _find(index, ref, "", "id = ?", (ref,), "records")


def _find(index: Index, ref: str, kind: str, exact: str, params: tuple[str, ...],
          what: str) -> Row | None:
    conn = index.conn
    row = conn.execute(f"SELECT * FROM records WHERE {kind}{exact} LIMIT 1", params).fetchone()
    if row is None and len(ref) >= 6:
        rows = conn.execute(f"SELECT * FROM records WHERE {kind}lower(id) LIKE ? LIMIT 2",
                            ("%" + ref.lower(),)).fetchall()
        if len(rows) > 1:
            raise GitMemoryError(f"{ref!r} matches several {what}; give more of the id")
        row = rows[0] if rows else None
    return row


def redaction_of(index: Index, record_id: str) -> Row | None:
    """The redact record aimed at `record_id`, or None."""
    return index.conn.execute(
        "SELECT * FROM records WHERE kind = 'redact' AND json_extract(fields, '$.target') = ?"
        " LIMIT 1", (record_id,)
    ).fetchone()


def by_hash(index: Index, digest: str) -> list[Row]:
    """Records holding a text of this hash (`model.content_hash`, the caller's), oldest first."""
    return index.conn.execute(
        f"SELECT * FROM records WHERE hash = ? AND {TEAM} ORDER BY created", (digest,)
    ).fetchall()


def by_key(index: Index, key: str) -> Row | None:
    """The record with this key, if any."""
    return index.conn.execute(
        f"SELECT * FROM records WHERE key = ? AND {TEAM} LIMIT 1", (key,)
    ).fetchone()


def keys(index: Index) -> dict[str, tuple[str, str]]:
    """Every key: {key: (status, id)} (a large import loads it once)."""
    return {key: (status, rid) for key, status, rid in index.conn.execute(
        f"SELECT key, status, id FROM records WHERE key IS NOT NULL AND {TEAM}")}


def hashes(index: Index) -> dict[str, list[tuple[str, str, str | None]]]:
    """Every text hash: {hash: [(status, id, state), ...] oldest first} (a large import)."""
    found: dict[str, list[tuple[str, str, str | None]]] = {}
    for digest, status, rid, state in index.conn.execute(
        f"SELECT hash, status, id, state FROM records WHERE hash IS NOT NULL AND {TEAM}"
        " ORDER BY created"
    ):
        found.setdefault(digest, []).append((status, rid, state))
    return found


def known_ids(index: Index, ids: list[str]) -> set[str]:
    """Which of these record ids the index holds (any kind)."""
    return {row[0] for row in rows_in(
        index.conn, f"SELECT id FROM records WHERE {TEAM} AND id IN ({{}})", ids)}


def revert_marks(index: Index, entry_id: str) -> tuple[set[str], set[str]]:
    """The commits that flagged this entry as reverted (`reverted_by` of its status
    records) and those that cleared such a flag (`restored_by`): a revert is counted once."""
    flagged: set[str] = set()
    restored: set[str] = set()
    for (raw,) in index.conn.execute(
        "SELECT fields FROM records WHERE curation = 1 AND kind = 'status'"
        " AND json_extract(fields, '$.target') = ?", (entry_id,)
    ):
        fields = json.loads(raw or "{}")
        if fields.get("reverted_by"):
            flagged.add(str(fields["reverted_by"]))
        if fields.get("restored_by"):
            restored.add(str(fields["restored_by"]))
    return flagged, restored

"""Reads for curation: cursors over the visible team entries (curate's candidates stream
through a large memory) and the few columns a merge of some entries needs.
"""

from __future__ import annotations

import json
from typing import Iterator, Sequence

from git_memory.index.files import Index
from git_memory.index.schema import TEAM, VISIBLE, Row, rows_in


def max_rowid(index: Index) -> int:
    """The largest record rowid (0 when empty): the size of a bitmap over the records."""
    return int(index.conn.execute("SELECT coalesce(max(rowid), 0) FROM records").fetchone()[0])


def visible_texts(index: Index) -> Iterator[tuple[int, bytes]]:
    """(rowid, content as UTF-8 bytes) of every visible entry, oldest first (created, then
    id). Bytes: the near-duplicate search splits them with one C call and no decoding."""
    return index.conn.execute(
        f"SELECT rowid, CAST(content AS BLOB) FROM records WHERE kind = 'entry' AND {VISIBLE}"
        f" AND {TEAM} ORDER BY created, id"
    )


def visible_states(index: Index) -> Iterator[Row]:
    """rowid, id, status, confidence, state of every visible entry, oldest first."""
    return index.conn.execute(
        "SELECT rowid, id, status, confidence, state FROM records"
        f" WHERE kind = 'entry' AND {VISIBLE} AND {TEAM} ORDER BY created, id"
    )


def duplicate_groups(index: Index) -> Iterator[list[tuple[int, str]]]:
    """Visible entries sharing a normalised text hash, as [(rowid, id), ...] oldest first,
    the groups in the order of their oldest member. Only the hashes held more than once
    are read back (the hash index answers the GROUP BY without a sort of every row)."""
    groups: dict[str, list[tuple[int, str]]] = {}
    for rowid, rid, digest in index.conn.execute(
        f"SELECT rowid, id, hash FROM records WHERE kind = 'entry' AND {VISIBLE} AND {TEAM}"
        f" AND hash IN (SELECT hash FROM records WHERE kind = 'entry' AND {VISIBLE} AND {TEAM}"
        "  GROUP BY hash HAVING count(*) > 1) ORDER BY created, id"
    ):
        groups.setdefault(digest, []).append((rowid, rid))
    yield from groups.values()


def ids_of_rowids(index: Index, rowids: Sequence[int]) -> dict[int, str]:
    """{rowid: id} for these record rowids, in a few queries rather than one each."""
    return dict(rows_in(index.conn, "SELECT rowid, id FROM records WHERE rowid IN ({})", rowids))


def text_of_rowid(index: Index, rowid: int) -> str:
    """The content of the record at this rowid ('' when there is none)."""
    row = index.conn.execute("SELECT content FROM records WHERE rowid = ?", (rowid,)).fetchone()
    return str(row[0]) if row is not None else ""


def merge_sources(index: Index, ids: Sequence[str]) -> tuple[str, list[str], str]:
    """What a merge of these entries needs, without loading them whole: the type of the
    first, the union of their tags in order, and the longest text (on a tie the earliest
    in `ids`)."""
    wanted = list(ids)
    rows: dict[str, tuple[str, str, int]] = {rid: (kind, tags, size) for rid, kind, tags, size in rows_in(
        index.conn, "SELECT id, type, tags, length(content) FROM records WHERE kind = 'entry'"
        " AND id IN ({})", wanted)}
    tags: dict[str, None] = {}
    for raw in dict.fromkeys(rows[rid][1] for rid in wanted):  # each distinct list once
        tags.update(dict.fromkeys(json.loads(raw)))
    longest = max(range(len(wanted)), key=lambda n: (rows[wanted[n]][2], -n))
    text = index.conn.execute(
        "SELECT content FROM records WHERE kind = 'entry' AND id = ?", (wanted[longest],)
    ).fetchone()[0]
    return rows[wanted[0]][0], list(tags), text


def reverted_entries(index: Index) -> Iterator[Row]:
    """id, state and origin of every visible team entry a revert flagged for review and no
    review has decided since (the fold keeps `state.reverted` while that flag is in force),
    oldest first."""
    return index.conn.execute(
        "SELECT id, state, origin FROM records WHERE kind = 'entry' AND state IS NOT NULL"
        f" AND status = 'needs_review' AND {TEAM}"
        " AND json_extract(state, '$.reverted.by') IS NOT NULL ORDER BY created, id"
    )

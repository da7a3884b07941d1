"""Rows in and out: record files parsed into rows, rows removed, rows read back as records
(`row_to_record`: the fold, a merge's sources, export's stream).
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Generator, Iterator, Sequence
from pathlib import Path
from typing import Any

from git_memory.fold import DEFAULT_CONFIDENCE, SOURCE_CONFIDENCE, is_curation, plain_confidence
from git_memory.index.files import Index
from git_memory.index.schema import Known, Row, rows_in
from git_memory.index.rank.semantic import forget
from git_memory.index.rank.tokens import search_text
from git_memory.model import Record, content_hash
from git_memory.store.layout import check_entry
from git_memory.store.loose import NotLoose
from git_memory.store.record_format import MalformedRecord, parse_record


def carry_local_flags(conn: sqlite3.Connection, old: Path) -> None:
    """Keep the checkout hook's local flags across a rebuild (they are not on the branch)."""
    if not old.exists():
        return
    try:
        conn.execute("ATTACH DATABASE ? AS old", (str(old),))
    except sqlite3.DatabaseError:
        return
    try:
        conn.execute(
            "INSERT OR REPLACE INTO local_flags(id, flag, reason, checked)"
            " SELECT id, flag, reason, checked FROM old.local_flags"
        )
    except sqlite3.DatabaseError:
        pass  # a corrupt or foreign file: nothing to keep
    finally:
        conn.execute("DETACH DATABASE old")


def delete_path(conn: sqlite3.Connection, path: str) -> bool:
    conn.execute("DELETE FROM problems WHERE path = ?", (path,))
    row = conn.execute(
        "SELECT rowid, curation, content, EXISTS(SELECT 1 FROM vectors v WHERE v.rowid = r.rowid)"
        " FROM records r WHERE path = ?", (path,)
    ).fetchone()
    if row is None:
        return False
    if row[3]:  # embedded: its words leave the semantic DF with it
        forget(conn, [row[2]])
    conn.execute("DELETE FROM records WHERE rowid = ?", (row[0],))
    conn.execute("DELETE FROM fts WHERE rowid = ?", (row[0],))
    conn.execute("DELETE FROM vectors WHERE rowid = ?", (row[0],))
    return bool(row[1])


def insert_files(
    conn: sqlite3.Connection, branch: Any, files: list[Any], fresh: bool = False,
    known: Known | None = None,
) -> bool:
    """Parse and insert record files; True when any is a curation record. `fresh`: an
    empty database, no older rows to remove. A file in `known` with the same blob is
    the record a writer just wrote, taken as it is, not read back."""
    if not fresh:
        for change in files:
            delete_path(conn, change.path)
    rowid = (conn.execute("SELECT max(rowid) FROM records").fetchone()[0] or 0) + 1
    touched = False
    for start in range(0, len(files), _STEP):  # a step's blobs in memory at a time
        rows = file_rows(branch, files[start : start + _STEP], rowid, known)
        write_rows(conn, rows)
        rowid, touched = rows.next_rowid, touched or rows.touched
    return touched


_STEP = 2000


class Rows:
    """The rows of some record files, ready to insert (`file_rows`, `write_rows`)."""

    __slots__ = ("records", "texts", "problems", "touched", "next_rowid")

    def __init__(self) -> None:
        self.records: list[tuple[Any, ...]] = []
        self.texts: list[tuple[Any, ...]] = []
        self.problems: list[tuple[str, str, str]] = []
        self.touched = False  # a curation record is among them: the fold must run
        self.next_rowid = 0


def file_rows(
    branch: Any, files: list[Any], rowid: int, known: Known | None = None, now: str = "",
) -> Rows:
    """Record files read and parsed into rows numbered from `rowid`, without the database
    (a build's workers make them); with `now`, entries get the fold's plain confidence."""
    rows = Rows()
    records, texts, problems = rows.records, rows.texts, rows.problems
    plan: list[Any] = []
    wanted: list[str] = []
    for change in files:
        unsafe = check_entry(change.path, getattr(change, "mode", 0o100644))
        mine = known.get(change.path) if known else None
        if unsafe:  # a hand-made or hostile tree: never read, never exported
            plan.append(f"refused: {unsafe}")
        elif mine is not None and mine[0] == change.blob:
            plan.append(mine[1])  # the record a writer handed over
        else:
            plan.append(None)
            wanted.append(change.blob)
    blobs = iter(_read_many(branch, wanted))
    for change, record in zip(files, plan):
        if isinstance(record, str):
            problems.append((change.path, change.blob, record))
            continue
        if record is None:
            data = next(blobs)
            try:
                if isinstance(data, MalformedRecord):
                    raise data
                record = parse_record(data, change.path)
            except MalformedRecord as exc:
                problems.append((change.path, change.blob, str(exc)))
                continue
        row, text, curation = record_rows(rowid, record, change.blob)
        if now and record.kind == "entry":
            row = (*row[:17], plain_confidence(record.source, record.created, now))
        records.append(row)
        if text is not None:
            texts.append(text)
        rows.touched |= curation
        rowid += 1
    rows.next_rowid = rowid
    return rows


def write_rows(conn: sqlite3.Connection, rows: Rows) -> None:
    conn.executemany(INSERT_RECORD, rows.records)
    conn.executemany(INSERT_FTS, rows.texts)
    conn.executemany(INSERT_PROBLEM, rows.problems)


def _read_many(branch: Any, blobs: list[str]) -> list[Any]:
    """Each blob's bytes, or the MalformedRecord its read raised (one pass over the pack
    when the reader has `read_blobs`)."""
    bulk = getattr(branch, "read_blobs", None)
    if bulk is not None:
        return [MalformedRecord(f"blob cannot be read ({data})") if isinstance(data, str)
                else data for data in bulk(blobs)]
    out: list[Any] = []
    for blob in blobs:
        try:
            out.append(_read(branch, blob))
        except MalformedRecord as exc:
            out.append(exc)
    return out


def _read(branch: Any, blob: str) -> bytes:
    """The blob's bytes; an unreadable object is a bad file, not a crash (NotLoose is the
    loose reader's, for its caller)."""
    try:
        return bytes(branch.read_blob(blob))
    except NotLoose:
        raise
    except (KeyError, ValueError, OSError) as exc:
        raise MalformedRecord(f"blob cannot be read ({exc.__class__.__name__})") from None


INSERT_RECORD = (
    "INSERT INTO records(rowid, id, kind, type, content, tags, created, author, source, key,"
    " origin, fields, anchors, path, blob, hash, curation, confidence)"
    " VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)"
)
INSERT_FTS = "INSERT INTO fts(rowid, content, tags, type, anchors) VALUES (?,?,?,?,?)"
INSERT_PROBLEM = "INSERT OR REPLACE INTO problems(path, blob, reason) VALUES (?, ?, ?)"


def insert_record(conn: sqlite3.Connection, record: Record, blob: str) -> bool:
    """Insert one parsed record; True when the fold must look at it (bench/rank_eval.py)."""
    rowid = (conn.execute("SELECT max(rowid) FROM records").fetchone()[0] or 0) + 1
    row, text, curation = record_rows(rowid, record, blob)
    conn.execute(INSERT_RECORD, row)
    if text is not None:
        conn.execute(INSERT_FTS, text)
    return curation


def record_rows(
    rowid: int, record: Record, blob: str
) -> tuple[tuple[Any, ...], tuple[Any, ...] | None, bool]:
    """The `records` row, the `fts` row (entries only), and whether the fold must look."""
    # An entry born with a status (needs_review, canonical) is curation too: the fold must
    # see it. Most entries have no fields and no origin: the shortcut counts in a build.
    plain = record.kind == "entry" and not record.fields and not record.origin
    curation = False if plain else (
        is_curation(record) or (record.kind == "entry" and bool(record.fields.get("status"))))
    anchors = [] if plain else record.anchors()
    anchor_text = " ".join(anchors)
    row = (
        rowid,
        record.id,
        record.kind,
        record.type,
        record.content,
        _tags_json(record.tags),
        record.created,
        record.author,
        record.source,
        record.key,
        # Sorted as in the record file, so a record a writer hands over (index.db.Known)
        # gives the same row as the file read back.
        _dumps(record.origin),
        _dumps(record.fields),
        anchor_text,
        record.path,
        blob,
        content_hash(record.content) if record.kind == "entry" else None,
        int(curation),
        SOURCE_CONFIDENCE.get(record.source, DEFAULT_CONFIDENCE),
    )
    if record.kind != "entry":
        return row, None, curation
    text = (
        rowid,
        search_text(record.content),
        " ".join(record.tags),
        record.type or "",
        search_text(anchor_text) if anchor_text else "",
    )
    return row, text, curation


_TAGS: dict[tuple[str, ...], str] = {}  # tag lists repeat: their JSON, by value


def _tags_json(tags: list[str]) -> str:
    key = tuple(tags)
    found = _TAGS.get(key)
    if found is None:
        found = json.dumps(tags, ensure_ascii=False)
        if len(_TAGS) >= 4096:
            _TAGS.clear()
        _TAGS[key] = found
    return found


def _dumps(value: dict[str, Any]) -> str:
    # Most records have no extra fields: skip the encoder for the empty mapping.
    return json.dumps(value, ensure_ascii=False, default=str, sort_keys=True) if value else "{}"


def row_to_record(row: Row) -> Record:
    """The record a row was made from (a redacted entry's text is gone from the index)."""
    return Record(
        id=row["id"],
        kind=row["kind"],
        type=row["type"],
        content=row["content"],
        tags=json.loads(row["tags"]),
        created=row["created"],
        author=row["author"] or "",
        source=row["source"] or "manual",
        origin=json.loads(row["origin"] or "{}"),
        key=row["key"],
        fields=json.loads(row["fields"] or "{}"),
        path=row["path"],
    )



def records_by_ids(index: Index, ids: Sequence[str]) -> dict[str, Record]:
    """The entries with these ids, as records, in a few queries rather than one each."""
    return {row["id"]: row_to_record(row) for row in rows_in(
        index.conn, "SELECT * FROM records WHERE kind = 'entry' AND id IN ({})", ids)}



def iter_export_records(index: Index) -> Iterator[Record]:
    """Every record of the local branch, oldest first, streamed as export writes them. A
    redacted entry keeps the placeholder text and its links (from the fold state)."""
    for row in index.conn.execute("SELECT * FROM records WHERE src = '' ORDER BY created, id"):
        record = row_to_record(row)
        if row["kind"] == "entry" and row["status"] == "redacted":
            state = json.loads(row["state"] or "{}")
            for name in ("supersedes", "merged_from"):
                if state.get(name):
                    record.fields[name] = state[name]
        yield record



def export_snapshot(index: Index) -> tuple[int, Generator[Record, None, None]]:
    """The count and the records from one read transaction (export's header states the
    count first; a writer in between must not make them disagree), which ends with the
    iterator."""
    conn = index.conn
    conn.execute("BEGIN")
    try:
        count = int(conn.execute("SELECT count(*) FROM records WHERE src = ''").fetchone()[0])
    except BaseException:
        conn.execute("ROLLBACK")
        raise

    def records() -> Generator[Record, None, None]:
        try:
            yield from iter_export_records(index)
        finally:
            conn.execute("ROLLBACK")  # read only: nothing to keep

    return count, records()

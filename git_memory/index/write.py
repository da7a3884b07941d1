"""Writing the index: record files in, derived state (the fold) out.

Used while the index catches up or is rebuilt (`index.db`, which imports this
module only then), never on the read path, so it may import the model, the fold
and the record format freely. It imports nothing from `index.db`.
"""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from typing import Any, Iterator

from git_memory.fold import (
    DECAY_CAP,
    DECAY_DAYS,
    DECAY_STEP,
    DEFAULT_CONFIDENCE,
    SOURCE_CONFIDENCE,
    EntryState,
    fold,
    is_curation,
    plain_confidence_sql,
)
from git_memory.index.decay import Decay
from git_memory.index.entries import row_to_record
from git_memory.index.rowparse import fast_rows
from git_memory.index.schema import REDACTED_TEXT, Known
from git_memory.index.semantic import forget
from git_memory.index.tokens import search_text
from git_memory.model import Record, content_hash
from git_memory.store.layout import check_entry
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
    """Parse and insert record files; return True when any is a curation record.

    `fresh` (a rebuild into an empty database) skips looking for older rows.
    A file in `known` with the same blob id is the record a writer just wrote:
    it is taken as it is, not read back. Rows go in with explicit rowids, in
    batches: one statement per table.
    """
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


Read = tuple[list[Any], Iterator[Any]]  # read_files: what to do with each file, blobs read


def read_files(branch: Any, files: list[Any], known: Known | None = None) -> Read:
    """For each file: a reason to refuse it (str), the record a writer handed over, or
    None (parse the next blob); and the blobs of the latter, read in one go (_read_many).
    No database access and no parsing: a build reads ahead in a thread of its own."""
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
    return plan, iter(_read_many(branch, wanted))


def file_rows(
    branch: Any, files: list[Any], rowid: int, known: Known | None = None,
    read: Read | None = None, decay: Decay | None = None,
) -> Rows:
    """Read (unless `read` holds what read_files gave) and parse record files into rows
    numbered from `rowid` (no database access: a build prepares the next rows while
    another thread inserts the last ones). With `decay` (a build's), an entry's row
    holds the confidence the fold gives it (index.decay), or None where SQLite must
    work it out."""
    rows = Rows()
    records, texts, problems = rows.records, rows.texts, rows.problems
    plan, blobs = read if read is not None else read_files(branch, files, known)
    for change, record in zip(files, plan):
        if isinstance(record, str):
            problems.append((change.path, change.blob, record))
            continue
        if record is None:
            data = next(blobs)
            if type(data) is bytes:  # a plain entry in our layout: straight to its rows
                fast = fast_rows(rowid, data, change.path, change.blob, decay)
                if fast is not None:
                    records.append(fast[0])
                    texts.append(fast[1])
                    rowid += 1
                    continue
            try:
                if isinstance(data, MalformedRecord):
                    raise data
                record = parse_record(data, change.path)
            except MalformedRecord as exc:
                problems.append((change.path, change.blob, str(exc)))
                continue
        row, text, curation = record_rows(rowid, record, change.blob)
        if decay is not None:
            row = decay.row(row)
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
    """The bytes of each blob, or the MalformedRecord its read raised: in one pass
    over the pack when the reader can (MemoryBranch.read_blobs), else one by one."""
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
    """The blob's bytes; a missing or unreadable object is a bad file, not a crash
    (loose-object reads raise their own NotLoose, which the caller handles)."""
    from git_memory.index.loose import NotLoose  # here: loose is the rare catch-up path

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
    # An entry born with a status (needs_review from distillation, canonical from a
    # merge) is curation too: the fold must see it, now and at every later refold.
    # Most entries have no extra fields and no origin: nothing to look for (a build
    # makes a row for every file, so the shortcut counts).
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


def refold(conn: sqlite3.Connection) -> None:
    """Recompute the state of every entry that curation touches (or touched before)."""
    curation = [
        row_to_record(r)
        for r in conn.execute("SELECT * FROM records WHERE curation = 1")
    ]
    # A redacted curation record (its reason held a secret, say) no longer applies:
    # redact hides a record everywhere, whatever its kind.
    hidden = {str(r.fields.get("target")) for r in curation if r.kind == "redact"}
    curation = [r for r in curation if r.kind == "entry" or r.id not in hidden]
    wanted: set[str] = set()
    for record in curation:
        wanted.add(record.id)
        for name in ("target", "supersedes", "merged_from", "by"):
            value = record.fields.get(name)
            if isinstance(value, list):
                wanted.update(str(v) for v in value)
            elif value:
                wanted.add(str(value))
    previously = {r[0] for r in conn.execute("SELECT id FROM records WHERE state IS NOT NULL")}
    entries: dict[str, Record] = {}
    for chunk in _chunks(sorted(wanted | previously), 500):
        marks = ",".join("?" * len(chunk))
        for row in conn.execute(
            f"SELECT * FROM records WHERE kind = 'entry' AND id IN ({marks})", chunk
        ):
            entries[row["id"]] = row_to_record(row)
    # The clock confidence decays against is the newest record, not the wall
    # clock: two clones holding the same records store the same numbers.
    now = conn.execute(
        "SELECT max(created) FROM records WHERE created GLOB '[0-9][0-9][0-9][0-9]-[0-9][0-9]-*'"
    ).fetchone()[0] or ""
    result = fold(entries, [r for r in curation if r.kind != "entry" or r.id in entries], now)
    conn.execute(  # entries curation no longer touches fall back to the plain rule
        f"UPDATE records SET status = 'active', state = NULL, confidence = {plain_confidence_sql()}"
        " WHERE state IS NOT NULL",
        (now,),
    )
    _plain_confidence(conn, now)
    for eid, state in result.states.items():
        conn.execute(
            "UPDATE records SET status = ?, confidence = ?, state = ? WHERE id = ? AND kind = 'entry'",
            (state.status, state.confidence, json.dumps(state.__dict__), eid),
        )
    _seal_redactions(conn)
    conn.execute("DELETE FROM meta WHERE k = 'fold_problems'")
    conn.execute(
        "INSERT INTO meta(k, v) VALUES ('fold_problems', ?)", (json.dumps(result.problems),)
    )


def _plain_confidence(conn: sqlite3.Connection, now: str) -> None:
    """Apply the confidence rule to entries no curation touched (source and decay).

    A full pass reads every row, so after the first one only rows that can have
    changed are visited: rows inserted since (rowid above the last pass) and rows
    whose age crossed a decay boundary between the previous `now` and this one
    (created in (prev - k*period, now - k*period] for each k that still costs).
    Only rows whose value changed are written.
    """
    rule = plain_confidence_sql()
    meta = dict(conn.execute(
        "SELECT k, v FROM meta WHERE k IN ('decay_now', 'decay_rowid')").fetchall())
    prev, last_rowid = meta.get("decay_now"), meta.get("decay_rowid")
    where, params = "1", []
    if prev and last_rowid and prev <= now:
        windows = []
        for k in range(1, int(DECAY_CAP / DECAY_STEP + 0.5) + 1):
            shift = f"-{k * DECAY_DAYS} days"
            windows.append(
                "(created > strftime('%Y-%m-%dT%H:%M:%SZ', substr(?, 1, 19), ?)"
                " AND created <= strftime('%Y-%m-%dT%H:%M:%SZ', substr(?, 1, 19), ?))"
            )
            params += [prev, shift, now, shift]
        where = f"(rowid > ? OR {' OR '.join(windows)})"
        params = [int(last_rowid)] + params
    conn.execute(
        f"UPDATE records SET confidence = {rule}"
        f" WHERE kind = 'entry' AND {where} AND confidence != {rule}",
        [now, *params, now],
    )
    top = conn.execute("SELECT max(rowid) FROM records").fetchone()[0] or 0
    conn.executemany("INSERT OR REPLACE INTO meta(k, v) VALUES (?, ?)",
                     [("decay_now", now), ("decay_rowid", str(top))])


def _seal_redactions(conn: sqlite3.Connection) -> None:
    """Keep redacted text out of the index, and remember its hash.

    A redact record keeps the hash of the text it hid, so the writer still refuses
    that text after `purge` removed the entry from history. The index never serves
    a redacted entry's text whatever the filters (`list --all`, export, search see
    only its id and status); a rebuild redoes this from the blobs.
    """
    conn.execute(
        "UPDATE records SET status = 'redacted', hash = json_extract(fields, '$.content_hash')"
        " WHERE curation = 1 AND kind = 'redact'"
        " AND json_extract(fields, '$.content_hash') IS NOT NULL"
    )
    # The same text under another entry (an old blob merged back by a stale clone,
    # a copy under another id) is hidden too: the redact record keeps its hash.
    conn.execute(
        "UPDATE records SET status = 'redacted', state = ? WHERE kind = 'entry'"
        " AND status != 'redacted' AND hash IN (SELECT hash FROM records"
        " WHERE kind = 'redact' AND curation = 1 AND hash IS NOT NULL)",
        (json.dumps(EntryState(status="redacted", redacted=True).__dict__),),
    )
    conn.execute(
        "DELETE FROM fts WHERE rowid IN (SELECT rowid FROM records"
        " WHERE state IS NOT NULL AND status = 'redacted' AND kind = 'entry')"
    )
    sealed = "SELECT rowid FROM records WHERE state IS NOT NULL AND status = 'redacted' AND kind = 'entry'"
    embedded = [text for (text,) in conn.execute(
        f"SELECT content FROM records WHERE rowid IN ({sealed}) AND rowid IN (SELECT rowid FROM vectors)"
    )]
    if embedded:  # nothing of a redacted text stays, not even its words in the semantic DF
        forget(conn, embedded)
    conn.execute(f"DELETE FROM vectors WHERE rowid IN ({sealed})")
    conn.execute(
        f"UPDATE records SET content = '{REDACTED_TEXT}', fields = '{{}}', origin = '{{}}',"
        " tags = '[]'"
        " WHERE state IS NOT NULL AND status = 'redacted' AND kind = 'entry'"
    )
    conn.execute(  # a redacted curation record keeps its id and kind, not its words
        "UPDATE records SET fields = '{}', status = 'redacted', curation = 0"
        " WHERE kind NOT IN ('entry', 'redact') AND id IN (SELECT json_extract(fields,"
        " '$.target') FROM records WHERE kind = 'redact')"
    )


def _chunks(items: list[str], size: int) -> Iterator[list[str]]:
    for start in range(0, len(items), size):
        yield items[start : start + size]

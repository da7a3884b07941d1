"""The index database: open it, keep it current with the memory branch, look things up.

Every reader calls `open_index()`, which compares the stamp (the memory commit
the index reflects) with the branch tip read from ref files. When they match,
no pygit2 and no YAML are imported: that is the hot path of `recall`. When they
differ, the index catches up by tree diff if the stamp is an ancestor of the
tip, and is rebuilt otherwise. A missing, truncated or corrupt file, or one
from another schema version, is rebuilt into a temporary file and swapped in,
so a process killed mid-build never leaves a half index behind.
"""

from __future__ import annotations

import fcntl
import json
import os
import sqlite3
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Iterator

from git_memory.errors import GitMemoryError
from git_memory.store.locate import GitDirs, memory_ref, memory_tip

if TYPE_CHECKING:
    from git_memory.model import Record

# The fold, the model and the search-text helpers load only on the write side
# (catching up, rebuilding): a current index needs none of them.

SCHEMA_VERSION = 5
INDEX_NAME = "index.sqlite"
# One tokenizer for the index and for the query-side scratch tables (index.search).
TOKENIZE = "porter unicode61 remove_diacritics 2"
Progress = Callable[[int, int], None]
BIG_CHANGE = 5000  # files; a larger catch-up that also outnumbers the index rebuilds instead

_SCHEMA = """
CREATE TABLE meta(k TEXT PRIMARY KEY, v TEXT);
CREATE TABLE records(
    rowid INTEGER PRIMARY KEY,
    id TEXT NOT NULL,
    kind TEXT NOT NULL,
    type TEXT,
    content TEXT NOT NULL,
    tags TEXT NOT NULL,
    created TEXT NOT NULL,
    author TEXT,
    source TEXT,
    key TEXT,
    origin TEXT,
    fields TEXT,
    anchors TEXT NOT NULL,
    path TEXT NOT NULL UNIQUE,
    blob TEXT NOT NULL,
    hash TEXT,
    curation INTEGER NOT NULL DEFAULT 0,
    status TEXT NOT NULL DEFAULT 'active',
    confidence REAL NOT NULL DEFAULT 0.6,
    state TEXT
);
CREATE TABLE problems(path TEXT PRIMARY KEY, blob TEXT, reason TEXT NOT NULL);
CREATE TABLE vectors(rowid INTEGER PRIMARY KEY, v BLOB NOT NULL);
CREATE TABLE local_flags(
    id TEXT PRIMARY KEY, flag TEXT NOT NULL, reason TEXT, checked TEXT
);
CREATE VIRTUAL TABLE fts USING fts5(
    content, tags, type, anchors,
    tokenize = '%s'
);
""" % TOKENIZE
# Built after a bulk load (faster than keeping them up to date row by row).
_INDEXES = """
CREATE INDEX records_id ON records(id);
CREATE INDEX records_key ON records(key) WHERE key IS NOT NULL;
CREATE INDEX records_hash ON records(hash);
CREATE INDEX records_created ON records(created);
CREATE INDEX records_curation ON records(curation) WHERE curation = 1;
"""


class Index:
    """An open, current index (a plain class: `dataclasses` costs a recall 5 ms to import)."""

    __slots__ = ("conn", "dirs", "stamp", "path")

    def __init__(self, conn: sqlite3.Connection, dirs: GitDirs, stamp: str | None, path: Path):
        self.conn = conn
        self.dirs = dirs
        self.stamp = stamp
        self.path = path

    def close(self) -> None:
        self.conn.close()


def index_path(dirs: GitDirs) -> Path:
    return dirs.memory_dir / INDEX_NAME


def _connect(path: Path) -> sqlite3.Connection:
    conn = sqlite3.connect(str(path), timeout=30, isolation_level=None)
    conn.row_factory = sqlite3.Row
    return conn


def _stamp_of(conn: sqlite3.Connection) -> tuple[int, str | None, str | None]:
    """(schema version, stamp, ref) or raise sqlite3.DatabaseError for a bad file."""
    version = conn.execute("PRAGMA user_version").fetchone()[0]
    if version != SCHEMA_VERSION:
        return version, None, None
    rows = dict(conn.execute("SELECT k, v FROM meta").fetchall())
    return version, rows.get("stamp"), rows.get("ref")


def open_index(
    dirs: GitDirs, progress: Progress | None = None, force_rebuild: bool = False
) -> Index:
    """The index, brought up to date with the memory branch first."""
    ref = memory_ref(dirs)
    tip = memory_tip(dirs, ref)
    path = index_path(dirs)
    if not force_rebuild and path.exists():
        try:
            conn = _connect(path)
            version, stamp, stamped_ref = _stamp_of(conn)
            if version == SCHEMA_VERSION and stamp == (tip or "") and stamped_ref == ref:
                return Index(conn, dirs, tip, path)
            if version == SCHEMA_VERSION and stamp and tip and stamped_ref == ref:
                if _loose_catch_up(conn, dirs, tip):
                    return Index(conn, dirs, tip, path)
            conn.close()
        except sqlite3.DatabaseError:
            pass  # truncated or corrupt: rebuilt below
    return _catch_up(dirs, ref, tip, progress, force_rebuild)


def _loose_catch_up(conn: sqlite3.Connection, dirs: GitDirs, tip: str) -> bool:
    """A few new commits made of loose objects (the usual `add`): catch up without pygit2."""
    from git_memory.index.loose import NotLoose, changes_since

    with _WriterLock(dirs):
        _, stamp, ref = _stamp_of(conn)  # again, under the lock: another reader may have won
        if stamp == tip:
            return True
        found = changes_since(dirs.common_dir, stamp or "", tip) if stamp else None
        if found is None:
            return False
        reader, added, removed = found
        if len(added) + len(removed) > BIG_CHANGE:
            return False
        try:
            _apply_changes(conn, reader, added, removed, tip, ref or "", dirs)
        except NotLoose:
            return False  # an added file's blob is packed: the general path reads it
        return True


class _WriterLock:
    """An exclusive lock on index.lock while the index is written."""

    def __init__(self, dirs: GitDirs) -> None:
        self.path = dirs.memory_dir / "index.lock"
        self.handle: Any = None

    def __enter__(self) -> None:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self.handle = open(self.path, "a+")
        fcntl.flock(self.handle, fcntl.LOCK_EX)

    def __exit__(self, *exc: object) -> None:
        fcntl.flock(self.handle, fcntl.LOCK_UN)
        self.handle.close()


def _catch_up(
    dirs: GitDirs, ref: str, tip: str | None, progress: Progress | None, force: bool
) -> Index:
    from git_memory.store.branch import MemoryBranch  # heavy: only when behind

    with _WriterLock(dirs):
        branch = MemoryBranch(dirs)
        tip = branch.tip()
        path = index_path(dirs)
        conn: sqlite3.Connection | None = None
        if not force and path.exists():
            try:
                conn = _connect(path)
                version, stamp, stamped_ref = _stamp_of(conn)
                if version == SCHEMA_VERSION and stamped_ref == ref:
                    if stamp == (tip or ""):
                        return Index(conn, dirs, tip, path)
                    if stamp and tip and branch.has_commit(stamp) and branch.is_ancestor(stamp, tip):
                        if _apply_diff(conn, branch, stamp, tip):
                            return Index(conn, dirs, tip, path)
                conn.close()
                conn = None
            except sqlite3.DatabaseError:
                if conn is not None:
                    conn.close()
        _rebuild(dirs, branch, ref, tip, progress)
        return Index(_connect(path), dirs, tip, path)


def _new_db(path: Path, indexes: bool = True) -> sqlite3.Connection:
    conn = _connect(path)
    conn.executescript(_SCHEMA + (_INDEXES if indexes else ""))
    conn.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")
    return conn


def _rebuild(
    dirs: GitDirs, branch: Any, ref: str, tip: str | None, progress: Progress | None
) -> None:
    path = index_path(dirs)
    tmp = path.with_name(f"{INDEX_NAME}.{os.getpid()}.tmp")
    tmp.unlink(missing_ok=True)
    conn = _new_db(tmp, indexes=False)
    _carry_local_flags(conn, path)
    conn.execute("PRAGMA journal_mode = OFF")
    conn.execute("PRAGMA synchronous = OFF")
    conn.execute("BEGIN")
    files = list(branch.iter_files(tip)) if tip else []
    total = len(files)
    for start in range(0, total, 2000):
        batch = files[start : start + 2000]
        _insert_files(conn, branch, batch, fresh=True, embed=_embedder(dirs))
        if progress:
            progress(min(start + len(batch), total), total)
    for statement in filter(str.strip, _INDEXES.split(";")):
        conn.execute(statement)  # not executescript: that would commit half-way
    _refold(conn)
    _set_stamp(conn, tip, ref)
    conn.execute("COMMIT")
    conn.close()
    os.replace(tmp, path)
    for suffix in ("-wal", "-shm", "-journal"):
        Path(str(path) + suffix).unlink(missing_ok=True)


def _carry_local_flags(conn: sqlite3.Connection, old: Path) -> None:
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


def _set_stamp(conn: sqlite3.Connection, tip: str | None, ref: str) -> None:
    conn.executemany(
        "INSERT OR REPLACE INTO meta(k, v) VALUES (?, ?)", [("stamp", tip or ""), ("ref", ref)]
    )


def _apply_diff(conn: sqlite3.Connection, branch: Any, old: str, new: str) -> bool:
    """Catch up by tree diff; False when the change is so large that a rebuild is faster."""
    from git_memory.index.changes import tree_changes

    added, removed = tree_changes(branch, old, new)
    held = conn.execute("SELECT count(*) FROM records").fetchone()[0]
    if len(added) + len(removed) > max(BIG_CHANGE, held):
        return False  # e.g. a 100k import: a fresh build skips per-row lookups and index upkeep
    _apply_changes(conn, branch, added, removed, new, branch.ref, branch.dirs)
    return True


def _apply_changes(
    conn: sqlite3.Connection, reader: Any, added: list[Any], removed: list[Any], new: str,
    ref: str, dirs: GitDirs,
) -> None:
    """Apply file changes in one transaction and stamp the index with `new`."""
    conn.execute("BEGIN IMMEDIATE")
    try:
        touched = False
        for change in removed:
            touched |= _delete_path(conn, change.path)
        touched |= _insert_files(conn, reader, added, embed=_embedder(dirs))
        if touched:
            _refold(conn)
        _set_stamp(conn, new, ref)
        conn.execute("COMMIT")
    except BaseException:
        conn.execute("ROLLBACK")
        raise


def _delete_path(conn: sqlite3.Connection, path: str) -> bool:
    conn.execute("DELETE FROM problems WHERE path = ?", (path,))
    row = conn.execute("SELECT rowid, curation FROM records WHERE path = ?", (path,)).fetchone()
    if row is None:
        return False
    conn.execute("DELETE FROM records WHERE rowid = ?", (row[0],))
    conn.execute("DELETE FROM fts WHERE rowid = ?", (row[0],))
    conn.execute("DELETE FROM vectors WHERE rowid = ?", (row[0],))
    return bool(row[1])


def _embedder(dirs: GitDirs) -> Callable[[list[int], list[str]], list[Any]] | None:
    """The vector maker when semantic recall is switched on (index.semantic), else None."""
    from git_memory.store.locate import read_config

    if not read_config(dirs, "memory", "semantic"):
        return None  # the common case, decided without importing anything
    from git_memory.index import semantic

    return semantic.vector_rows if semantic.wanted(dirs) else None


def _insert_files(
    conn: sqlite3.Connection, branch: Any, files: list[Any], fresh: bool = False,
    embed: Callable[[list[int], list[str]], list[Any]] | None = None,
) -> bool:
    """Parse and insert record files; return True when any is a curation record.

    `fresh` (a rebuild into an empty database) skips looking for older rows.
    Rows go in with explicit rowids, in batches: one statement per table.
    """
    from git_memory.store.record_format import MalformedRecord, parse_record

    if not fresh:
        for change in files:
            _delete_path(conn, change.path)
    rowid = (conn.execute("SELECT max(rowid) FROM records").fetchone()[0] or 0) + 1
    records: list[tuple[Any, ...]] = []
    texts: list[tuple[Any, ...]] = []
    problems: list[tuple[str, str, str]] = []
    touched = False
    for change in files:
        try:
            record = parse_record(branch.read_blob(change.blob), change.path)
        except MalformedRecord as exc:
            problems.append((change.path, change.blob, str(exc)))
            continue
        row, text, curation = _rows(rowid, record, change.blob)
        records.append(row)
        if text is not None:
            texts.append(text)
        touched |= curation
        rowid += 1
    conn.executemany(_INSERT_RECORD, records)
    conn.executemany(_INSERT_FTS, texts)
    if embed is not None:
        entries = [(row[0], row[4]) for row in records if row[2] == "entry"]
        vectors = embed([r for r, _ in entries], [c for _, c in entries])
        conn.executemany("INSERT OR REPLACE INTO vectors(rowid, v) VALUES (?, ?)", vectors)
    conn.executemany(
        "INSERT OR REPLACE INTO problems(path, blob, reason) VALUES (?, ?, ?)", problems
    )
    return touched


_INSERT_RECORD = (
    "INSERT INTO records(rowid, id, kind, type, content, tags, created, author, source, key,"
    " origin, fields, anchors, path, blob, hash, curation)"
    " VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)"
)
_INSERT_FTS = "INSERT INTO fts(rowid, content, tags, type, anchors) VALUES (?,?,?,?,?)"


def _rows(
    rowid: int, record: Record, blob: str
) -> tuple[tuple[Any, ...], tuple[Any, ...] | None, bool]:
    """The `records` row, the `fts` row (entries only), and whether the fold must look."""
    from git_memory.fold import is_curation
    from git_memory.index.text import search_text
    from git_memory.model import content_hash

    curation = is_curation(record)
    anchors = record.anchors()
    row = (
        rowid,
        record.id,
        record.kind,
        record.type,
        record.content,
        json.dumps(record.tags, ensure_ascii=False),
        record.created,
        record.author,
        record.source,
        record.key,
        json.dumps(record.origin, ensure_ascii=False, default=str),
        json.dumps(record.fields, ensure_ascii=False, default=str),
        " ".join(anchors),
        record.path,
        blob,
        content_hash(record.content) if record.kind == "entry" else None,
        int(curation),
    )
    if record.kind != "entry":
        return row, None, curation
    text = (
        rowid,
        search_text(record.content),
        " ".join(record.tags),
        record.type or "",
        search_text(" ".join(anchors)),
    )
    # An entry born needs_review / canonical: the fold sets its status.
    return row, text, curation or bool(record.fields.get("status"))


def insert_record(conn: sqlite3.Connection, record: Record, blob: str) -> bool:
    """Insert one parsed record; True when the fold must look at it."""
    rowid = (conn.execute("SELECT max(rowid) FROM records").fetchone()[0] or 0) + 1
    row, text, curation = _rows(rowid, record, blob)
    conn.execute(_INSERT_RECORD, row)
    if text is not None:
        conn.execute(_INSERT_FTS, text)
    return curation


def row_to_record(row: sqlite3.Row) -> Record:
    from git_memory.model import Record

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


def _refold(conn: sqlite3.Connection) -> None:
    """Recompute the state of every entry that curation touches (or touched before)."""
    from git_memory.fold import fold

    curation = [
        row_to_record(r)
        for r in conn.execute("SELECT * FROM records WHERE curation = 1")
    ]
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
    result = fold(entries, [r for r in curation if r.kind != "entry" or r.id in entries])
    conn.execute(
        "UPDATE records SET status = 'active', confidence = 0.6, state = NULL"
        " WHERE state IS NOT NULL"
    )
    for eid, state in result.states.items():
        conn.execute(
            "UPDATE records SET status = ?, confidence = ?, state = ? WHERE id = ? AND kind = 'entry'",
            (state.status, state.confidence, json.dumps(state.__dict__), eid),
        )
    conn.execute("DELETE FROM meta WHERE k = 'fold_problems'")
    conn.execute(
        "INSERT INTO meta(k, v) VALUES ('fold_problems', ?)", (json.dumps(result.problems),)
    )


def _chunks(items: list[str], size: int) -> Iterator[list[str]]:
    for start in range(0, len(items), size):
        yield items[start : start + size]


def find_entry(index: Index, ref: str) -> sqlite3.Row | None:
    """An entry by full id, short id (last 8 characters), or key."""
    conn = index.conn
    row = conn.execute(
        "SELECT * FROM records WHERE kind = 'entry' AND (id = ? OR key = ?) LIMIT 1", (ref, ref)
    ).fetchone()
    if row is None and len(ref) >= 6:
        rows = conn.execute(
            "SELECT * FROM records WHERE kind = 'entry' AND lower(id) LIKE ? LIMIT 2",
            ("%" + ref.lower(),),
        ).fetchall()
        if len(rows) > 1:
            raise GitMemoryError(f"{ref!r} matches several entries; give more of the id")
        row = rows[0] if rows else None
    return row


def by_hash(index: Index, text: str) -> list[sqlite3.Row]:
    from git_memory.model import content_hash

    return index.conn.execute(
        "SELECT * FROM records WHERE hash = ? ORDER BY created", (content_hash(text),)
    ).fetchall()


def by_key(index: Index, key: str) -> sqlite3.Row | None:
    return index.conn.execute(
        "SELECT * FROM records WHERE key = ? LIMIT 1", (key,)
    ).fetchone()

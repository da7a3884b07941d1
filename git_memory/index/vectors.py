"""The vector store: each entry's vector by meaning, keyed by model id and content hash.

A file of its own beside the index, `<common dir>/git-memory/vectors.sqlite`: derived data,
deletable, but expensive (a transformer embeds ~10-40 entries a second here), so it survives
`reindex` and every rebuild of the index, and two clones of one repository share nothing
but what they embed themselves. Every read and write names the model id: vectors of two
models are never compared. Rows are float16 (half the size; the cosines move < 1e-3).

Searching reads a snapshot, not the table: reading 100,000 rows out of SQLite and widening
them cost a fresh recall ~0.9 s (docs/benchmarks.md). `vectors-<model>.snap` beside the
store holds one model's rows up to a sequence number, laid out to be mapped in memory (the
hashes, the sign bits of each vector, the float16 vectors); rows stored since are read from
the table. A search ranks every row by the Hamming distance of its sign bits to the query's,
then rescores the best few thousand with their float vectors (the lab: a binary shortlist
rescored this way loses nothing). The snapshot is rewritten by the worker when it finishes,
and by a search that finds it missing or far behind.

numpy is loaded only by searches and `as_blob`: keyword-only recall never opens these files.
"""

from __future__ import annotations

import operator
import os
import sqlite3
import struct
from collections.abc import Iterable
from typing import Any

from git_memory.errors import GitMemoryError
from git_memory.index.entries import filters
from git_memory.index.files import Index, vectors_path
from git_memory.index.rank.hits import JOIN_FLAGS, SELECT
from git_memory.index.schema import Row
from git_memory.index.vector_snapshot import (Snapshot, mapped, numpy_module, snapshot_path,
                                              store_id, write_snapshot)
from git_memory.store.locate import GitDirs

Store = sqlite3.Connection  # the vector store's connection, as embed/ names it (no sqlite3 there)
# `seq` orders the rows as they were stored: a snapshot holds those up to one `seq` (a
# vector stored again gets a new one). `meta` names the store: a snapshot of a deleted and
# remade store is not read as this one's.
_TABLE = ("CREATE TABLE IF NOT EXISTS vectors(seq INTEGER PRIMARY KEY, model TEXT NOT NULL,"
          " hash TEXT NOT NULL, v BLOB NOT NULL, UNIQUE(model, hash))")
_META = "CREATE TABLE IF NOT EXISTS meta(key TEXT PRIMARY KEY, value TEXT NOT NULL)"
# The float rescore's share: the best this many by sign bits (of 100,000) get their cosine.
RESCORE = 2000
# A snapshot this far behind the table (rows stored since) is rewritten by the next search.
BEHIND = 2000

store_path = vectors_path


class StoreDamaged(GitMemoryError):
    """The vector store cannot be read. Recall by meaning stops (keywords still answer) until
    it is deleted; `git memory embed` makes it again."""


def open_store(dirs: GitDirs) -> sqlite3.Connection:
    """The store, made or brought to this schema (StoreDamaged if it cannot be read)."""
    path = store_path(dirs)
    path.parent.mkdir(parents=True, exist_ok=True)
    conn = sqlite3.connect(path, timeout=30, isolation_level=None)
    try:
        columns = [row[1] for row in conn.execute("PRAGMA table_info(vectors)")]
        if "seq" in columns and store_id(conn):
            return conn  # as it should be: a reader takes no write lock (the worker may hold it)
        conn.execute("PRAGMA journal_mode=WAL")
        if columns:
            _add_sequence(conn)
        conn.execute(_TABLE)
        conn.execute(_META)
        conn.execute("INSERT OR IGNORE INTO meta VALUES ('id', ?)", (os.urandom(16).hex(),))
    except sqlite3.DatabaseError as problem:
        conn.close()
        raise StoreDamaged(f"{path}: cannot be read ({problem}); delete it and run"
                           " `git memory embed` to make it again") from problem
    return conn


def _add_sequence(conn: sqlite3.Connection) -> None:
    """A store from before snapshots (rows keyed by model and hash alone): the same rows,
    numbered as stored."""
    if "seq" in [row[1] for row in conn.execute("PRAGMA table_info(vectors)")]:
        return  # only `meta` was missing
    with conn:
        conn.execute("BEGIN IMMEDIATE")
        conn.execute("ALTER TABLE vectors RENAME TO vectors_unnumbered")
        conn.execute(_TABLE)
        conn.execute("INSERT INTO vectors(model, hash, v) SELECT model, hash, v"
                     " FROM vectors_unnumbered")
        conn.execute("DROP TABLE vectors_unnumbered")


def as_blob(vector: Any) -> bytes:
    np = numpy_module()
    return bytes(np.asarray(vector, dtype=np.float16).tobytes())


# Entries a vector is made for: any a recall could show (any status but redacted: a
# superseded entry found by meaning still shows its successor's way).
_EMBEDDED = "kind = 'entry' AND hash IS NOT NULL AND status != 'redacted'"
# Redacted entries' hashes, off the partial status index (refold gives them a state).
_REDACTED = ("SELECT DISTINCT hash FROM records WHERE state IS NOT NULL AND status = 'redacted'"
             " AND kind = 'entry' AND hash IS NOT NULL")


def _hashes_to_embed(index: Index) -> set[str]:
    return {h for (h,) in index.conn.execute(f"SELECT hash FROM records WHERE {_EMBEDDED}")}


def missing(index: Index, store: sqlite3.Connection, model: str, limit: int | None = None
            ) -> list[tuple[str, str]]:
    """(hash, text) of entries with no vector of `model` yet, newest first."""
    have = {h for (h,) in store.execute("SELECT hash FROM vectors WHERE model = ?", (model,))}
    rows = index.conn.execute(
        f"SELECT hash, content FROM records WHERE {_EMBEDDED} ORDER BY created DESC").fetchall()
    out, seen = [], set()
    for digest, text in rows:
        if digest not in have and digest not in seen:
            seen.add(digest)
            out.append((digest, text))
            if limit is not None and len(out) >= limit:
                break
    return out


def hidden(index: Index, store: sqlite3.Connection, *, absent: bool = False) -> list[str]:
    """Stored hashes no entry should keep a vector for: redacted entries' (a vector is
    derived from the text and the hash confirms a guess of it), and with `absent` (after a
    purge rewrote the branch) those of no entry in the index at all."""
    stored = {h for (h,) in store.execute("SELECT DISTINCT hash FROM vectors")}
    if absent:
        return sorted(stored - _hashes_to_embed(index))
    gone = {h for (h,) in index.conn.execute(_REDACTED)} & stored
    return sorted(gone - _hashes_to_embed(index)) if gone else []


def drop_hidden(index: Index, *, absent: bool = False) -> int:
    """`forget` the `hidden` vectors, if there is a vector store; how many."""
    if not store_path(index.dirs).exists():
        return 0
    store = open_store(index.dirs)
    try:
        return forget(index.dirs, store, hidden(index, store, absent=absent))
    finally:
        store.close()


def forget(dirs: GitDirs, store: sqlite3.Connection, hashes: list[str]) -> int:
    """Delete every model's vector of `hashes`, leaving no copy in the store's free pages,
    its write-ahead log or a snapshot (the next search or worker writes a new one)."""
    if not hashes:
        return 0
    store.execute("PRAGMA secure_delete = ON")
    with store:
        store.execute("BEGIN IMMEDIATE")
        store.executemany("DELETE FROM vectors WHERE hash = ?", [(h,) for h in hashes])
    store.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    for snapshot in store_path(dirs).parent.glob("vectors-*.snap"):
        snapshot.unlink(missing_ok=True)
    return len(hashes)


def put(store: sqlite3.Connection, model: str, items: Iterable[tuple[str, bytes]]) -> int:
    """Store vectors in one transaction (a killed writer loses at most this batch)."""
    rows = list(items)
    with store:
        store.execute("BEGIN IMMEDIATE")
        store.executemany("INSERT OR REPLACE INTO vectors(model, hash, v) VALUES (?, ?, ?)",
                          [(model, digest, blob) for digest, blob in rows])
    return len(rows)


def coverage(index: Index, store: sqlite3.Connection) -> dict[str, tuple[int, int]]:
    """Model id -> (entries of this index with its vector, entries in all)."""
    wanted = _hashes_to_embed(index)
    out: dict[str, tuple[int, int]] = {}
    for model, digest in store.execute("SELECT model, hash FROM vectors"):
        have, _ = out.get(model, (0, 0))
        out[model] = (have + (digest in wanted), len(wanted))
    return out


def _since(dirs: GitDirs, store: sqlite3.Connection, model: str, refresh: bool = True
           ) -> tuple[Snapshot | None, list[tuple[str, bytes]]]:
    """The snapshot to search and the rows stored after it; a snapshot missing, another
    store's, or more than BEHIND rows behind is rewritten first (with `refresh`)."""
    snap = mapped(snapshot_path(dirs, model))
    if snap is not None and (snap.model != model or snap.store != store_id(store)):
        snap = None
    # `+model`: walk the rows after `seq`, not the (model, hash) index over every row.
    rows = store.execute("SELECT hash, v FROM vectors WHERE +model = ? AND seq > ?",
                         (model, snap.seq if snap else 0)).fetchall()
    if refresh and len(rows) > BEHIND:
        write_snapshot(dirs, store, model)
        return _since(dirs, store, model, refresh=False)
    return snap, rows


def refresh_snapshot(dirs: GitDirs, store: sqlite3.Connection, model: str) -> None:
    """After a worker's run: a snapshot holding every row, once there are more than a few."""
    snap, rows = _since(dirs, store, model, refresh=False)
    if rows and (snap is not None or len(rows) > BEHIND // 4):
        write_snapshot(dirs, store, model)


def shortlist(dirs: GitDirs, model: str, query: Any, k: int) -> tuple[dict[str, float], int]:
    """The content hashes nearest the unit vector `query` among the stored vectors of
    `model` (a few times `k`: filters and entries sharing a hash drop some) with their
    cosines, and how many vectors `model` has. The one search by vector: an in-process
    recall and the embedding daemon (embed.daemon) both run it."""
    np = numpy_module()
    q = np.asarray(query, dtype=np.float32)
    take = max(4 * k, 200)
    if not store_path(dirs).exists():
        return {}, 0
    store = open_store(dirs)
    try:
        snap, rows = _since(dirs, store, model)
    except sqlite3.DatabaseError as problem:
        raise StoreDamaged(f"{store_path(dirs)}: cannot be read ({problem})") from problem
    finally:
        store.close()
    found: dict[str, float] = {}
    if snap is not None and len(snap.hashes):
        pick = np.arange(len(snap.hashes))
        if len(pick) > RESCORE:  # by sign bits first: 8 bytes a row where the cosine reads 768
            codes = snap.codes.view(np.uint64) if snap.codes.shape[1] % 8 == 0 else snap.codes
            query_code = np.packbits(q > 0).view(codes.dtype)
            distance = np.bitwise_count(codes ^ query_code).sum(1, dtype=np.int32)
            pick = np.argpartition(distance, RESCORE - 1)[:RESCORE]
        sims = snap.values[pick].astype(np.float32) @ q
        best = np.argsort(-sims)[:take]
        found = {snap.hashes[i].decode(): float(c) for i, c in zip(pick[best].tolist(), sims[best])}
    if rows:  # stored since the snapshot (a vector stored again replaces its old cosine)
        values = np.frombuffer(b"".join(v for _, v in rows), dtype=np.float16)
        sims = values.reshape(len(rows), -1).astype(np.float32) @ q
        found.update(zip((h for h, _ in rows), sims.tolist()))
    stored = (len(snap.hashes) if snap is not None else 0) + len(rows)
    return dict(sorted(found.items(), key=lambda item: -item[1])[:take]), stored


class Near:
    """A query's nearest rows by meaning, and the cosine of any entry by its content hash:
    from the shortlist, else from the entry's stored float16 vector, read in plain Python
    (the daemon's client has no numpy; a keyword candidate costs one lookup)."""

    def __init__(self, rows: list[tuple[Row, float]], by_hash: dict[str, float],
                 coverage: tuple[int, int], dirs: GitDirs, model: str, query: list[float]) -> None:
        self.rows, self.coverage = rows, coverage
        self._by_hash, self._dirs, self._model, self._query = by_hash, dirs, model, query
        self._store: sqlite3.Connection | None = None

    def cosine(self, digest: str | None) -> float | None:
        if not digest:
            return None
        if digest in self._by_hash:
            return self._by_hash[digest]
        try:
            if self._store is None:
                self._store = open_store(self._dirs)
            blob = blob_of(self._store, self._model, digest)
        except (StoreDamaged, sqlite3.DatabaseError):
            return None  # the shortlist was read; a keyword candidate simply gets no cosine
        if blob is None or len(blob) != 2 * len(self._query):
            return None
        # struct's "e" is IEEE half precision: the stored float16.
        stored = struct.unpack(f"<{len(self._query)}e", blob)
        self._by_hash[digest] = value = sum(map(operator.mul, stored, self._query))
        return value

    def close(self) -> None:
        if self._store is not None:
            self._store.close()
            self._store = None


def entry_count(index: Index) -> int:
    """Distinct entry texts. Only entries have a content hash (index.build.update), so this
    counts them off the `records_hash` index: 20 ms at 100,000, where `WHERE kind = 'entry'`
    scanned the table (400-670 ms, most of a recall by meaning). Kept while this connection
    sees no change (a warm MCP server asks at every recall)."""
    conn = index.conn
    # Another connection's commit moves data_version; this one's own writes only add rows
    # (total_changes would move with every recall's scratch table).
    stamp = (conn.execute("PRAGMA data_version").fetchone()[0],
             conn.execute("SELECT max(rowid) FROM records").fetchone()[0])
    kept = index.memo.get("entry_count")
    if isinstance(kept, tuple) and kept[0] == stamp:
        return int(kept[1])
    count = int(conn.execute("SELECT count(DISTINCT hash) FROM records").fetchone()[0]) - len(
        conn.execute(_REDACTED).fetchall())  # no vector is made for a redacted entry
    index.memo["entry_count"] = (stamp, count)
    return count


def rows_near(index: Index, by_hash: dict[str, float], k: int, types: list[str] | None = None,
              tags: list[str] | None = None, include_all: bool = False, since: str | None = None,
              ) -> list[tuple[Row, float]]:
    """The best `k` rows passing the filters among the entries of `by_hash` (content hash ->
    cosine), best first."""
    where, params = filters(types or [], tags or [], include_all, since)
    wanted, found = list(by_hash), []
    for start in range(0, len(wanted), 400):  # SQLite's parameter limit
        chunk = wanted[start:start + 400]
        found += index.conn.execute(
            f"SELECT {SELECT} FROM records r {JOIN_FLAGS} WHERE {where}"
            f" AND r.hash IN ({','.join('?' * len(chunk))})", [*params, *chunk]).fetchall()
    found.sort(key=lambda row: -by_hash[row["hash"]])
    return [(row, by_hash[row["hash"]]) for row in found[:k]]


def blob_of(store: sqlite3.Connection, model: str, digest: str) -> bytes | None:
    """One entry's stored vector of `model` (float16 bytes), or None."""
    row = store.execute("SELECT v FROM vectors WHERE model = ? AND hash = ?",
                        (model, digest)).fetchone()
    return None if row is None else bytes(row[0])


def nearest(index: Index, model: str, query: Any, k: int, types: list[str] | None = None,
            tags: list[str] | None = None, include_all: bool = False, since: str | None = None,
            ) -> Near:
    """The `k` entries (rows passing the filters) nearest to the unit vector `query`, best
    first, and the cosine of every other entry."""
    by_hash, stored = shortlist(index.dirs, model, query, k)
    return near(index, model, list(map(float, query)), by_hash, stored, k, types, tags,
                include_all, since)


def near(index: Index, model: str, query: list[float], by_hash: dict[str, float], stored: int,
         k: int, types: list[str] | None, tags: list[str] | None, include_all: bool,
         since: str | None) -> Near:
    """A shortlist (found here or by the daemon) as the rows passing the filters."""
    entries = entry_count(index)
    rows = rows_near(index, by_hash, k, types, tags, include_all, since) if by_hash else []
    return Near(rows, by_hash, (min(stored, entries), entries), index.dirs, model, query)

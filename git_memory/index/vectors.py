"""The vector store: each entry's vector by meaning, keyed by model id and content hash.

A file of its own beside the index, `<common dir>/git-memory/vectors.sqlite`: derived data,
deletable, but expensive (a transformer embeds ~10-40 entries a second here), so it survives
`reindex` and every rebuild of the index, and two clones of one repository share nothing
but what they embed themselves. Every read and write names the model id: vectors of two
models are never compared. Rows are float16 (half the size; the cosines move < 1e-3).

numpy is loaded only by `nearest` and `as_blob`: keyword-only recall never opens this file.
"""

from __future__ import annotations

import os
import sqlite3
from collections.abc import Iterable
from typing import Any

from git_memory.index.entries import filters
from git_memory.index.files import Index, vectors_path
from git_memory.index.rank.hits import JOIN_FLAGS, SELECT
from git_memory.index.schema import Row
from git_memory.store.locate import GitDirs

Store = sqlite3.Connection  # the vector store's connection, as embed/ names it (no sqlite3 there)
_SCHEMA = """
CREATE TABLE IF NOT EXISTS vectors(model TEXT NOT NULL, hash TEXT NOT NULL, v BLOB NOT NULL,
                                   PRIMARY KEY(model, hash)) WITHOUT ROWID;
"""
# The matrix of one model, kept by a warm process (MCP server, embedding daemon) until the
# file changes: (path, model) -> ((mtime_ns, size), hashes, float32 matrix).
_CACHE: dict[tuple[str, str], tuple[tuple[int, int], list[str], Any, dict[str, int]]] = {}


store_path = vectors_path


def open_store(dirs: GitDirs) -> sqlite3.Connection:
    path = store_path(dirs)
    path.parent.mkdir(parents=True, exist_ok=True)
    conn = sqlite3.connect(path, timeout=30, isolation_level=None)
    conn.execute("PRAGMA journal_mode=WAL")
    conn.executescript(_SCHEMA)
    return conn


def as_blob(vector: Any) -> bytes:
    import numpy as np  # lazy: numpy, only where vectors are made

    return np.asarray(vector, dtype=np.float16).tobytes()


def _texts_to_embed(index: Index) -> dict[str, str]:
    """Content hash -> text of every entry a recall could show (any status: a superseded
    entry found by meaning still shows its successor's way)."""
    return dict(index.conn.execute(
        "SELECT hash, content FROM records WHERE kind = 'entry' AND hash IS NOT NULL").fetchall())


def missing(index: Index, store: sqlite3.Connection, model: str, limit: int | None = None
            ) -> list[tuple[str, str]]:
    """(hash, text) of entries with no vector of `model` yet, newest first."""
    have = {h for (h,) in store.execute("SELECT hash FROM vectors WHERE model = ?", (model,))}
    rows = index.conn.execute(
        "SELECT hash, content FROM records WHERE kind = 'entry' AND hash IS NOT NULL"
        " ORDER BY created DESC").fetchall()
    out, seen = [], set()
    for digest, text in rows:
        if digest not in have and digest not in seen:
            seen.add(digest)
            out.append((digest, text))
            if limit is not None and len(out) >= limit:
                break
    return out


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
    wanted = set(_texts_to_embed(index))
    out: dict[str, tuple[int, int]] = {}
    for model, digest in store.execute("SELECT model, hash FROM vectors"):
        have, _ = out.get(model, (0, 0))
        out[model] = (have + (digest in wanted), len(wanted))
    return out


def _matrix(dirs: GitDirs, model: str) -> tuple[list[str], Any, dict[str, int]]:
    import numpy as np  # lazy: numpy, only with an embedder configured

    path = store_path(dirs)
    # The file and its write-ahead log: a writer that closed checkpointed and removed the
    # log, so a missing log must not hide a changed file (a warm process kept stale rows).
    stamp = (0, 0)
    for name in (str(path), str(path) + "-wal"):
        try:
            stat = os.stat(name)
        except FileNotFoundError:
            continue
        stamp = (stamp[0] + stat.st_mtime_ns, stamp[1] + stat.st_size)
    key = (str(path), model)
    cached = _CACHE.get(key)
    if cached and cached[0] == stamp:
        return cached[1], cached[2], cached[3]
    if not path.exists():
        return [], np.zeros((0, 0), dtype=np.float32), {}
    conn = open_store(dirs)
    try:
        rows = conn.execute("SELECT hash, v FROM vectors WHERE model = ?", (model,)).fetchall()
    finally:
        conn.close()
    hashes = [h for h, _ in rows]
    matrix = np.frombuffer(b"".join(v for _, v in rows), dtype=np.float16)
    matrix = matrix.reshape(len(rows), -1).astype(np.float32) if rows else matrix.reshape(0, 0)
    position = {digest: i for i, digest in enumerate(hashes)}
    _CACHE[key] = (stamp, hashes, matrix, position)
    return hashes, matrix, position


class Near:
    """A query's cosines with every stored vector of one model: the `k` nearest rows, and the
    cosine of any other entry by its content hash (the keyword candidates' too)."""

    def __init__(self, rows: list[tuple[Row, float]], sims: Any, position: dict[str, int],
                 coverage: tuple[int, int]) -> None:
        self.rows, self._sims, self._position, self.coverage = rows, sims, position, coverage

    def cosine(self, digest: str | None) -> float | None:
        at = self._position.get(digest or "")
        return None if at is None else float(self._sims[at])


def shortlist(dirs: GitDirs, model: str, query: Any, k: int
              ) -> tuple[dict[str, float], Any, dict[str, int]]:
    """The content hashes nearest to the unit vector `query` among the stored vectors of
    `model` (a few times `k`: filters and entries sharing a hash drop some) with their
    cosines, and the cosines of every stored vector with their positions by hash. A
    brute-force float matmul: ~15 ms at 100,000 (the lab). The one search by vector: an
    in-process recall and the embedding daemon (embed.daemon) both run it."""
    import numpy as np  # lazy: numpy, only with an embedder configured

    hashes, matrix, position = _matrix(dirs, model)
    if not hashes:
        return {}, np.zeros(0, dtype=np.float32), {}
    sims = matrix @ np.asarray(query, dtype=np.float32)
    take = min(len(hashes), max(4 * k, 200))
    best = np.argpartition(-sims, take - 1)[:take] if take < len(hashes) else np.arange(len(hashes))
    return {hashes[i]: float(sims[i]) for i in best}, sims, position


def entry_count(index: Index) -> int:
    """Distinct entry texts. Only entries have a content hash (index.build.update), so this
    counts them off the `records_hash` index: 20 ms at 100,000, where `WHERE kind = 'entry'`
    scanned the table (400-670 ms, most of a recall by meaning)."""
    return int(index.conn.execute("SELECT count(DISTINCT hash) FROM records").fetchone()[0])


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
    by_hash, sims, position = shortlist(index.dirs, model, query, k)
    entries = entry_count(index)
    if not by_hash:
        return Near([], sims, {}, (0, entries))
    rows = rows_near(index, by_hash, k, types, tags, include_all, since)
    return Near(rows, sims, position, (min(len(position), entries), entries))

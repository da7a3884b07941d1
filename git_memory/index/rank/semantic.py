"""Semantic ranking (the `[semantic]` extra): WordLlama's token vectors, read without numpy.

On when the model files are installed, unless `memory.semantic` is false. The 256-dimension
model is read straight from the files its wheel ships (float16 rows in a safetensors file,
a byte-fallback BPE in JSON): nothing is downloaded, `wordllama` is never imported. A text's
vector is the IDF-weighted sum of its tokens' rows, normalised. The index keeps the
tokenizer as a table (`sem_vocab`), each token's entry count (`sem_df`, kept current by
`sync` and `forget`), each entry's vector (`vectors`) and the model's id, files' hash and
how far entries are embedded (`meta`). At recall only the candidates' cosines are computed;
many entries to embed (a rebuild, another model) go through `tokenizers` and numpy.
Measured in docs/recall.md.
"""

from __future__ import annotations

import importlib.util
import json
import math
import os
import sqlite3
import struct
import sys
from collections.abc import Callable, Iterable
from operator import mul

from git_memory.index.rank.semantic_bpe import (  # noqa: F401 - tests read them here too
    TOKENIZER, Vocab, bounded, chunks, table_lookup, tokenize, vocab_rows,
)
from git_memory.store import config
from git_memory.store.locate import GitDirs

TYPE_CHECKING = False  # `typing` is off the hot path: for the type checker only
if TYPE_CHECKING:
    from typing import Any

MODEL_ID = "wordllama/l2_supercat_256"
WEIGHTS = ("weights", "l2_supercat_256.safetensors")
LAMBDA = 0.5  # weight of the cosine against the text score (best candidate = 1)
MAX_TOKENS = 512  # of an entry: the start says what it is about
BULK = 200  # more entries than this to embed: tokenizers + numpy, when importable
_TABLES = """
CREATE TABLE IF NOT EXISTS sem_vocab(token TEXT PRIMARY KEY, id INTEGER NOT NULL,
                                     rank INTEGER NOT NULL) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS sem_df(id INTEGER PRIMARY KEY, df INTEGER NOT NULL);
"""


_FOUND: list[str] = []  # the folder found last, checked again with one stat (MCP: every call)


def model_dir() -> str | None:
    """The installed wordllama folder holding the model files (along sys.path, no import)."""
    if _FOUND and os.path.isfile(os.path.join(_FOUND[0], *WEIGHTS)):
        return _FOUND[0]
    _FOUND.clear()
    for entry in sys.path:
        folder = os.path.join(entry or ".", "wordllama")
        if os.path.isfile(os.path.join(folder, *WEIGHTS)) and os.path.isfile(
            os.path.join(folder, *TOKENIZER)
        ):
            _FOUND.append(folder)
            return folder
    return None


def enabled(dirs: GitDirs) -> str | None:
    """The model folder when semantic ranking is on (extra installed, not switched off)."""
    if not config.get_bool(dirs, "memory.semantic", default=True):
        return None  # switched off (git's booleans: false, no, off, 0)
    return model_dir()


# --- vectors ------------------------------------------------------------------------------


class Matrix:
    """The model's rows, read one by one from the safetensors file (float16)."""

    def __init__(self, folder: str) -> None:
        self.path = os.path.join(folder, *WEIGHTS)
        with open(self.path, "rb") as handle:
            size = struct.unpack("<Q", handle.read(8))[0]
            info = json.loads(handle.read(size))["embedding.weight"]
        if info["dtype"] != "F16" or len(info["shape"]) != 2:
            raise ValueError(f"unexpected weights in {self.path}: {info['dtype']} {info['shape']}")
        self.rows, self.dim = info["shape"]
        self.base = 8 + size + info["data_offsets"][0]
        self.row = struct.Struct(f"<{self.dim}e")

    def read(self, ids: Iterable[int]) -> dict[int, tuple[float, ...]]:
        out: dict[int, tuple[float, ...]] = {}
        step = self.row.size
        with open(self.path, "rb") as handle:
            for tid in sorted(set(ids)):
                if 0 <= tid < self.rows:
                    handle.seek(self.base + tid * step)
                    out[tid] = self.row.unpack(handle.read(step))
        return out


def idf(df: int, docs: int) -> float:
    """Weight of a token in `df` of `docs` entries (never zero: a common word says a little)."""
    return math.log((docs + 1) / (df + 1)) + 1.0


def pool(ids: list[int], rows: dict[int, tuple[float, ...]], weights: dict[int, float],
         dim: int) -> list[float]:
    """The IDF-weighted sum of the tokens' rows, normalised (all zeros for no token)."""
    total = [0.0] * dim
    for tid in ids:
        row = rows.get(tid)
        if row is None:
            continue
        w = weights[tid]
        total = [t + w * x for t, x in zip(total, row)]
    norm = math.sqrt(sum(x * x for x in total))
    return [x / norm for x in total] if norm else total


def _weights(conn: sqlite3.Connection, ids: Iterable[int], docs: int) -> dict[int, float]:
    distinct = sorted(set(ids))
    df = dict(conn.execute(
        "SELECT id, df FROM sem_df WHERE id IN (SELECT value FROM json_each(?))",
        (json.dumps(distinct),),
    ))
    return {tid: idf(df.get(tid, 0), docs) for tid in distinct}


def _meta(conn: sqlite3.Connection) -> dict[str, str]:
    return dict(conn.execute("SELECT k, v FROM meta WHERE k LIKE 'semantic_%'").fetchall())


def _ids(text: str, lookup: Callable[[set[str]], Vocab]) -> list[int]:
    """The first MAX_TOKENS token ids of `text`, from its bounded form (semantic_bpe.bounded:
    linear for any text, a word of a million letters included)."""
    return tokenize(bounded(text, MAX_TOKENS), lookup)[:MAX_TOKENS]


def embed_texts(conn: sqlite3.Connection, folder: str, texts: list[str]) -> list[list[float]]:
    """Unit vectors of `texts` in pure Python (the query; a few new entries)."""
    lookup = table_lookup(conn)
    return _pooled(conn, folder, [_ids(text, lookup) for text in texts])


def _pooled(conn: sqlite3.Connection, folder: str, ids: list[list[int]]) -> list[list[float]]:
    matrix = Matrix(folder)
    rows = matrix.read(t for one in ids for t in one)
    weights = _weights(conn, rows, _docs(conn))
    return [pool(one, rows, weights, matrix.dim) for one in ids]


def _docs(conn: sqlite3.Connection) -> int:
    return int(_meta(conn).get("semantic_docs") or 0)


def cosines(conn: sqlite3.Connection, folder: str, query: str,
            rows: list[sqlite3.Row]) -> dict[int, float]:
    """Cosine of the query with each candidate (search has run `sync` first)."""
    if not rows:
        return {}
    qv = embed_texts(conn, folder, [query])[0]
    ids = [row["rowid"] for row in rows]
    stored = dict(conn.execute(
        "SELECT rowid, v FROM vectors WHERE rowid IN (SELECT value FROM json_each(?))",
        (json.dumps(ids),),
    ))
    row16 = struct.Struct(f"<{len(qv)}e")
    # sum(map(mul, ...)) runs in C: a third of a generator's time over 256 floats.
    out = {rowid: sum(map(mul, qv, row16.unpack(blob)))
           for rowid, blob in stored.items() if len(blob) == row16.size}
    missing = [row for row in rows if row["rowid"] not in out]
    if missing:  # e.g. an entry rewritten in place since the last sync: not stored, just used
        for row, vector in zip(missing, embed_texts(conn, folder, [r["content"] for r in missing])):
            out[row["rowid"]] = sum(map(mul, qv, vector))
    return out


# --- keeping the index's vectors current ----------------------------------------------------


def files_stamp(folder: str) -> str:
    """Size and modification time of the model files: cheap to compare at every recall."""
    parts = []
    for name in (WEIGHTS, TOKENIZER):
        stat = os.stat(os.path.join(folder, *name))
        parts.append(f"{stat.st_size}:{stat.st_mtime_ns}")
    return " ".join(parts)


# The hash by folder and the files' stamp: a process that makes several indexes (the MCP
# server, the test suite's fork server) reads the 18 MB of model files once.
_HASHED: dict[tuple[str, str], str] = {}


def files_hash(folder: str) -> str:
    """SHA-256 over the weights and the tokenizer (once per process and files' stamp)."""
    key = (folder, files_stamp(folder))
    if key not in _HASHED:
        _HASHED[key] = _hash_files(folder)
    return _HASHED[key]


def _hash_files(folder: str) -> str:
    import hashlib  # lazy: hot path; only when the files' stamp changed

    digest = hashlib.sha256()
    for name in (WEIGHTS, TOKENIZER):
        with open(os.path.join(folder, *name), "rb") as handle:
            for block in iter(lambda: handle.read(1 << 20), b""):
                digest.update(block)
    return digest.hexdigest()


def behind(conn: sqlite3.Connection, folder: str) -> bool:
    """Whether `sync` has anything to do: other model files, or entries past `semantic_upto`."""
    meta = _meta(conn)
    if meta.get("semantic_files") != files_stamp(folder):
        return True
    top = conn.execute("SELECT max(rowid) FROM records").fetchone()[0] or 0
    return top > int(meta.get("semantic_upto") or 0)


def sync(conn: sqlite3.Connection, folder: str, bulk: bool = True) -> int:
    """Embed the entries past `semantic_upto` (all of them when the model changed), inside
    the caller's transaction; how many were embedded."""
    if not _has_tables(conn):
        for statement in filter(str.strip, _TABLES.split(";")):
            conn.execute(statement)  # not executescript: that would commit the caller's work
    meta = _meta(conn)
    stamp = files_stamp(folder)
    upto = int(meta.get("semantic_upto") or 0)
    if meta.get("semantic_files") != stamp:
        digest = files_hash(folder)
        if meta.get("semantic_hash") != digest or meta.get("semantic_model") != MODEL_ID:
            _reset(conn, folder)  # another model: every vector and the DF are made again
            upto = 0
        _set(conn, semantic_model=MODEL_ID, semantic_hash=digest, semantic_files=stamp)
    top = conn.execute("SELECT max(rowid) FROM records").fetchone()[0] or 0
    new = conn.execute(
        "SELECT rowid, content FROM records WHERE rowid > ? AND kind = 'entry'"
        " AND status != 'redacted' AND rowid NOT IN (SELECT rowid FROM vectors)",
        (upto,),
    ).fetchall()
    if new:
        _embed_entries(conn, folder, [r[0] for r in new], [r[1] for r in new], bulk)
    _set(conn, semantic_upto=str(top))
    return len(new)


def _has_tables(conn: sqlite3.Connection) -> bool:
    return conn.execute(
        "SELECT count(*) FROM sqlite_master WHERE name IN ('sem_vocab', 'sem_df')"
    ).fetchone()[0] == 2


def _set(conn: sqlite3.Connection, **values: str) -> None:
    conn.executemany("INSERT OR REPLACE INTO meta(k, v) VALUES (?, ?)", list(values.items()))


def _reset(conn: sqlite3.Connection, folder: str) -> None:
    conn.execute("DELETE FROM vectors")
    conn.execute("DELETE FROM sem_df")
    conn.execute("DELETE FROM sem_vocab")
    conn.executemany("INSERT INTO sem_vocab(token, id, rank) VALUES (?, ?, ?)", vocab_rows(folder))
    _set(conn, semantic_docs="0", semantic_upto="0")


def _embed_entries(conn: sqlite3.Connection, folder: str, rowids: list[int], texts: list[str],
                   bulk: bool) -> None:
    """Count the entries' tokens into the DF, then store their vectors."""
    if bulk and len(texts) > BULK and _bulk_available():
        import numpy  # lazy: the [semantic] extra's, bulk only

        ids = _bulk_ids(numpy, folder, texts)
        _add_counts(conn, _bulk_counts(numpy, ids), len(ids))
        blobs = _bulk_vectors(numpy, conn, folder, ids, _docs(conn))
    else:
        lookup = table_lookup(conn)
        small = [_ids(text, lookup) for text in texts]
        _add_counts(conn, _counts(small), len(small))
        blobs = [struct.pack(f"<{len(v)}e", *v) for v in _pooled(conn, folder, small)]
    conn.executemany("INSERT OR REPLACE INTO vectors(rowid, v) VALUES (?, ?)", zip(rowids, blobs))


def _counts(ids: list[list[int]]) -> dict[int, int]:
    """In how many of these token lists each token occurs."""
    counts: dict[int, int] = {}
    for one in ids:
        for tid in set(one):
            counts[tid] = counts.get(tid, 0) + 1
    return counts


def _add_counts(conn: sqlite3.Connection, counts: dict[int, int], docs: int, sign: int = 1) -> None:
    """Add (sign 1) or take away (-1) document frequencies, and `docs` entries."""
    if sign > 0:
        conn.executemany(
            "INSERT INTO sem_df(id, df) VALUES (?, ?)"
            " ON CONFLICT(id) DO UPDATE SET df = df + excluded.df",
            list(counts.items()),
        )
    else:
        conn.executemany("UPDATE sem_df SET df = max(df - ?, 0) WHERE id = ?",
                         [(n, tid) for tid, n in counts.items()])
    _set(conn, semantic_docs=str(max(_docs(conn) + sign * docs, 0)))


def forget(conn: sqlite3.Connection, texts: list[str]) -> None:
    """Take the tokens of entries leaving the index (deleted, redacted) out of the DF."""
    if not texts or not _has_tables(conn):
        return
    lookup = table_lookup(conn)
    _add_counts(conn, _counts([_ids(text, lookup) for text in texts]), len(texts), -1)


def _bulk_available() -> bool:
    return all(importlib.util.find_spec(name) for name in ("numpy", "tokenizers"))


def _bulk_ids(np: Any, folder: str, texts: list[str]) -> list[Any]:
    """Token ids (numpy int32 arrays) by the model's own tokenizer (Rust, fast), for many
    entries, a batch at a time: its encodings of 100k entries at once took 1.5 GiB."""
    from tokenizers import Tokenizer  # lazy: the [semantic] extra's, bulk only

    tokenizer = Tokenizer.from_file(os.path.join(folder, *TOKENIZER))
    tokenizer.no_truncation()
    tokenizer.no_padding()
    out: list[Any] = []
    for start in range(0, len(texts), 1000):
        batch = [bounded(text, MAX_TOKENS) for text in texts[start : start + 1000]]
        out.extend(np.asarray(e.ids[:MAX_TOKENS], dtype=np.int32)
                   for e in tokenizer.encode_batch(batch, add_special_tokens=False))
    return out


def _bulk_counts(np: Any, ids: list[Any]) -> dict[int, int]:
    if not ids:
        return {}
    counts = np.bincount(np.concatenate([np.unique(one) for one in ids]).astype(np.int64))
    return {int(tid): int(n) for tid in np.flatnonzero(counts) for n in (counts[tid],)}


def _bulk_vectors(np: Any, conn: sqlite3.Connection, folder: str, ids: list[Any],
                  docs: int) -> list[bytes]:
    """The same pooling as `pool`, with numpy over the whole matrix."""
    matrix = Matrix(folder)
    table = np.fromfile(matrix.path, dtype="<f2", count=matrix.rows * matrix.dim,
                        offset=matrix.base).reshape(matrix.rows, matrix.dim).astype(np.float32)
    df = np.zeros(matrix.rows, np.float64)
    for tid, count in conn.execute("SELECT id, df FROM sem_df"):
        if 0 <= tid < matrix.rows:
            df[tid] = count
    weight = (np.log((docs + 1) / (df + 1)) + 1.0).astype(np.float32)
    out: list[bytes] = []
    for one in ids:
        if not len(one):
            out.append(np.zeros(matrix.dim, np.float16).tobytes())
            continue
        index = one.astype(np.int64)
        vector = (weight[index, None] * table[index]).sum(axis=0)
        norm = float(np.linalg.norm(vector))
        out.append((vector / norm if norm else vector).astype("<f2").tobytes())
    return out

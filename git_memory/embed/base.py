"""What every embedder is: a model id, a dimension, and texts -> unit vectors."""

from __future__ import annotations

from typing import Any, Protocol

from git_memory.errors import GitMemoryError


class EmbedderUnavailable(GitMemoryError):
    """The configured model cannot be used (missing files, numpy or tokenizers)."""


class Embedder(Protocol):
    # `name@hash8`: the hash of the weight files, so a changed model is a new id and its
    # vectors are never mixed with the old ones (every vector is stored under its model id).
    model_id: str
    dim: int

    def embed(self, texts: list[str]) -> Any:
        """A float32 numpy array (len(texts), dim), each row of length 1."""
        ...

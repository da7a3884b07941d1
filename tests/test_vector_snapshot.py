"""The vector store's snapshot (index/vectors.py): what a search reads instead of the table.

Shown with random unit vectors (the search does not care what made them) in a real
repository's store: a search over more rows than the float rescore takes finds what a
brute-force search finds; rows stored after the snapshot are found too; a snapshot that is
far behind, corrupt, or another store's is never trusted; the worker leaves one behind.
"""

from __future__ import annotations

import json
import sqlite3
from contextlib import closing
from pathlib import Path

import numpy as np
import pytest

from git_memory.index import vectors
from git_memory.store.locate import GitDirs, discover

MODEL = "test-model@00000000"
DIM = 384


def unit(rows: int, seed: int) -> np.ndarray:
    found = np.random.default_rng(seed).normal(size=(rows, DIM)).astype(np.float32)
    return found / np.linalg.norm(found, axis=1, keepdims=True)


def store_rows(dirs: GitDirs, values: np.ndarray, prefix: str) -> dict[str, np.ndarray]:
    with closing(vectors.open_store(dirs)) as store:
        vectors.put(store, MODEL, [(f"{prefix}{i}", vectors.as_blob(v)) for i, v in enumerate(values)])
    return {f"{prefix}{i}": v.astype(np.float16).astype(np.float32) for i, v in enumerate(values)}


def brute_force(stored: dict[str, np.ndarray], query: np.ndarray, k: int) -> list[str]:
    return sorted(stored, key=lambda h: -float(stored[h] @ query))[:k]


@pytest.fixture
def dirs(git_repo: Path) -> GitDirs:
    found = discover(git_repo)
    found.memory_dir.mkdir(parents=True, exist_ok=True)
    return found


def test_a_search_over_many_rows_finds_what_brute_force_finds(dirs: GitDirs) -> None:
    # Noise, and a topic: rows near one another as notes on one subject are.
    noise = unit(3 * vectors.RESCORE, 1)
    topic = unit(1, 2)[0] + 0.08 * unit(40, 3) * np.sqrt(DIM) / 4
    topic /= np.linalg.norm(topic, axis=1, keepdims=True)
    stored = store_rows(dirs, np.vstack([noise, topic]), "h")
    snapshot = vectors.snapshot_path(dirs, MODEL)
    assert not snapshot.exists()
    near = [f"h{len(noise) + i}" for i in range(40)]
    queries = [stored[near[0]], stored[near[7]] + 0.1 * unit(1, 4)[0], *unit(3, 5)]
    for query in (q / np.linalg.norm(q) for q in queries):
        by_hash, count = vectors.shortlist(dirs, MODEL, query, 10)
        assert count == len(stored)
        for digest, cosine in by_hash.items():
            assert abs(cosine - float(stored[digest] @ query)) < 1e-4
        # Whatever clears the fusion's floor is found, in the brute-force order; below it
        # (noise, ~N(0, 1/384)) the sign bits may keep other near-ties.
        clear = [h for h in brute_force(stored, query, 200) if stored[h] @ query >= 0.2]
        assert list(by_hash)[:len(clear)] == clear
    assert snapshot.exists()  # far more rows than BEHIND: the first search wrote one
    assert not list(snapshot.parent.glob("*.tmp"))
    by_topic, _ = vectors.shortlist(dirs, MODEL, stored[near[0]], 10)
    assert set(list(by_topic)[:10]) <= set(near)  # a topic's rows outrank all the noise


def test_rows_stored_after_the_snapshot_are_found(dirs: GitDirs) -> None:
    stored = store_rows(dirs, unit(vectors.BEHIND + 500, 5), "old")
    vectors.shortlist(dirs, MODEL, unit(1, 6)[0], 5)
    before = vectors.snapshot_path(dirs, MODEL).stat().st_mtime_ns
    late = store_rows(dirs, unit(3, 7), "new")
    by_hash, count = vectors.shortlist(dirs, MODEL, late["new1"], 5)
    assert next(iter(by_hash)) == "new1" and count == len(stored) + 3
    assert vectors.snapshot_path(dirs, MODEL).stat().st_mtime_ns == before  # not rewritten
    # Far behind: the next search rewrites it.
    store_rows(dirs, unit(vectors.BEHIND + 1, 8), "more")
    vectors.shortlist(dirs, MODEL, late["new1"], 5)
    assert vectors.snapshot_path(dirs, MODEL).stat().st_mtime_ns != before


@pytest.mark.parametrize("damage", ["garbage", "truncated", "another store"])
def test_a_snapshot_not_to_trust_is_never_read(dirs: GitDirs, damage: str) -> None:
    stored = store_rows(dirs, unit(vectors.BEHIND + 500, 9), "h")
    query = stored["h3"]
    vectors.shortlist(dirs, MODEL, query, 5)
    snapshot = vectors.snapshot_path(dirs, MODEL)
    if damage == "garbage":
        snapshot.write_bytes(b"\0\xff not a snapshot" * 100)
    elif damage == "truncated":
        snapshot.write_bytes(snapshot.read_bytes()[:5000])
    else:  # the store deleted and made again: its rows are other rows
        copy = snapshot.read_bytes()
        for suffix in ("", "-wal", "-shm"):
            Path(str(vectors.store_path(dirs)) + suffix).unlink(missing_ok=True)
        stored = store_rows(dirs, unit(50, 10), "other")
        query = stored["other3"]
        snapshot.write_bytes(copy)
    by_hash, count = vectors.shortlist(dirs, MODEL, query, 5)
    assert count == len(stored)
    assert list(by_hash)[:5] == brute_force(stored, query, 5)


def test_the_worker_leaves_a_snapshot_of_every_row(dirs: GitDirs) -> None:
    stored = store_rows(dirs, unit(vectors.BEHIND, 11), "h")  # no search has run
    with closing(vectors.open_store(dirs)) as store:
        vectors.refresh_snapshot(dirs, store, MODEL)  # what the worker calls when it is done
    snap = vectors.Snapshot(vectors.snapshot_path(dirs, MODEL))
    assert len(snap.hashes) == len(stored) and snap.model == MODEL
    assert np.array_equal(snap.values[12], stored["h12"].astype(np.float16))
    assert snap.hashes[12].decode() == "h12"


def test_a_store_from_before_snapshots_keeps_its_rows(dirs: GitDirs) -> None:
    path = vectors.store_path(dirs)
    with closing(sqlite3.connect(path)) as old:
        old.execute("CREATE TABLE vectors(model TEXT NOT NULL, hash TEXT NOT NULL, v BLOB NOT NULL,"
                    " PRIMARY KEY(model, hash)) WITHOUT ROWID")
        old.executemany("INSERT INTO vectors VALUES (?, ?, ?)",
                        [(MODEL, f"h{i}", vectors.as_blob(v)) for i, v in enumerate(unit(5, 12))])
        old.commit()
    by_hash, count = vectors.shortlist(dirs, MODEL, unit(5, 12)[3], 2)
    assert count == 5 and next(iter(by_hash)) == "h3"
    with closing(vectors.open_store(dirs)) as store:
        assert [r[0] for r in store.execute("SELECT seq FROM vectors ORDER BY seq")] == [1, 2, 3, 4, 5]


def test_a_damaged_store_leaves_recall_to_its_keywords(git_repo: Path, gm) -> None:
    assert gm("add", "LEARNED: the oauth redirect uri must match exactly").returncode == 0
    path = vectors.store_path(discover(git_repo))
    path.write_bytes(b"this is not a database\n" * 200)
    found = gm("recall", "oauth redirect")
    assert found.returncode == 0, found.stderr
    assert b"oauth redirect uri" in found.stdout and b"damaged" not in found.stderr
    assert path.read_bytes().startswith(b"this is not a database")  # nothing rewritten
    report = json.loads(gm("doctor", "--json").stdout)["embedding"]
    if report["configured"]:  # with the model installed (CI): doctor names the file
        assert "vectors.sqlite: cannot be read" in report["unavailable"]

"""A full build of the index into `index.sqlite.build`, in committed batches a later build
resumes, swapped in when whole; `scratch_index`, the same rows of a few files in memory.

Each batch's commit also writes the stamp (`build_tip`, `build_ref`, `build_done`: how many
files of that tree are in): a killed build (SIGKILL included: the rollback journal undoes
the open batch) leaves the file behind, and the next build of the same tip skips the files
already in; another tip, ref or schema, or a forced build, starts over. Workers
(`parallel.ordered`) read and parse the files a step at a time; this process inserts.
"""

from __future__ import annotations

import itertools
import marshal
import os
import re
import sqlite3
import time
from pathlib import Path
from typing import Any, Callable, Iterator, NamedTuple

from git_memory import parallel
from git_memory.index.files import (
    Index, Progress, WriterLock, build_meta, build_path, connect, fts_build_path, index_path,
    set_stamp, stale_temp_files,
)
from git_memory.index.build.refold import mark_decayed, newest_created, refold
from git_memory.index.schema import INDEXES, SCHEMA, SCHEMA_VERSION, Known, meta_value, transaction
from git_memory.index.build.update import (
    INSERT_FTS, INSERT_PROBLEM, INSERT_RECORD, carry_local_flags, file_rows, insert_files,
)
from git_memory.store.branch import MemoryBranch
from git_memory.store.locate import GitDirs

# Files per committed batch (what a killed build can lose) and per step (a worker's task,
# and a progress report); the environment variables are for tests and benchmarks.
BATCH = 20000
STEP = 2000
MIN_FILES = 6000  # files at least, for a build to start workers: below, they cost more
FTS_HASH = 64 << 20  # bytes of pending FTS terms before a segment is written (see _open)
TIME_RE = re.compile(r"^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}Z$")


def _batch() -> int:
    return int(os.environ.get("GIT_MEMORY_BUILD_BATCH") or BATCH)


def _pause() -> float:
    """Seconds to wait after each committed batch: lets a test kill a build mid-way."""
    return float(os.environ.get("GIT_MEMORY_BUILD_PAUSE") or 0)


def build(
    dirs: GitDirs, branch: Any, ref: str, tip: str | None, progress: Progress | None = None,
    known: Known | None = None, fresh: bool = False,
    finish: Callable[[sqlite3.Connection], None] | None = None,
) -> None:
    """Build (or resume building) the index of `tip` and swap it in. The caller holds
    the build lock. `finish(conn)` runs in the build's last transaction, before the
    stamp (index.build.catchup: the rows read-only sources add, semantic vectors)."""
    for stale in stale_temp_files(dirs):  # an old version's, killed mid-build
        stale.unlink(missing_ok=True)
    conn, done = _open(build_path(dirs), dirs, None if fresh else tip, ref)
    resumed = done or 0
    try:
        counted = (meta_value(conn, "build_total") or "") if done is not None else ""  # by the first run
        total = int(counted) if counted.isdigit() else branch.count_files(tip) if tip else 0
        if done is None:
            now = _newest_created(branch, tip)
            conn.executemany("INSERT OR REPLACE INTO meta(k, v) VALUES (?, ?)", [
                ("build_tip", tip or ""), ("build_ref", ref), ("build_done", "0"),
                ("build_total", str(total)), ("build_resumed_from", "0"), ("build_now", now),
            ])
        else:
            now = meta_value(conn, "build_now") or ""
            conn.executemany("INSERT OR REPLACE INTO meta(k, v) VALUES (?, ?)", [
                ("build_resumed_from", str(resumed)), ("build_total", str(total)),
            ])
        workers = parallel.count(total - resumed, MIN_FILES, 2, "GIT_MEMORY_BUILD_WORKERS")
        rowid = (conn.execute("SELECT max(rowid) FROM records").fetchone()[0] or 0) + 1
        files = itertools.islice(branch.iter_files(tip), resumed, None) if tip else iter(())
        made = _made(branch, files, rowid, known, now if TIME_RE.match(now) else "", workers)
        _load(conn, made, resumed, total, progress)
        _finish(conn, tip, ref, finish, now)
    finally:
        conn.close()
    _swap(dirs)


def _open(path: Any, dirs: GitDirs, tip: str | None, ref: str) -> tuple[sqlite3.Connection, int | None]:
    """The build file, tuned for a bulk load, and how many files it holds already: a
    build of `tip` and `ref` resumed, or None for a new file (no tip: always new)."""
    old_side = fts_build_path(dirs)  # an older version's build kept its words there
    meta = build_meta(path) if tip is not None and not old_side.exists() else {}
    done = meta.get("build_done", "")
    if meta.get("build_tip") == tip and meta.get("build_ref") == ref and done.isdigit():
        conn = connect(path)
    else:
        for each in (path, old_side):
            for suffix in ("", "-journal", "-wal", "-shm"):
                type(each)(str(each) + suffix).unlink(missing_ok=True)
        conn = connect(path)
        # The partial indexes and `created` (the dated tree's order appends) are kept while
        # loading; ids, keys and hashes come in no order: made at the end for a third of the
        # cost. The schema in one transaction without fsync (50 ms saved before the first row).
        conn.execute("PRAGMA synchronous = OFF")
        conn.executescript(f"BEGIN; {SCHEMA} {_EARLY_INDEXES};"
                           f" PRAGMA user_version = {SCHEMA_VERSION}; COMMIT;")
        # FTS5 writes a segment whenever pending terms pass `hashsize` (1 MiB by default:
        # dozens per batch, merged again later); this large, one per batch. Reset at the end.
        conn.execute("INSERT INTO fts(fts, rank) VALUES ('hashsize', ?)", (FTS_HASH,))
        done = ""
    # A rollback journal (SQLite's default) so a killed batch is undone; no fsync: a
    # build lost to a power cut is only rebuilt. A large cache keeps FTS merges in memory.
    conn.execute("PRAGMA journal_mode = DELETE")
    conn.execute("PRAGMA synchronous = OFF")
    conn.execute("PRAGMA cache_size = -65536")
    conn.execute("PRAGMA threads = 2")  # the last batch's index sorts, beside the fold
    return conn, int(done) if done else None


_EARLY_INDEXES = ";".join(s for s in INDEXES.split(";") if "(key)" not in s and (
    "WHERE" in s or "(created)" in s))


Made = tuple[int, int, list[Any], list[Any], list[Any]]


def _steps(files: Iterator[Any], batch: int, step: int,
           rowid: int) -> Iterator[tuple[list[Any], int, int]]:
    """The files in steps of `step`, each saying whether it ends a batch of `batch` (FINAL
    when that batch is the last one: one file is read ahead to know), and the rowid its
    first row takes if every file before made one (_load numbers on when some did not)."""
    ahead: list[Any] = []
    while chunk := ahead + list(itertools.islice(files, batch - len(ahead))):
        ahead = list(itertools.islice(files, 1))
        end = 1 if ahead else FINAL
        for start in range(0, len(chunk), step):
            yield chunk[start : start + step], end if start + step >= len(chunk) else 0, rowid
            rowid += len(chunk[start : start + step])


FINAL = 2  # a step's end when it ends the last batch (1: it ends a batch, 0: not)


def _made(branch: Any, files: Iterator[Any], rowid: int, known: Known | None, now: str,
          workers: int) -> Iterator[Made]:
    """Each step's (files, batch end, records rows, fts rows, problems rows), made in
    this process or by `workers` processes, rows numbered from `rowid` (see _steps)."""
    steps = _steps(files, _batch(), min(STEP, _batch()), rowid)
    if not workers:
        return (_rows(branch, chunk, end, first, known, now) for chunk, end, first in steps)
    tasks = ((_task, ([(f.path, f.blob, f.mode) for f in chunk], end, first))
             for chunk, end, first in steps)
    made = parallel.ordered(tasks, workers, _start, (branch.dirs, branch.ref, branch.roots,
                                                     branch.seed, known, now))
    return map(marshal.loads, made)


def _rows(branch: Any, files: list[Any], end: int, first: int, known: Known | None,
          now: str) -> Made:
    rows = file_rows(branch, files, first, known, now)
    return len(files), end, rows.records, rows.texts, rows.problems


_WORKER: list[Any] = []  # a worker's (branch reader, known, now), set by _start


def _start(dirs: GitDirs, ref: str, roots: tuple[str, ...], seed: Any, known: Known | None,
           now: str) -> None:
    """A worker's start: the branch opened again (pygit2 holds no state across a fork)."""
    _WORKER[:] = [MemoryBranch(dirs, ref, roots, seed=seed), known, now]


def _task(files: list[tuple[str, str, int]], end: int, first: int) -> bytes:
    """A worker's step, its rows in `marshal` (read back in half pickle's time)."""
    branch, known, now = _WORKER
    return marshal.dumps(_rows(branch, [_File(*f) for f in files], end, first, known, now))


class _File(NamedTuple):
    """A file as a worker gets it (what update.file_rows reads of a FileChange)."""

    path: str
    blob: str
    mode: int


def _load(conn: sqlite3.Connection, made: Iterator[Made], done: int, total: int,
          progress: Progress | None) -> None:
    """Insert each step's rows, committing and stamping each batch; the secondary
    indexes made in the last one."""
    pause = _pause()
    skipped = 0  # files before this step that made no row (refused or malformed)
    conn.execute("BEGIN")
    try:
        for files, end, records, texts, problems in made:
            if skipped:
                records = [(r[0] - skipped, *r[1:]) for r in records]
                texts = [(t[0] - skipped, *t[1:]) for t in texts]
            conn.executemany(INSERT_RECORD, records)
            conn.executemany(INSERT_FTS, texts)
            conn.executemany(INSERT_PROBLEM, problems)
            skipped += files - len(records)
            done += files
            if progress:
                progress(min(done, total), max(total, 1))
            if not end:
                continue
            if end == FINAL:
                _indexes(conn)
            conn.execute("INSERT OR REPLACE INTO meta(k, v) VALUES ('build_done', ?)", (str(done),))
            conn.execute("COMMIT")
            if pause:
                time.sleep(pause)  # the batch is committed: a test may kill the build now
            conn.execute("BEGIN")
        conn.execute("COMMIT")
    except BaseException:
        if conn.in_transaction:
            conn.execute("ROLLBACK")
        raise


def _newest_created(branch: Any, tip: str | None) -> str:
    """A guess at the fold's clock (the largest `created`) from the newest dated folders,
    so entries go in with the confidence the fold gives them; when a record elsewhere is
    newer, the fold computes every row again (_decayed_at)."""
    if tip is None:
        return ""
    files, _ = branch.newest_files(tip, 25, scan=0)
    found = [row[6] for row in file_rows(branch, files, 1).records if TIME_RE.match(row[6])]
    return max(found, default="")


def _finish(
    conn: sqlite3.Connection, tip: str | None, ref: str,
    finish: Callable[[sqlite3.Connection], None] | None, now: str,
) -> None:
    """Secondary indexes, the fold, the caller's `finish` (sources, vectors) and the
    stamp, in one transaction."""
    with transaction(conn):
        _indexes(conn)  # made in the last batch, unless a build killed after it resumes
        _decayed_at(conn, now)
        refold(conn)
        if finish is not None:
            finish(conn)
        conn.execute("DELETE FROM fts_config WHERE k = 'hashsize'")  # the build's (_open)
        set_stamp(conn, tip, ref)


def _indexes(conn: sqlite3.Connection) -> None:
    """The secondary indexes not made yet (_open made the cheap ones)."""
    for statement in filter(str.strip, INDEXES.split(";")):
        conn.execute(statement.replace("CREATE INDEX", "CREATE INDEX IF NOT EXISTS"))


def _decayed_at(conn: sqlite3.Connection, now: str) -> None:
    """When the guessed clock (_newest_created) is the fold's, mark it as the fold's last
    pass would (refold._plain_confidence then visits no row again)."""
    if now and newest_created(conn) == now and TIME_RE.match(now):
        mark_decayed(conn, now)


def _swap(dirs: GitDirs) -> None:
    """The finished build replaces the index, with the local flags the old one held."""
    path, built = index_path(dirs), build_path(dirs)
    with WriterLock(dirs):
        conn = connect(built)
        # No fsync: this last commit made the kernel write out the whole file (150 MB at
        # 100k: 0.13-0.18 s). A derived index lost to a power cut is rebuilt.
        conn.execute("PRAGMA synchronous = OFF")
        try:  # autocommit: ATTACH (in carry_local_flags) cannot run inside a transaction
            carry_local_flags(conn, path)
            conn.execute("DELETE FROM meta WHERE k LIKE 'build_%' AND k != 'build_resumed_from'")
        finally:
            conn.close()
        os.replace(built, path)
        for suffix in ("-wal", "-shm", "-journal"):
            type(path)(str(path) + suffix).unlink(missing_ok=True)


def scratch_index(dirs: GitDirs, reader: Any, files: list[Any]) -> Index:
    """An index in memory of a few record files: what an agent hook that cannot wait for
    the real index answers from."""
    path = Path(":memory:")
    conn = connect(path)
    conn.executescript(SCHEMA + INDEXES)
    with transaction(conn):
        insert_files(conn, reader, files, fresh=True)
        refold(conn)
    return Index(conn, dirs, None, path)

"""A full build of the index, in committed batches that a later build resumes.

The build writes `index.sqlite.build` (never the live index): record files go in, in the
branch's tree order, a batch per transaction, and each commit also writes the stamp
(`build_tip`, `build_ref`, `build_done`: how many files of that tree are in). A build
killed at any point (SIGKILL included: SQLite's rollback journal undoes the open batch)
leaves that file behind, and the next build of the same tip skips the files already in.
The `fts` rows go into a side file of their own (`index.sqlite.build-fts`), on a thread
and a connection of their own, committed batch by batch before the build file (Writers).
The secondary indexes are made in the last batch; when every file is in, the side file's
full-text tables are copied in (_copy_fts), the fold and the semantic vectors are made,
the index stamp is set, and the file replaces `index.sqlite` under the writer lock (the
checkout hook's local flags are carried over at that moment). A build for another tip,
another ref or schema, or a forced one (`reindex`, a damaged index) starts over.

Only the write side imports this (index.db, when a rebuild is due). May import
`index.buildfiles`, `index.buildproc`, `index.buildwriters`, `index.decay`, `index.files`, `index.schema`, `index.write`, `index.refold`, `index.semantic`,
`fold` (the confidence rule), `store.locate`.
"""

from __future__ import annotations

import itertools
import os
import queue
import sqlite3
import threading
import time
from typing import Any, Callable, Iterable, Iterator

from git_memory.index import buildproc
from git_memory.index.buildfiles import open_build, remove_files
from git_memory.index.buildwriters import TIME_RE, Writers, insert_records
from git_memory.index.decay import Decay
from git_memory.index.files import (
    WriterLock, build_meta, build_path, connect, fts_build_path, index_path, remove_stale,
    set_stamp,
)
from git_memory.index.schema import (
    FTS_SHADOWS, INDEXES, Known, transaction,
)
from git_memory.index.refold import refold
from git_memory.index.write import (
    INSERT_RECORD, Read, carry_local_flags, file_rows, read_files,
)
from git_memory.store.locate import GitDirs

Progress = Callable[[int, int], None]

# Files per committed batch (what a killed build can lose) and per insert call (how
# often progress is reported). The environment variables are for tests and benchmarks.
BATCH = 20000
STEP = 2000


def _batch() -> int:
    return int(os.environ.get("GIT_MEMORY_BUILD_BATCH") or BATCH)


def _pause() -> float:
    """Seconds to wait after each committed batch: lets a test kill a build mid-way."""
    return float(os.environ.get("GIT_MEMORY_BUILD_PAUSE") or 0)


def build(
    dirs: GitDirs, branch: Any, ref: str, tip: str | None, progress: Progress | None = None,
    known: Known | None = None, fresh: bool = False, files: Callable[[], Iterable[Any]] | None = None,
    total: int | None = None, finish: Callable[[sqlite3.Connection], None] | None = None,
) -> dict[str, int]:
    """Build (or resume building) the index of `tip` and swap it in. The caller holds
    the build lock. `finish(conn)` runs in the build's last transaction, before the
    stamp (index.db: the rows read-only sources add, their stamp, semantic vectors).
    Returns counts: files in all, files this run inserted, batches."""
    remove_stale(dirs)
    path, fts = build_path(dirs), fts_build_path(dirs)
    conn, side, done = open_build(path, fts, None if fresh else tip, ref)
    resumed = done or 0
    try:
        if total is None and done is not None:
            total = _counted(conn)  # a resumed build: the same tree, counted by the first run
        if total is None:
            total = branch.count_files(tip) if tip else 0
        if done is None:
            conn.executemany("INSERT OR REPLACE INTO meta(k, v) VALUES (?, ?)", [
                ("build_tip", tip or ""), ("build_ref", ref), ("build_done", "0"),
                ("build_total", str(total)), ("build_resumed_from", "0"),
                ("build_now", _newest_created(branch, tip) if files is None else ""),
            ])
        else:
            conn.executemany("INSERT OR REPLACE INTO meta(k, v) VALUES (?, ?)", [
                ("build_resumed_from", str(resumed)), ("build_total", str(total)),
            ])
        if done is None:
            side.execute("INSERT INTO meta(k, v) VALUES ('build_done', '0')")
        workers = buildproc.count(total - resumed) if tip and files is None else 0
        now = build_meta(path).get("build_now", "") if done is not None else None
        if now is None:
            now = conn.execute("SELECT v FROM meta WHERE k = 'build_now'").fetchone()[0]
        # With workers, the full-text writer is a process too (buildwriters._FtsProcess)
        writers = Writers(conn, side, now, fts if workers and tip else None)
        # Entries' decayed confidence, worked out where the rows are made (index.decay)
        decay = Decay(now) if TIME_RE.match(now) else None
        try:
            if workers and tip:
                batches = _load_forked(writers, branch, tip, resumed, total, progress, known,
                                       workers, decay)
            else:
                batches = _load(writers, branch, _files_after(branch, tip, files, resumed),
                                resumed, total, progress, known, decay)
        finally:
            writers.stop()
        # The end on a connection of its own: this one made the empty `fts` table, and
        # FTS5 may keep what it read of it (see _copy_fts).
        conn.close()
        side.close()
        conn = connect(path)
        conn.execute("PRAGMA synchronous = OFF")
        conn.execute("PRAGMA cache_size = -65536")
        _finish(conn, dirs, tip, ref, finish, fts, now)
    finally:
        conn.close()
        side.close()
    _swap(dirs)
    return {"total": total, "inserted": total - resumed, "batches": batches,
            "resumed_from": resumed}


def _counted(conn: sqlite3.Connection) -> int | None:
    """The file count a build of the same tree stored (reading the tree's folders again
    for it cost 0.65 s at a million files)."""
    row = conn.execute("SELECT v FROM meta WHERE k = 'build_total'").fetchone()
    return int(row[0]) if row and str(row[0]).isdigit() else None


def _files_after(branch: Any, tip: str | None, files: Callable[[], Iterable[Any]] | None,
                 done: int) -> Iterator[Any]:
    """The files to build from, after the first `done` (a resumed build's)."""
    if not tip:
        return iter(())
    if files is not None:
        return itertools.islice(files(), done, None)
    walk = getattr(branch, "walk_files", None)  # the raw walk, which skips folders unread
    if walk is not None:
        return walk(tip, skip=done)
    return itertools.islice(branch.iter_files(tip), done, None)


def _batches(items: Iterator[Any], size: int) -> Iterator[tuple[list[Any], bool]]:
    """The items in lists of `size`, each saying whether it is the last one (one item
    is read ahead to know)."""
    ahead: list[Any] = []
    while True:
        chunk = ahead + list(itertools.islice(items, size - len(ahead)))
        if not chunk:
            return
        ahead = list(itertools.islice(items, 1))
        yield chunk, not ahead


def _load(
    writer: Writers, branch: Any, files: Iterator[Any], done: int, total: int,
    progress: Progress | None, known: Known | None, decay: Decay | None = None,
) -> int:
    """Insert the files in committed batches, stamping how far each commit got.

    Three threads, one step of 2,000 files apart: a reader walks the tree and reads the
    blobs of the next step (pread and zlib run without Python's lock), this thread
    parses the current one, and a writer inserts the rows of the last one (SQLite
    tokenises and writes without Python's lock). On two cores the work overlaps; the
    rows, their order and their rowids are those of one thread doing it all."""
    batches = 0
    pause = _pause()
    rowid = writer.next_rowid()
    reader = _Reader(branch, _steps(files, _batch(), min(STEP, _batch())), known)
    writer.start()
    try:
        for chunk, read, last in reader:
            rows = file_rows(branch, chunk, rowid, known, read, decay)
            rowid = rows.next_rowid
            writer.put(rows)
            done += len(chunk)
            batches += _after_step(writer, done, total, last, progress, pause)
        writer.wait()
    finally:
        reader.stop()
    return batches


def _load_forked(
    writer: Writers, branch: Any, tip: str, done: int, total: int,
    progress: Progress | None, known: Known | None, workers: int, decay: Decay | None,
) -> int:
    """_load with the reading and parsing done by `workers` forked processes
    (index.buildproc), each walking the tree and making the rows of every k-th step,
    while this process only inserts them (the writer thread) and stamps each batch.
    The rows, their order and their rowids are those of _load."""
    batches = 0
    pause = _pause()
    rowid = writer.next_rowid()
    size = _batch()

    def steps(files: Iterator[Any]) -> Iterator[tuple[list[Any], int]]:
        return _steps(files, size, min(STEP, size))

    with buildproc.Workers(branch, tip, done, steps, rowid, workers, known, decay) as forked:
        writer.start(forked.reads)  # after the fork: a child holds no thread
        for files, last, rows in forked.steps():
            writer.put(rows)
            done += files
            batches += _after_step(writer, done, total, last, progress, pause)
        writer.wait()
    return batches


def _after_step(
    writer: Writers, done: int, total: int, last: int, progress: Progress | None,
    pause: float,
) -> int:
    """Report progress after a step; at the end of a batch commit it, stamped with
    `done`, and pause when a test asks (so it can kill the build between batches).
    1 when a batch was committed, else 0."""
    if progress:
        progress(min(done, total), max(total, 1))
    if not last:
        return 0
    if last == FINAL:
        writer.indexes()  # made while the full-text thread finishes its last batch
    writer.commit(done)  # commit the batch, stamped
    if pause:
        writer.wait()  # the batch is committed: a test may kill the build now
        time.sleep(pause)
    return 1


FINAL = 2  # a step's `last` when it ends the last batch (1: it ends a batch, 0: not)


def _steps(files: Iterator[Any], batch: int, step: int) -> Iterator[tuple[list[Any], int]]:
    """The files in steps of `step`, each saying whether it ends a batch of `batch`
    (FINAL when that batch is the last one)."""
    for chunk, final in _batches(files, batch):
        end = FINAL if final else 1
        for start in range(0, len(chunk), step):
            yield chunk[start : start + step], end if start + step >= len(chunk) else 0


class _Reader:
    """The thread that walks the tree and reads the next steps' blobs (write.read_files):
    iterating it gives (files, what read_files gave, whether the step ends a batch)."""

    def __init__(self, branch: Any, steps: Iterator[tuple[list[Any], int]],
                 known: Known | None) -> None:
        self.branch, self.steps, self.known = branch, steps, known
        self.ready: queue.Queue[Any] = queue.Queue(maxsize=2)
        self.stopping = False
        self.thread = threading.Thread(target=self._run, name="index-reader", daemon=True)
        self.thread.start()

    def __iter__(self) -> Iterator[tuple[list[Any], Read, bool]]:
        while True:
            item = self.ready.get()
            if item is None:
                return
            if isinstance(item, BaseException):
                raise item
            yield item

    def stop(self) -> None:
        self.stopping = True
        while self.thread.is_alive():  # unblock a reader waiting to hand over a step
            try:
                self.ready.get(timeout=0.05)
            except queue.Empty:
                pass

    def _run(self) -> None:
        try:
            for chunk, last in self.steps:
                if self.stopping:
                    return
                self.ready.put((chunk, read_files(self.branch, chunk, self.known), last))
            self.ready.put(None)
        except BaseException as exc:  # noqa: BLE001 - raised again in the parsing thread
            self.ready.put(exc)


def _newest_created(branch: Any, tip: str | None) -> str:
    """The largest `created` among the records of the newest days (the dated folders):
    the time the fold's decay will count from (refold.refold takes the largest `created`
    of all records), known before the load so that entries go in with the confidence
    the fold gives them. A guess: "" when there is none; if a record elsewhere in the
    tree is newer, the fold finds out and computes every row again (_finish)."""
    newest = getattr(branch, "newest_files", None)
    if newest is None or tip is None:
        return ""
    files, _ = newest(tip, 25, scan=0)
    found = [row[6] for row in file_rows(branch, files, 1).records if TIME_RE.match(row[6])]
    return max(found, default="")


def _finish(
    conn: sqlite3.Connection, dirs: GitDirs, tip: str | None, ref: str,
    finish: Callable[[sqlite3.Connection], None] | None, fts: Any, now: str,
) -> None:
    """The full-text rows copied in, secondary indexes, the fold, the caller's
    `finish` (sources, vectors) and the stamp, in one transaction; then the side file
    goes."""
    conn.execute("ATTACH DATABASE ? AS side", (str(fts),))
    try:
        with transaction(conn):
            _copy_fts(conn)
            for statement in filter(str.strip, INDEXES.split(";")):
                conn.execute(statement.replace("CREATE INDEX", "CREATE INDEX IF NOT EXISTS"))
            _decayed_at(conn, now)
            refold(conn)
            if finish is not None:
                finish(conn)
            conn.execute("DELETE FROM fts_config WHERE k = 'hashsize'")  # an older build's
            set_stamp(conn, tip, ref)
    finally:
        conn.execute("DETACH DATABASE side")
    remove_files(fts)


def _decayed_at(conn: sqlite3.Connection, now: str) -> None:
    """When the guessed time the entries' confidence was computed at (_newest_created)
    is the fold's, say so the way the fold's last pass would have (refold._plain_confidence
    then visits no row again). Otherwise the fold computes every row, as always."""
    newest = conn.execute(
        "SELECT max(created) FROM records WHERE created GLOB '[0-9][0-9][0-9][0-9]-[0-9][0-9]-*'"
    ).fetchone()[0] or ""
    if now and newest == now and insert_records(now) != INSERT_RECORD:
        top = conn.execute("SELECT max(rowid) FROM records").fetchone()[0] or 0
        conn.executemany("INSERT OR REPLACE INTO meta(k, v) VALUES (?, ?)",
                         [("decay_now", now), ("decay_rowid", str(top))])


def _copy_fts(conn: sqlite3.Connection) -> None:
    """The side file's full-text index becomes this file's: its shadow tables (the
    segments, their term index, the stored columns and sizes) copied row for row into
    the empty `fts` table made by the same statement (schema.FTS_TABLE). SQLite copies
    such tables page content as it is, without tokenising again. Its `fts_config` is not
    copied: the build's `hashsize` stays behind, the version row is the same.
    The connection is a new one: FTS5 holds no view of the table from before that the
    copy could make stale."""
    for table in FTS_SHADOWS:
        conn.execute(f"DELETE FROM main.{table}")
        conn.execute(f"INSERT INTO main.{table} SELECT * FROM side.{table}")


def _swap(dirs: GitDirs) -> None:
    """The finished build replaces the index, with the local flags the old one held."""
    path, built = index_path(dirs), build_path(dirs)
    with WriterLock(dirs):
        conn = connect(built)
        # No fsync here either: with the default, this last small commit made the kernel
        # write out the whole file the build wrote without one (150 MB at 100k: 0.13-0.18 s
        # of waiting at the end of every build). The index is derived: one lost to a
        # power cut is rebuilt (a damaged file is rebuilt once by exits.guarded).
        conn.execute("PRAGMA synchronous = OFF")
        try:  # autocommit: ATTACH (in carry_local_flags) cannot run inside a transaction
            carry_local_flags(conn, path)
            conn.execute("DELETE FROM meta WHERE k LIKE 'build_%' AND k != 'build_resumed_from'")
        finally:
            conn.close()
        os.replace(built, path)
        for suffix in ("-wal", "-shm", "-journal"):
            type(path)(str(path) + suffix).unlink(missing_ok=True)


"""The writers of a full build (index.build): a thread inserts the `records` and
`problems` rows into the build file, and the `fts` rows go into the side file on a
connection of their own, in a thread (a build in one process) or in a forked process
(a build with workers: `_FtsProcess`), so that SQLite fills both at once; and the
statement that inserts an entry with the confidence the fold will give it. Only
`index.build` imports this. May import `index.schema`, `index.write`, `index.files`,
`index.buildproc` (its pipe messages and `WorkerFailed`), `fold` (the confidence rule).
"""

from __future__ import annotations

import queue
import re
import sqlite3
import threading
import gc
import marshal
import os
import pickle
import signal
from pathlib import Path
from typing import Callable

from git_memory.fold import plain_confidence_sql
from git_memory.index.buildproc import WorkerFailed, _read_message, _send
from git_memory.index.files import connect
from git_memory.index.schema import INDEXES
from git_memory.index.write import INSERT_FTS, INSERT_PROBLEM, INSERT_RECORD, Rows


class Writers:
    """The two writer threads of a build: one inserts the `records` (and `problems`)
    rows into the build file, the other the `fts` rows into the side file. SQLite does
    its work without Python's lock, so the two files fill at once, on two cores; FTS5's
    tokenising, the largest part of a build, no longer waits for the rest.

    A batch is committed in the side file first, then in the build file: the build
    file's stamp never counts a file whose `fts` row is not committed too, and a side
    file ahead by a batch (a kill between the two commits) is cut back on resume.

    With `side_path` (a build with worker processes), the full-text writer is a process
    of its own (_FtsProcess) rather than a thread: two writer threads and the thread
    reading the workers' rows took Python's lock from each other around every row's
    `sqlite3_step`, which cost each writer about a third more CPU than alone."""

    def __init__(self, conn: sqlite3.Connection, side: sqlite3.Connection, now: str,
                 side_path: Path | None = None) -> None:
        self.conn = conn
        self.fts: _Writer | _FtsProcess = (
            _Writer(side, _write_texts, depth=4) if side_path is None
            else _FtsProcess(side, side_path))
        insert = insert_records(now)

        def write(conn: sqlite3.Connection, rows: Rows) -> None:
            conn.executemany(insert, rows.records)
            conn.executemany(INSERT_PROBLEM, rows.problems)

        # With the full-text process, the `records` thread waits at each batch's end
        # for that process's commit (it writes and merges segments: 0.1-0.3 s each at a
        # million entries): room for more than a batch of steps keeps the workers going
        # meanwhile (see _FtsProcess).
        self.records = _Writer(conn, write, before_commit=self.fts.wait_committed,
                               depth=2 if side_path is None else RECORDS_AHEAD)

    def next_rowid(self) -> int:
        return (self.conn.execute("SELECT max(rowid) FROM records").fetchone()[0] or 0) + 1

    def start(self, close: list[int] | None = None) -> None:
        """Start the writers (the full-text process first, while this process runs no
        other thread; it closes the descriptors in `close`: the workers' pipes)."""
        if isinstance(self.fts, _FtsProcess):
            self.fts.start(close or [])
        else:
            self.fts.start()
        self.records.start()

    def put(self, rows: Rows) -> None:
        self.fts.put(rows)
        if isinstance(self.fts, _FtsProcess):
            rows.texts = []  # sent: what waits for the `records` thread holds no text twice
        self.records.put(rows)

    def indexes(self) -> None:
        """Make the secondary indexes in the batch now being loaded (the last one)."""
        self.records.put(INDEXES)

    def commit(self, done: int) -> None:
        """Commit the batch, stamped with how many files are in."""
        self.fts.put(done)
        self.records.put(done)

    def wait(self) -> None:
        """Until every piece of work given so far is done (re-raising a failure)."""
        self.fts.wait()
        self.records.wait()

    def stop(self) -> None:
        self.fts.stop()
        self.records.stop()


# Steps the `records` thread and the full-text process may hold ahead of their inserts
# in a build with workers: a batch (index.build.BATCH / STEP = 10 steps) and some more.
RECORDS_AHEAD = 12
FTS_AHEAD = 16

TIME_RE = re.compile(r"^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}Z$")
_COLUMNS = INSERT_RECORD[INSERT_RECORD.index("(") + 1 : INSERT_RECORD.index(")")]


def insert_records(now: str) -> str:
    """The statement that inserts `records` rows (write.INSERT_RECORD's columns and
    values), an entry's confidence the one the fold's rule for entries no curation
    touches (fold.plain_confidence_sql) gives at `now` (checked: a time, inlined as a
    literal): the row's own value when it has one (index.decay worked it out), else
    evaluated here from the row's `created` and `source`."""
    if not TIME_RE.match(now):
        return INSERT_RECORD
    rule = plain_confidence_sql(f"'{now}'")
    # ?7 is `created`, ?9 `source` (INSERT_RECORD's order); COALESCE evaluates the
    # subquery only for a row whose confidence is NULL.
    return (f"INSERT INTO records({_COLUMNS}) VALUES ({', '.join('?' * 17)}, COALESCE(?,"
            f" (SELECT {rule} FROM (SELECT ?7 AS created, ?9 AS source))))")


def _write_texts(conn: sqlite3.Connection, rows: Rows) -> None:
    conn.executemany(INSERT_FTS, rows.texts)


class _Writer:
    """A thread that inserts rows (`write.Rows`) through `write`, runs statements (a
    str) and commits each batch with its stamp (an int: how many files are in), after
    `before_commit(that int)` returns. At most `depth` pieces of work wait for it, which
    bounds the memory the
    rows ahead can hold."""

    def __init__(self, conn: sqlite3.Connection, write: Callable[[sqlite3.Connection, Rows], None],
                 depth: int = 2, before_commit: Callable[[int], None] | None = None) -> None:
        self.conn, self.write, self.before_commit = conn, write, before_commit
        self.work: queue.Queue[Rows | int | str | None] = queue.Queue(maxsize=depth)
        self.failed: BaseException | None = None
        self.committed = -1  # the stamp of the last batch committed
        self.changed = threading.Condition()
        self.thread: threading.Thread | None = None

    def start(self) -> None:
        self.thread = threading.Thread(target=self._run, name="index-writer", daemon=True)
        self.thread.start()

    def put(self, item: Rows | int | str) -> None:
        self._check()
        self.work.put(item)

    def wait(self) -> None:
        """Until every piece of work given so far is done (re-raising its failure)."""
        self.work.join()
        self._check()

    def wait_committed(self, done: int) -> None:
        """Until the batch stamped `done` is committed here (re-raising a failure)."""
        with self.changed:
            while self.committed < done and self.failed is None:
                self.changed.wait()
        self._check()

    def stop(self) -> None:
        if self.thread is not None:
            self.work.put(None)
            self.thread.join()
            self.thread = None

    def _check(self) -> None:
        if self.failed is not None:
            raise self.failed

    def _run(self) -> None:
        conn, open_ = self.conn, False
        while True:
            item = self.work.get()
            try:
                if item is None:
                    if open_:  # stopped mid-batch (the reading side failed): undo it
                        conn.execute("ROLLBACK")
                    return
                if self.failed is not None:
                    continue  # drain: the main thread re-raises the failure
                if not open_:
                    conn.execute("BEGIN")
                    open_ = True
                if isinstance(item, str):  # statements to run in the batch
                    for statement in filter(str.strip, item.split(";")):
                        conn.execute(statement.replace("CREATE INDEX", "CREATE INDEX IF NOT EXISTS"))
                elif isinstance(item, int):
                    if self.before_commit is not None:
                        self.before_commit(item)
                    conn.execute(
                        "INSERT OR REPLACE INTO meta(k, v) VALUES ('build_done', ?)", (str(item),))
                    conn.execute("COMMIT")
                    open_ = False
                    with self.changed:
                        self.committed = item
                        self.changed.notify_all()
                else:
                    self.write(conn, item)
            except BaseException as exc:  # noqa: BLE001 - handed to the main thread
                with self.changed:
                    self.failed = exc
                    self.changed.notify_all()
                if open_:
                    conn.execute("ROLLBACK")
                    open_ = False
            finally:
                self.work.task_done()


# The full-text process's messages: rows (`marshal` of the `fts` rows), a commit
# (`marshal` of the stamp); its answers: a commit done, or a failure (pickled).
_TEXTS, _COMMIT, _DONE, _FAILED = b"T", b"C", b"D", b"F"


class _FtsProcess:
    """The full-text writer of a build with workers, as a forked process: it inserts the
    `fts` rows it is sent into the side file on a connection of its own and commits each
    batch (stamped) when told, answering when it has. A thread of that process reads
    up to FTS_AHEAD messages ahead: its commits write and merge segments (0.1-0.3 s each
    at a million entries) and FTS5 falls behind at times, and the builder, which waited
    on a full pipe with the workers' rows unread (11 s of a 54 s build at 1M), goes on
    meanwhile. The builder's side connection is
    closed before the fork (no connection crosses it) and the side file is not opened
    here again until the process is gone. The process reads its rows from a pipe only
    this process writes: when the builder dies, it reads the end and exits, an open
    batch undone by SQLite's journal."""

    def __init__(self, side: sqlite3.Connection, path: Path) -> None:
        self.side, self.path = side, path
        self.pid = 0
        self.out = self.answers = -1
        self.committed = -1  # the stamp of the last batch committed
        self.sent = -1  # the stamp of the last commit asked for
        self.lock = threading.Lock()  # the records thread and the main thread both wait

    def start(self, close: list[int]) -> None:
        self.side.close()
        down, self.out = os.pipe()
        self.answers, up = os.pipe()
        gc.freeze()  # the builder's objects: never finalized by the child
        try:
            pid = os.fork()
            if pid == 0:
                _fts_child(self.path, down, up, [self.out, self.answers, *close])
        finally:
            gc.unfreeze()
        os.close(down)
        os.close(up)
        self.pid = pid

    def put(self, item: Rows | int) -> None:
        try:
            if isinstance(item, int):
                self.sent = item
                _send(self.out, _COMMIT, marshal.dumps(item))
            else:
                _send(self.out, _TEXTS, marshal.dumps(item.texts))
        except BrokenPipeError:
            with self.lock:
                self._answer()  # raises what the process said, or that it stopped
            raise WorkerFailed("the index build's full-text writer stopped") from None

    def wait_committed(self, done: int) -> None:
        """Until the batch stamped `done` is committed in the side file."""
        with self.lock:
            while self.committed < done:
                self._answer()

    def wait(self) -> None:
        self.wait_committed(self.sent)

    def _answer(self) -> None:
        body = _read_message(self.answers)
        if body is None:
            raise WorkerFailed("the index build's full-text writer stopped")
        if body[:1] == _FAILED:
            raise pickle.loads(body[1:])
        self.committed = marshal.loads(body[1:])

    def stop(self) -> None:
        if self.out != -1:
            os.close(self.out)  # the end: the process exits (an open batch is undone)
            self.out = -1
        if self.pid:
            if self.committed < self.sent:  # stopped early (a failure): no need to wait
                try:
                    os.kill(self.pid, signal.SIGKILL)
                except ProcessLookupError:
                    pass
            try:
                os.waitpid(self.pid, 0)
            except ChildProcessError:
                pass
            self.pid = 0
        if self.answers != -1:
            os.close(self.answers)
            self.answers = -1


def _fts_child(path: Path, down: int, up: int, close: list[int]) -> None:
    """The full-text process's life (never returns)."""
    code = 0
    gc.disable()  # rows of strings, no cycles (as in the workers)
    try:
        for fd in close:
            try:
                os.close(fd)
            except OSError:
                pass
        conn = connect(path)
        conn.execute("PRAGMA journal_mode = DELETE")  # as buildfiles._tune sets the builder's
        conn.execute("PRAGMA synchronous = OFF")
        conn.execute("PRAGMA cache_size = -65536")
        open_ = False
        ahead: queue.Queue[bytes | None] = queue.Queue(maxsize=FTS_AHEAD)
        threading.Thread(target=_read_ahead, args=(down, ahead), daemon=True).start()
        while True:
            body = ahead.get()
            if body is None:
                return  # the end (or the builder is gone): an open batch is undone
            if not open_:
                conn.execute("BEGIN")
                open_ = True
            if body[:1] == _TEXTS:
                conn.executemany(INSERT_FTS, marshal.loads(body[1:]))
            else:
                done = marshal.loads(body[1:])
                conn.execute("INSERT OR REPLACE INTO meta(k, v) VALUES ('build_done', ?)",
                             (str(done),))
                conn.execute("COMMIT")
                open_ = False
                _send(up, _DONE, marshal.dumps(done))
    except BrokenPipeError:
        code = 1
    except BaseException as exc:  # noqa: BLE001 - handed to the builder, raised there
        code = 1
        try:
            try:
                _send(up, _FAILED, pickle.dumps(exc))
            except (pickle.PicklingError, TypeError, AttributeError):
                _send(up, _FAILED, pickle.dumps(WorkerFailed(f"{exc.__class__.__name__}: {exc}")))
        except OSError:
            pass
    finally:
        os._exit(code)


def _read_ahead(down: int, ahead: queue.Queue[bytes | None]) -> None:
    """The full-text process's reading thread: each message from the builder, then None
    at the end (the pipe closed, or broken)."""
    try:
        while True:
            body = _read_message(down)
            ahead.put(body)
            if body is None:
                return
    except OSError:
        ahead.put(None)

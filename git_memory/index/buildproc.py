"""The worker processes of a cold build: the Python half of the work on other cores.

A full build is two kinds of work: Python (walk the tree, read and inflate the blobs,
parse the records, make the rows) and SQLite (insert, tokenise, write pages). In one
process Python's lock lets only one thread at a time do the first kind, so on a
machine with two cores or more the build forks workers that do it, each for every
k-th step of files, while the building process only inserts what they send.

Each worker walks the same tree itself (a fresh pygit2 repository in the child), so
nothing goes to it but the arguments it is forked with; its rows come back (marshal)
through a pipe, numbered as if no file were refused, and the building process
renumbers them when some were (see `Workers.steps`). A worker writes a step only when
the builder reads it, which bounds what waits in memory to a step per worker. A
worker that loses its builder (killed, say) gets a broken pipe at its next step and
exits; it holds no pipe of another worker, so none waits for it.

Only `index.build` imports this. May import `index.write`, `store.branch`.
"""

from __future__ import annotations

import gc
import itertools
import marshal
import os
import pickle
import struct
import threading
from typing import Any, Iterator

from git_memory.index.schema import Known
from git_memory.index.write import Rows, file_rows

# Files at least, for a build to fork workers: below it, forking costs more than it saves.
MIN_FILES = 6000
_HEAD = struct.Struct("!Q")


def count(files: int) -> int:
    """How many worker processes a build of `files` files uses (0: do it all here).
    GIT_MEMORY_BUILD_WORKERS sets it (tests, benchmarks; 0 turns workers off)."""
    wanted = os.environ.get("GIT_MEMORY_BUILD_WORKERS", "").strip()
    if wanted.isdigit():
        return int(wanted) if hasattr(os, "fork") else 0
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    if not hasattr(os, "fork") or (cores or 1) < 2 or files < MIN_FILES:
        return 0
    # A process running other threads (a long-lived server, say) builds in one process:
    # a fork copies the locks those threads may hold, and a child could wait on one forever.
    return 2 if threading.active_count() == 1 else 0


class WorkerFailed(RuntimeError):
    """A worker process stopped without finishing (killed, or an error it reported)."""


class Workers:
    """`n` forked workers over the files of `tip` after the first `skip`, in steps
    (`steps`: an iterator of (files, whether the batch ends) in tree order, the same in
    every worker). Use as a context manager: leaving it stops and reaps them all."""

    def __init__(self, branch: Any, tip: str, skip: int, steps: Any, rowid: int, n: int,
                 known: Known | None) -> None:
        self.pids: list[int] = []
        self.reads: list[int] = []
        self.peak_kib = 0  # the largest worker's peak resident memory, once reaped
        # The objects alive now are the builder's: frozen, a worker's garbage collector
        # never finalizes one of them (closing the builder's database from the child).
        gc.freeze()
        try:
            for me in range(n):
                read, write = os.pipe()
                pid = os.fork()
                if pid == 0:  # the worker: never returns
                    _child(me, n, write, [read, *self.reads], branch, tip, skip, steps, rowid,
                           known)
                os.close(write)
                self.pids.append(pid)
                self.reads.append(read)
        except BaseException:
            self.stop()
            raise
        finally:
            gc.unfreeze()

    def __enter__(self) -> Workers:
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def steps(self) -> Iterator[tuple[int, int, Rows]]:
        """(files in the step, whether it ends a batch, its rows), in tree order."""
        skipped = 0  # files before this step that made no row (refused or malformed)
        for turn in itertools.count():
            item = _receive(self.reads[turn % len(self.reads)])
            if item is None:
                return
            files, last, rows = item
            if skipped:
                rows.records = [(r[0] - skipped, *r[1:]) for r in rows.records]
                rows.texts = [(t[0] - skipped, *t[1:]) for t in rows.texts]
                rows.next_rowid -= skipped
            skipped += files - len(rows.records)
            yield files, last, rows

    def stop(self) -> None:
        """Stop (a worker still running is killed) and reap every worker."""
        for read in self.reads:
            os.close(read)  # a worker writing next gets a broken pipe
        self.reads = []
        for pid in self.pids:
            try:
                os.kill(pid, 9)  # done by now, or no longer wanted
            except ProcessLookupError:
                pass
            try:
                _, _, usage = os.wait4(pid, 0)
            except ChildProcessError:
                continue  # reaped by someone else (a SIGCHLD handler of the caller's)
            self.peak_kib = max(self.peak_kib, usage.ru_maxrss)
        self.pids = []


def _receive(fd: int) -> tuple[int, int, Rows] | None:
    """One message from a worker: a step's (files, whether it ends a batch, rows), or
    None at its end; raises what the worker raised, or WorkerFailed."""
    head = _read_exactly(fd, _HEAD.size)
    if head is None:
        raise WorkerFailed("an index build worker stopped before its end")
    body = _read_exactly(fd, _HEAD.unpack(head)[0])
    if body is None:
        raise WorkerFailed("an index build worker stopped before its end")
    kind, payload = body[:1], body[1:]
    if kind == _FAILED:
        raise pickle.loads(payload)
    if kind == _END:
        return None
    files, last, records, texts, problems, touched, next_rowid = marshal.loads(payload)
    rows = Rows()
    rows.records, rows.texts, rows.problems = records, texts, problems
    rows.touched, rows.next_rowid = touched, next_rowid
    return files, last, rows


def _read_exactly(fd: int, size: int) -> bytes | None:
    parts: list[bytes] = []
    while size:
        part = os.read(fd, min(size, 1 << 20))
        if not part:
            return None
        parts.append(part)
        size -= len(part)
    return b"".join(parts)


# A message is its length, then its kind and body: a step's rows in `marshal` (lists of
# tuples of strings and numbers: half the builder's time to read them back that pickle
# takes), the end, or a failure in pickle (an exception object).
_ROWS, _END, _FAILED = b"R", b"E", b"F"


def _send_rows(fd: int, files: int, last: int, rows: Rows) -> None:
    _send(fd, _ROWS, marshal.dumps((files, last, rows.records, rows.texts, rows.problems,
                                    rows.touched, rows.next_rowid)))


def _send(fd: int, kind: bytes, body: bytes = b"") -> None:
    view = memoryview(_HEAD.pack(len(body) + 1) + kind + body)
    while view:
        view = view[os.write(fd, view):]


def _child(me: int, n: int, out: int, others: list[int], branch: Any, tip: str, skip: int,
           steps: Any, rowid: int, known: Known | None) -> None:
    """A worker's life: rows of every n-th step from the `me`-th on, then None."""
    code = 0
    # No collection of cycles here: the rows are tuples of strings, made by the million,
    # none in a cycle, and a collector that runs every few hundred of them costs a tenth
    # of this process's time. What a worker holds is bounded by its step.
    gc.disable()
    try:
        for fd in others:  # the read ends: this worker's and the earlier workers'
            os.close(fd)
        mine = _reopened(branch)
        files = itertools.islice(mine.iter_files(tip), skip, None)
        before = 0  # files in the steps before this one
        for turn, (chunk, last) in enumerate(steps(files)):
            if turn % n == me:
                _send_rows(out, len(chunk), last, file_rows(mine, chunk, rowid + before, known))
            before += len(chunk)
        _send(out, _END)
    except BrokenPipeError:
        code = 1  # the builder is gone: nothing to say to anyone
    except BaseException as exc:  # noqa: BLE001 - handed to the builder, raised there
        code = 1
        try:
            try:
                _send(out, _FAILED, pickle.dumps(exc))
            except (pickle.PicklingError, TypeError, AttributeError):
                _send(out, _FAILED, pickle.dumps(WorkerFailed(f"{exc.__class__.__name__}: {exc}")))
        except OSError:
            pass
    finally:
        os._exit(code)  # no cleanup of what the builder owns (its database, its locks)


def _reopened(branch: Any) -> Any:
    """The branch's reader opened again in this process (pygit2 state is not shared
    across a fork); a reader of another kind is used as it is."""
    from git_memory.store.branch import MemoryBranch  # the build's reader: loaded already

    if type(branch) is MemoryBranch:
        return MemoryBranch(branch.dirs, branch.ref, branch.roots, seed=branch.seed)
    return branch

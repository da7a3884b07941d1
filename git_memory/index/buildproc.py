"""The worker processes of a cold build: the Python half of the work on other cores.

A full build is two kinds of work: Python (walk the tree, read and inflate the blobs,
parse the records, make the rows) and SQLite (insert, tokenise, write pages). In one
process Python's lock lets only one thread at a time do the first kind, so on a
machine with two cores or more the build forks workers that do it, each for its share
of the steps of files (`_owners`), while the building process only inserts what they
send.

Worker 0 walks the tree (a fresh pygit2 repository in the child) and hands every other
worker the files of its steps through a pipe (`marshal`); so the tree is walked once,
and nothing else goes to a worker but the arguments it is forked with. The rows come
back (`marshal`) through a pipe per worker, numbered as if no file were refused, and
the building process renumbers them when some were (see `Workers.steps`). A worker
writes a step only when the builder reads it, which bounds what waits in memory to a
step per worker (and a handed-over step). A worker that loses its builder (killed, say)
gets a broken pipe at its next step and exits; the others then find worker 0's pipe
closed, and exit too. No worker holds another's pipe to the builder, so none waits.

Only `index.build` imports this. May import `index.write`, `index.decay`, `store.branch`.
"""

from __future__ import annotations

import gc
import itertools
import marshal
import os
import pickle
import struct
import threading
from typing import Any, Iterator, NamedTuple

from git_memory.index.decay import Decay
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
                 known: Known | None, decay: Decay | None = None) -> None:
        self.pids: list[int] = []
        self.reads: list[int] = []
        self.owners = _owners(n)
        self.peak_kib = 0  # the largest worker's peak resident memory, once reaped
        # Worker 0 walks the tree and hands each other worker the files of its steps
        # through a pipe of its own (made now, so both ends are in the right processes).
        handed = [os.pipe() for _ in range(n - 1)]
        # The objects alive now are the builder's: frozen, a worker's garbage collector
        # never finalizes one of them (closing the builder's database from the child).
        gc.freeze()
        try:
            for me in range(n):
                read, write = os.pipe()
                pid = os.fork()
                if pid == 0:  # the worker: never returns
                    job = _Job(me, self.owners, write, branch, tip, skip, steps, rowid, known, decay)
                    if me == 0:
                        job.handoff = [w for _, w in handed]
                        others = [r for r, _ in handed]
                    else:
                        job.files_from = handed[me - 1][0]
                        others = [fd for pair in handed for fd in pair if fd != job.files_from]
                    _child(job, [read, *self.reads, *others])
                os.close(write)
                self.pids.append(pid)
                self.reads.append(read)
        except BaseException:
            self.stop()
            raise
        finally:
            gc.unfreeze()
            for pair in handed:
                for fd in pair:
                    os.close(fd)

    def __enter__(self) -> Workers:
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def steps(self) -> Iterator[tuple[int, int, Rows]]:
        """(files in the step, whether it ends a batch, its rows), in tree order."""
        skipped = 0  # files before this step that made no row (refused or malformed)
        owners = self.owners
        for turn in itertools.count():
            item = _receive(self.reads[owners[turn % len(owners)]])
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
    body = _read_message(fd)
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


def _read_message(fd: int) -> bytes | None:
    """One message as _send framed it (its kind and body), or None at the pipe's end."""
    head = _read_exactly(fd, _HEAD.size)
    return _read_exactly(fd, _HEAD.unpack(head)[0]) if head else None


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


def _owners(n: int) -> list[int]:
    """Which worker makes each step, by turn (repeating): worker 0 also walks the tree
    (about a tenth of a worker's time), so it makes 4 steps for every 5 of the others."""
    weights = [4] + [5] * (n - 1)
    owners: list[int] = []
    while any(weights):
        for worker in range(n):
            if weights[worker]:
                owners.append(worker)
                weights[worker] -= 1
    return owners


class _Job:
    """What a worker is forked with: its number, the steps' owners, the pipe to the
    builder, the tree; for worker 0 the pipes to hand the other workers their files
    (`handoff`), for the others the pipe their files come from (`files_from`)."""

    def __init__(self, me: int, owners: list[int], out: int, branch: Any, tip: str, skip: int,
                 steps: Any, rowid: int, known: Known | None, decay: Decay | None) -> None:
        self.me, self.owners, self.out = me, owners, out
        self.decay = decay
        self.branch, self.tip, self.skip, self.steps = branch, tip, skip, steps
        self.rowid, self.known = rowid, known
        self.handoff: list[int] = []
        self.files_from = -1


def _child(job: _Job, others: list[int]) -> None:
    """A worker's life: rows of the steps it owns, then the end. Worker 0 walks the
    tree and hands the others their steps' files; they make rows of what they get."""
    code = 0
    # No collection of cycles here: the rows are tuples of strings, made by the million,
    # none in a cycle, and a collector that runs every few hundred of them costs a tenth
    # of this process's time. What a worker holds is bounded by its step.
    gc.disable()
    try:
        for fd in others:  # the read ends of the builder's pipes, the pipes not its own
            os.close(fd)
        mine = _reopened(job.branch)
        if job.me == 0:
            _walk(job, mine)
        else:
            _made_from_handoff(job, mine)
        _send(job.out, _END)
    except (BrokenPipeError, _HandoffEnded):
        code = 1  # the builder (or worker 0) is gone: nothing to say to anyone
    except BaseException as exc:  # noqa: BLE001 - handed to the builder, raised there
        code = 1
        try:
            try:
                _send(job.out, _FAILED, pickle.dumps(exc))
            except (pickle.PicklingError, TypeError, AttributeError):
                _send(job.out, _FAILED, pickle.dumps(WorkerFailed(f"{exc.__class__.__name__}: {exc}")))
        except OSError:
            pass
    finally:
        os._exit(code)  # no cleanup of what the builder owns (its database, its locks)


def _walk(job: _Job, mine: Any) -> None:
    """Worker 0: walk the tree once, make the rows of its own steps, hand the files of
    every other step to the worker that owns it (then an empty message: the end)."""
    walk = getattr(mine, "walk_files", None)  # the raw walk, which skips folders unread
    files = (walk(job.tip, skip=job.skip) if walk is not None
             else itertools.islice(mine.iter_files(job.tip), job.skip, None))
    owners = job.owners
    before = 0  # files in the steps before this one
    for turn, (chunk, last) in enumerate(job.steps(files)):
        owner = owners[turn % len(owners)]
        if owner == 0:
            _send_rows(job.out, len(chunk), last,
                       file_rows(mine, chunk, job.rowid + before, job.known, decay=job.decay))
        else:
            handed = [(f.path, f.blob, getattr(f, "mode", 0o100644)) for f in chunk]
            _send(job.handoff[owner - 1], _ROWS, marshal.dumps((before, last, handed)))
        before += len(chunk)
    for fd in job.handoff:
        _send(fd, _END)


class _File(NamedTuple):
    """A file handed over by worker 0 (what write.file_rows reads of a FileChange)."""

    path: str
    blob: str
    mode: int


class _HandoffEnded(Exception):
    """Worker 0 stopped before the end (killed, or failed and told the builder)."""


def _made_from_handoff(job: _Job, mine: Any) -> None:
    """A worker other than 0: make the rows of the files worker 0 hands over."""
    while True:
        body = _read_message(job.files_from)
        if body is None:
            raise _HandoffEnded()
        if body[:1] == _END:
            return
        before, last, handed = marshal.loads(body[1:])
        chunk = [_File(*f) for f in handed]
        _send_rows(job.out, len(chunk), last,
                   file_rows(mine, chunk, job.rowid + before, job.known, decay=job.decay))


def _reopened(branch: Any) -> Any:
    """The branch's reader opened again in this process (pygit2 state is not shared
    across a fork); a reader of another kind is used as it is."""
    from git_memory.store.branch import MemoryBranch  # the build's reader: loaded already

    if type(branch) is MemoryBranch:
        return MemoryBranch(branch.dirs, branch.ref, branch.roots, seed=branch.seed)
    return branch

"""The one way work runs on several cores: tasks to a `ProcessPoolExecutor`, results back in
order, a few tasks ahead at most so that memory stays flat."""

from __future__ import annotations

import multiprocessing
import os
import threading
import time
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import Future, ProcessPoolExecutor
from typing import Any

Task = tuple[Callable[..., Any], tuple[Any, ...]]


def cores() -> int:
    """The cores this process may run on."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1


def count(items: int, least: int, most: int, variable: str = "") -> int:
    """How many worker processes a job of `items` uses: none below `least` items (starting
    them costs more than they save), on one core, or while this process runs other
    threads (a fork copies the locks they may hold); else one per core, at most `most`.
    The environment variable `variable` sets it (tests, benchmarks; 0: none)."""
    wanted = os.environ.get(variable, "").strip() if variable else ""
    if wanted.isdigit():
        return int(wanted)
    if items < least or cores() < 2 or threading.active_count() > 1:
        return 0
    return min(cores(), most)


def ordered(
    tasks: Iterable[Task], workers: int, initializer: Callable[..., None] | None = None,
    initargs: tuple[Any, ...] = (),
) -> Iterator[Any]:
    """What each task (a function and its arguments) returns, in the tasks' order, from
    `workers` processes (each started by `initializer(*initargs)`), at most two tasks per
    worker in flight. Forked where the platform can (the workers then share what this
    process has loaded). A worker that dies raises BrokenProcessPool here; leaving the
    loop early stops them; if this process dies, they exit (`_start`)."""
    methods = multiprocessing.get_all_start_methods()
    context = multiprocessing.get_context("fork" if "fork" in methods else None)
    pending: deque[Future[Any]] = deque()
    pool = ProcessPoolExecutor(workers, context, _start, (os.getpid(), initializer, initargs))
    try:
        for function, args in tasks:
            pending.append(pool.submit(function, *args))
            while len(pending) > 2 * workers:
                yield pending.popleft().result()
        while pending:
            yield pending.popleft().result()
    finally:
        pool.shutdown(wait=True, cancel_futures=True)


def _start(parent: int, initializer: Callable[..., None] | None, initargs: tuple[Any, ...]) -> None:
    """A worker's start: the caller's initializer, and a thread that ends the worker when
    its parent is gone (killed, say: a worker waiting for work would wait for ever)."""
    threading.Thread(target=_orphaned, args=(parent,), daemon=True).start()
    if initializer is not None:
        initializer(*initargs)


def _orphaned(parent: int) -> None:
    while os.getppid() == parent:
        time.sleep(0.2)
    os._exit(1)

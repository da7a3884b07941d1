#!/usr/bin/env python3
"""Where an import's time goes, phase by phase (issue 16 point 5: 1M in 3 minutes).

    cd FRESH_REPO && PYTHONPATH=CODE python bench/bench_import_phases.py FILE.jsonl

Runs `git memory import --format jsonl FILE` in this process (commands.import_.run, the
command's own code without the CLI's start) in the repository of the current folder and
prints, for each phase, the wall time, the CPU time of this process and of the processes it
waited for (`getrusage`: the write's workers, the index build's forked workers): the write
(`bulk._stage`: reading, the workers' parsing and preparing, the checks, the pack), the
pack's checksum and index, the commit, the index build (of a small import: from the records
in hand, inside the write). Run it under `/usr/bin/time -v` for
the peak RSS. Use a fresh repository (`git init`, one commit, `memory.semantic false`) with
the corpus environment (HOME, GIT_CONFIG_GLOBAL, GIT_CONFIG_NOSYSTEM: docs/benchmarks.md).
"""

from __future__ import annotations

import resource
import sys
import time
from typing import Any, Callable

from git_memory.write import bulk
import git_memory.commands.import_ as import_
from git_memory.store.branch import MemoryBranch

Mark = tuple[str, float, float, float]
marks: list[Mark] = []


def _mark(name: str) -> None:
    own = resource.getrusage(resource.RUSAGE_SELF)
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    marks.append((name, time.perf_counter(), own.ru_utime + own.ru_stime,
                  children.ru_utime + children.ru_stime))


def _timed(owner: Any, attribute: str, name: str) -> None:
    function: Callable[..., Any] = getattr(owner, attribute)

    def timed(*args: Any, **kwargs: Any) -> Any:
        _mark(f"{name} starts")
        try:
            return function(*args, **kwargs)
        finally:
            _mark(f"{name} ends")

    setattr(owner, attribute, timed)


def main(path: str) -> None:
    _timed(bulkwrite, "_stage", "write")
    _timed(MemoryBranch, "append_staged", "commit")
    _timed(bulkwrite, "refresh_index", "index of a small import")  # up to 20,000 records
    _timed(import_, "_report", "index build and report")
    _mark("start")
    import_.run(path, fmt="jsonl", skip_bad=False, as_json=False)
    _mark("end")
    print(f"{'up to':34s} {'wall':>8s} {'own CPU':>8s} {'children':>8s}")
    for (name, wall, own, children), before in zip(marks[1:], marks):
        print(f"{name:34s} {wall - before[1]:8.2f} {own - before[2]:8.2f} "
              f"{children - before[3]:8.2f}")
    first, last = marks[0], marks[-1]
    print(f"{'all':34s} {last[1] - first[1]:8.2f} {last[2] - first[2]:8.2f} "
          f"{last[3] - first[3]:8.2f}   load {open('/proc/loadavg').read().strip()}")


if __name__ == "__main__":
    main(sys.argv[1])

#!/usr/bin/env python3
"""Warm recall with read-only sources (issue #16): does reading the sources' tips cost recall?

    python bench/bench_sources.py BASE_GIT_MEMORY NEW_GIT_MEMORY REPO [REPO...] [--runs 21]

Each REPO (an imported corpus memory, e.g. a copy of what `make_corpus.py` + `import` made)
is copied twice, one copy per build, so each build keeps its own index; both indexes are
rebuilt (`reindex`) so neither has an import-time layout the other lacks. Then warm
`git memory recall "postgres timezone configuration"` runs interleaved, BASE then NEW,
and the medians of wall time and of CPU time (user + system, from wait4) are printed:
CPU time is the figure that survives a loaded machine. `--with-remote` also gives both
copies a remote-tracking memory branch equal to the local one (as after a sync), which
the new build reads as a source. Compile both trees first (`python -m compileall`) when
PYTHONDONTWRITEBYTECODE is set, or one side pays for compiling at every run.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import tempfile
import time
from pathlib import Path

QUERY = ["recall", "postgres", "timezone", "configuration"]


def run(binary: str, repo: Path, env: dict[str, str]) -> tuple[float, float]:
    """Wall and CPU seconds of one recall."""
    started = time.perf_counter()
    proc = subprocess.Popen([binary, *QUERY], cwd=repo, env=env,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _, status, usage = os.wait4(proc.pid, 0)
    if status:
        raise SystemExit(f"{binary} recall failed in {repo}")
    return time.perf_counter() - started, usage.ru_utime + usage.ru_stime


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("base")
    parser.add_argument("new")
    parser.add_argument("repos", nargs="+")
    parser.add_argument("--runs", type=int, default=21)
    parser.add_argument("--with-remote", action="store_true")
    args = parser.parse_args()
    env = dict(os.environ)
    with tempfile.TemporaryDirectory() as tmp:
        for source in args.repos:
            copies = {}
            for side, binary in (("base", args.base), ("new", args.new)):
                copy = Path(tmp) / f"{Path(source).name}-{side}"
                shutil.copytree(source, copy, symlinks=True)
                if args.with_remote:
                    subprocess.run(["git", "update-ref", "refs/remotes/origin/git-memory",
                                    "refs/heads/git-memory"], cwd=copy, check=True)
                subprocess.run([binary, "reindex"], cwd=copy, env=env, check=True,
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
                run(binary, copy, env)  # warm-up: the index is current after it
                copies[side] = (binary, copy)
            wall: dict[str, list[float]] = {"base": [], "new": []}
            cpu: dict[str, list[float]] = {"base": [], "new": []}
            for _ in range(args.runs):
                for side, (binary, copy) in copies.items():
                    w, c = run(binary, copy, env)
                    wall[side].append(w)
                    cpu[side].append(c)
            print(f"{Path(source).name}{' (origin ref)' if args.with_remote else ''}: "
                  + ", ".join(f"{side} wall {statistics.median(wall[side]) * 1000:.1f} ms"
                              f" cpu {statistics.median(cpu[side]) * 1000:.1f} ms"
                              for side in copies))


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""Where a cold index build's time goes, part by part, and the floor it sets (issue #20
point 3, issue #16's first recall in a fresh clone).

    python bench/bench_build_floor.py [--size 100000] [--corpus /work/corpus] [--runs 3]
                                      [--no-write]

In a fresh `git clone` of CORPUS/repoN (a memory imported with the corpus generator),
one process does, alone and one after the other, every piece of work a cold build does
(the same functions the build calls, on the same files, in steps of 2,000 files and
batches of 20,000 as the build commits them), each timed by its own CPU time:

- the tree walk (`walk_files`), the blob reads (pack lookup, `pread`, inflate, SHA-1
  check: `write._read_many`), and zlib's inflate alone (the same blobs deflated again
  at zlib's default level, inflated);
- the rows (`write.file_rows` on the blobs read: parse, content hash, search text,
  decayed confidence) and the `marshal` of each step's rows both ways (the pipes);
- into the build's own two files (`buildfiles.open_build`): the `records` rows, the
  secondary indexes made at the end, the FTS5 rows (tokenising, segments and merges),
  and the copy of the full-text tables into the build file (`build._copy_fts`).

Then `python -m git_memory reindex` itself, `--runs` times (wall and CPU with its
worker processes, `/usr/bin/time`). The sum of the parts is the CPU a build cannot do
without; split over the machine's cores with nothing waiting and no process start, it
is the least wall time any arrangement of these parts could reach. Printed, and written
into docs/benchmarks.md (`--no-write`: print only).
"""

from __future__ import annotations

import argparse
import marshal
import os
import resource
import sqlite3
import statistics
import subprocess
import sys
import time
import zlib
from pathlib import Path
from typing import Any, Callable

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(Path(__file__).resolve().parent))
from common import isolated_env, machine, scratch, update_section  # noqa: E402

STEP, BATCH = 2000, 20000  # as index.build


def _cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


class Parts:
    """CPU seconds per named part, added up over the steps."""

    def __init__(self) -> None:
        self.secs: dict[str, float] = {}

    def timed(self, name: str, fn: Callable[[], Any]) -> Any:
        started = _cpu()
        out = fn()
        self.secs[name] = self.secs.get(name, 0.0) + _cpu() - started
        return out


def measure_parts(repo: Path) -> tuple[Parts, int]:
    """Every part of a cold build of `repo`'s memory, done once in this process."""
    os.chdir(repo)
    from git_memory.index import build as index_build
    from git_memory.index.buildfiles import open_build
    from git_memory.index.buildwriters import insert_records
    from git_memory.index.decay import Decay
    from git_memory.index.schema import INDEXES
    from git_memory.index.write import INSERT_FTS, INSERT_PROBLEM, _read_many, file_rows
    from git_memory.store.branch import MemoryBranch
    from git_memory.store.locate import discover, memory_tip

    dirs = discover(str(repo))
    ref = "refs/heads/git-memory"
    tip = memory_tip(dirs, ref)  # a fresh clone's: the remote-tracking copy's
    branch = MemoryBranch(dirs, ref)
    parts = Parts()
    files = parts.timed("tree walk", lambda: list(branch.walk_files(tip)))
    now = index_build._newest_created(branch, tip)
    decay = Decay(now)
    work = Path(repo) / "floor"
    work.mkdir(exist_ok=True)
    conn, side, _ = open_build(work / "build.sqlite", work / "build-fts.sqlite", None, ref)
    insert = insert_records(now)
    deflated: list[tuple[int, bytes]] = []
    rowid = 1
    for start in range(0, len(files), STEP):
        chunk = files[start : start + STEP]
        blobs = parts.timed("blob reads (lookup, pread, inflate, SHA-1)",
                            lambda: _read_many(branch, [f.blob for f in chunk]))
        deflated.extend((len(b), zlib.compress(b)) for b in blobs if type(b) is bytes)
        plan = [None] * len(chunk)
        rows = parts.timed("rows (parse, hash, search text, decay)",
                           lambda: file_rows(branch, chunk, rowid, None, (plan, iter(blobs)), decay))
        rowid = rows.next_rowid
        parts.timed("marshal both ways", lambda: marshal.loads(marshal.dumps(
            (rows.records, rows.texts, rows.problems))))
        if start % BATCH == 0:
            conn.execute("BEGIN")
            side.execute("BEGIN")
        parts.timed("records insert", lambda: (conn.executemany(insert, rows.records),
                                               conn.executemany(INSERT_PROBLEM, rows.problems)))
        parts.timed("FTS5 insert (tokenise, segments, merges)",
                    lambda: side.executemany(INSERT_FTS, rows.texts))
        if start + STEP >= len(files):
            parts.timed("secondary indexes", lambda: [
                conn.execute(s.replace("CREATE INDEX", "CREATE INDEX IF NOT EXISTS"))
                for s in filter(str.strip, INDEXES.split(";"))])
        if (start + STEP) % BATCH == 0 or start + STEP >= len(files):
            parts.timed("FTS5 insert (tokenise, segments, merges)", lambda: side.execute("COMMIT"))
            parts.timed("records insert", lambda: conn.execute("COMMIT"))
    parts.timed("zlib inflate alone (in the blob reads)",
                lambda: [zlib.decompress(data, bufsize=max(size, 1)) for size, data in deflated])
    side.close()
    conn.close()
    from git_memory.index.files import connect

    final = connect(work / "build.sqlite")
    final.execute("ATTACH DATABASE ? AS side", (str(work / "build-fts.sqlite"),))
    parts.timed("copy of the full-text tables", lambda: (
        final.execute("BEGIN"), index_build._copy_fts(final), final.execute("COMMIT")))
    final.close()
    return parts, len(files)


def cold_builds(repo: Path, env: dict[str, str], runs: int) -> list[tuple[float, float]]:
    """(wall, CPU) of `reindex` in `repo`, `runs` times, the index removed before each."""
    out = []
    timing = repo.parent / "time.txt"
    for _ in range(runs):
        for leftover in (repo / ".git" / "git-memory").glob("index.sqlite*"):
            leftover.unlink()
        subprocess.run(["/usr/bin/time", "-o", str(timing), "-f", "%e %U %S", sys.executable,
                        "-m", "git_memory", "reindex"], cwd=repo, env=env, check=True,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        wall, user, system = map(float, timing.read_text().split()[-3:])
        out.append((wall, user + system))
    return out


ORDER = ("tree walk", "blob reads (lookup, pread, inflate, SHA-1)",
         "rows (parse, hash, search text, decay)", "marshal both ways", "records insert",
         "secondary indexes", "FTS5 insert (tokenise, segments, merges)",
         "copy of the full-text tables")
IN_C = {"records insert", "secondary indexes", "FTS5 insert (tokenise, segments, merges)",
        "copy of the full-text tables"}


def report(size: int, runs: list[Parts], builds: list[tuple[float, float]], files: int,
           load: str) -> str:
    med = {name: statistics.median(p.secs.get(name, 0.0) for p in runs)
           for name in (*ORDER, "zlib inflate alone (in the blob reads)")}
    total = sum(med[name] for name in ORDER)
    cores = len(os.sched_getaffinity(0))
    lines = [
        f"#### {size:,} entries",
        "",
        f"Measured {time.strftime('%Y-%m-%d %H:%M', time.gmtime())} UTC by `python"
        f" bench/bench_build_floor.py --size {size} --runs {len(runs)}` on {machine()},"
        f" SQLite {sqlite3.sqlite_version};"
        f" load average {load}. {files:,} record files in a local `git clone` of the corpus"
        " memory, semantic ranking off. Each part: the median of its CPU time over the runs,"
        " in one process doing that part alone.",
        "",
        "| part | CPU s | µs per file | where |",
        "| --- | ---: | ---: | --- |",
    ]
    for name in ORDER:
        where = "SQLite (C)" if name in IN_C else "Python and the C it calls"
        lines.append(f"| {name} | {med[name]:.2f} | {med[name] / files * 1e6:.1f} | {where} |")
    inflate = med["zlib inflate alone (in the blob reads)"]
    lines.append(f"| of the blob reads: zlib's inflate alone | {inflate:.2f} | "
                 f"{inflate / files * 1e6:.1f} | zlib (C) |")
    in_c = sum(med[n] for n in IN_C)
    lines += [
        f"| **all parts** | **{total:.2f}** | {total / files * 1e6:.1f} | "
        f"SQLite {in_c:.2f}, the rest {total - in_c:.2f} |",
        "",
        f"Split evenly over {cores} cores with nothing serial (no process start, no wait at the "
        f"end): **{total / cores:.2f} s**, the least wall time any arrangement of these parts "
        "can reach on this machine.",
        "",
        "`reindex` itself in the same clone, right after: " + ", ".join(
            f"{wall:.2f} s ({cpu:.2f} s CPU)" for wall, cpu in builds)
        + f"; median {statistics.median(w for w, _ in builds):.2f} s wall, "
        f"{statistics.median(c for _, c in builds):.2f} s CPU.",
    ]
    return "\n".join(lines)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--size", type=int, default=100000)
    ap.add_argument("--corpus", type=Path, default=Path("/work/corpus"))
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--no-write", action="store_true")
    args = ap.parse_args()
    source = args.corpus / f"repo{args.size}"
    if not source.exists():
        print(f"no corpus memory at {source} (see bench/bench_growth.py)", file=sys.stderr)
        return 2
    load = " ".join(f"{x:.1f}" for x in os.getloadavg())
    with scratch() as tmp:
        env = isolated_env(Path(tmp) / "home")
        env["PYTHONPATH"] = str(ROOT)
        repo = Path(tmp) / "clone"
        subprocess.run(["git", "clone", "-q", str(source), str(repo)], env=env, check=True)
        subprocess.run(["git", "config", "memory.semantic", "false"], cwd=repo, env=env,
                       check=True)
        os.environ.update(env)
        runs, files = [], 0
        for _ in range(args.runs):
            # Each run in a child process of its own: a fresh interpreter and fresh caches.
            read, write = os.pipe()
            pid = os.fork()
            if pid == 0:
                os.close(read)
                parts, count = measure_parts(repo)
                os.write(write, marshal.dumps((parts.secs, count)))
                os._exit(0)
            os.close(write)
            with os.fdopen(read, "rb") as pipe:
                secs, files = marshal.loads(pipe.read())
            os.waitpid(pid, 0)
            parts = Parts()
            parts.secs = secs
            runs.append(parts)
        builds = cold_builds(repo, env, args.runs)
    load += " / " + " ".join(f"{x:.1f}" for x in os.getloadavg())
    text = report(args.size, runs, builds, files, f"{load} (1, 5, 15 min) at start / end")
    if not args.no_write:
        update_section(f"build-floor-{args.size}", text)
    print(text)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

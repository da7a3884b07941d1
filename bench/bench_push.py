#!/usr/bin/env python3
"""Benchmark the pre-push scan: a clean push of a memory branch with many records to a new
remote, the way issue #37 (part B) makes it scan (everything the destination lacks, whatever
another remote holds), with and without the scan cache.

Setup: repository A imports N records in C commits and pushes the memory branch to `origin`
with plain git; clone B fetches it and runs `git memory install`. Each run pushes B's memory
branch to a fresh empty bare `mirror` (made outside the timing). Runs alternate:

- plain: `git push` with hooks off (`core.hooksPath` pointing at an empty folder), the baseline;
- cold: with our pre-push hook and no scan cache (every blob and commit message scanned);
- warm: with our hook and the cache the previous run left (nothing scanned again).

Each figure is the median wall time of the whole `git push` process, in ms; the hooked
figures are also given as a ratio to the plain push of the same run.

    python bench/bench_push.py [--records 2000] [--commits 40] [--runs 7]
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "bench"))
from common import isolated_env, machine  # noqa: E402

CACHE = "scan-cache"  # githooks.push.CACHE_NAME


def git(*args: str, cwd: Path, env: dict[str, str]) -> str:
    return subprocess.run(["git", *args], cwd=cwd, env=env, check=True, capture_output=True,
                          text=True).stdout


def build(base: Path, env: dict[str, str], records: int, commits: int) -> Path:
    """Clone B, holding a memory branch of `records` records in `commits` commits fetched
    from origin, with our hooks installed."""
    origin = base / "origin.git"
    git("init", "-q", "--bare", str(origin), cwd=base, env=env)
    a = base / "a"
    git("init", "-q", str(a), cwd=base, env=env)
    git("commit", "-q", "--allow-empty", "-m", "init", cwd=a, env=env)
    per = max(1, records // commits)
    for chunk in range(commits):
        lines = [json.dumps({"type": "learned", "content": f"LEARNED: chunk {chunk} item {i}"
                             f" says the parser {i % 7} needs warm cache {chunk * per + i}"})
                 for i in range(per)]
        path = base / f"chunk-{chunk}.jsonl"
        path.write_text("\n".join(lines) + "\n", encoding="utf-8")
        subprocess.run(["git", "memory", "import", "--format", "jsonl", str(path)], cwd=a,
                       env=env, check=True, capture_output=True)
    git("remote", "add", "origin", str(origin), cwd=a, env=env)
    git("push", "-q", "origin", "main", "git-memory", cwd=a, env=env)
    b = base / "b"
    git("clone", "-q", str(origin), str(b), cwd=base, env=env)
    git("fetch", "-q", "origin", "git-memory:git-memory", cwd=b, env=env)
    subprocess.run(["git", "memory", "install"], cwd=b, env=env, check=True,
                   capture_output=True)
    return b


def push_once(b: Path, env: dict[str, str], n: int, hooks: bool) -> float:
    mirror = b.parent / f"mirror-{n}.git"
    git("init", "-q", "--bare", str(mirror), cwd=b.parent, env=env)
    cmd = ["git"] + ([] if hooks else ["-c", f"core.hooksPath={b.parent / 'no-hooks'}"])
    start = time.perf_counter()
    subprocess.run([*cmd, "push", "-q", str(mirror), "git-memory"], cwd=b, env=env,
                   check=True, capture_output=True)
    return (time.perf_counter() - start) * 1000


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--records", type=int, default=2000)
    parser.add_argument("--commits", type=int, default=40)
    parser.add_argument("--runs", type=int, default=7)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="bench-push-") as tmp:
        base = Path(tmp)
        env = isolated_env(base / "home")
        (base / "no-hooks").mkdir()
        b = build(base, env, args.records, args.commits)
        cache = b / ".git" / "git-memory" / CACHE
        times: dict[str, list[float]] = {"plain": [], "cold": [], "warm": []}
        n = 0
        for run in range(args.runs + 1):  # the first round warms the disk cache, not kept
            for label in ("plain", "cold", "warm"):
                n += 1
                if label == "cold":
                    cache.unlink(missing_ok=True)
                took = push_once(b, env, n, hooks=label != "plain")
                if run:
                    times[label].append(took)
        cached = len(cache.read_text(encoding="utf-8").splitlines()) - 1 if cache.exists() else 0
    med = {k: statistics.median(v) for k, v in times.items()}
    print(f"machine: {machine()}")
    print(f"memory branch: {args.records} records in {args.commits} commits;"
          f" {args.runs} runs each; scan cache holds {cached} ids")
    for label in ("plain", "cold", "warm"):
        ratio = med[label] / med["plain"]
        print(f"  {label:5} git push to a new remote: {med[label]:7.1f} ms  (x{ratio:.2f} plain)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

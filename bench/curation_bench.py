#!/usr/bin/env python3
"""Curation costs at scale: the refold after a curation record, and `curate --dry-run`.

    python bench/curation_bench.py [N ...]      default: 1000 10000

For each N: import N entries from ../shared/tools/make_corpus.py into a fresh repository,
warm the index, then measure whole processes (median of RUNS after a warm-up):
- `git memory list --limit 1` right after an `add` (index catch-up without a refold),
- the same right after a `reinforce` (catch-up with a refold: the fold over curated entries
  plus the one-statement confidence update of every entry),
- `git memory curate --dry-run --json` (candidate finding over the whole memory),
against `python -c pass` measured in the same run. Prints a Markdown table.
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "bench"))
from common import shared_dir  # noqa: E402
CORPUS = shared_dir() / "tools" / "make_corpus.py"
RUNS = 5


def run(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    result = subprocess.run(args, cwd=cwd, capture_output=True, text=True)
    if result.returncode != 0:
        raise SystemExit(f"{' '.join(args)} failed: {result.stderr}")
    return result


def timed(*args: str, cwd: Path) -> float:
    start = time.perf_counter()
    run(*args, cwd=cwd)
    return time.perf_counter() - start


def median_ms(samples: list[float]) -> float:
    return round(statistics.median(samples) * 1000, 1)


def bench(n: int, base: Path) -> dict[str, float | int]:
    repo = base / f"repo{n}"
    repo.mkdir()
    run("git", "init", "-q", cwd=repo)
    run("git", "commit", "-q", "--allow-empty", "-m", "init", cwd=repo)
    data = base / f"corpus{n}.jsonl"
    run(sys.executable, str(CORPUS), str(n), str(data), cwd=base)
    start = time.perf_counter()
    run("git", "memory", "import", str(data), cwd=repo)
    imported = time.perf_counter() - start
    run("git", "memory", "list", "--limit", "1", cwd=repo)
    target = json.loads(run("git", "memory", "list", "--json", "--limit", "1", cwd=repo).stdout)[0]["id"]
    plain, refold = [], []
    for i in range(RUNS + 1):
        run("git", "memory", "add", f"FACT: benchmark note number {i} for {n}", cwd=repo)
        plain.append(timed("git", "memory", "list", "--limit", "1", cwd=repo))
        run("git", "memory", "reinforce", target, cwd=repo)
        refold.append(timed("git", "memory", "list", "--limit", "1", cwd=repo))
    curate = [timed("git", "memory", "curate", "--dry-run", "--json", cwd=repo) for _ in range(3)]
    proposal = json.loads(run("git", "memory", "curate", "--json", cwd=repo).stdout)
    pass_ = [timed(sys.executable, "-c", "pass", cwd=repo) for _ in range(RUNS + 1)]
    return {
        "n": n,
        "import_s": round(imported, 1),
        "python_ms": median_ms(pass_[1:]),
        "catchup_add_ms": median_ms(plain[1:]),
        "catchup_refold_ms": median_ms(refold[1:]),
        "curate_ms": median_ms(curate),
        "changes": len(proposal["changes"]),
    }


def main() -> None:
    sizes = [int(a) for a in sys.argv[1:]] or [1000, 10000]
    os.environ.setdefault("GIT_AUTHOR_NAME", "bench")
    os.environ.setdefault("GIT_AUTHOR_EMAIL", "bench@example.com")
    print("| entries | python -c pass | list after add | list after reinforce (refold)"
          " | refold ratio | curate --dry-run | curate ratio | proposed changes |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- |")
    with tempfile.TemporaryDirectory() as tmp:
        for n in sizes:
            r = bench(n, Path(tmp))
            print(f"| {r['n']:,} | {r['python_ms']} ms | {r['catchup_add_ms']} ms"
                  f" | {r['catchup_refold_ms']} ms"
                  f" | {r['catchup_refold_ms'] / r['catchup_add_ms']:.2f}x of list after add"
                  f" | {r['curate_ms']} ms | {r['curate_ms'] / r['python_ms']:.1f}x python"
                  f" | {r['changes']} |", flush=True)


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""Storage benchmarks: `git memory add` on memories of 1k, 10k and 100k entries, and
`git memory import` of 100k entries (index included).

    python bench/bench_store.py [--sizes 1000,10000,100000] [--runs 7] [--no-write]

Baseline in the same run: `python -c pass` (the floor of any Python command).
Budgets (../shared/spec/performance.md): add on 100k at most 250 ms median; import of
100k at most 20 s; add flat within 2x from 1k to 100k.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from common import (  # noqa: E402
    isolated_env, machine, make_corpus, median_ms, run, scratch, update_section,
)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--sizes", default="1000,10000,100000")
    ap.add_argument("--runs", type=int, default=7)
    ap.add_argument("--no-write", action="store_true", help="print only; leave docs alone")
    args = ap.parse_args()
    sizes = [int(s) for s in args.sizes.split(",")]
    rows = []
    with scratch() as tmp:
        base = Path(tmp)
        env = isolated_env(base)
        floor = median_ms(lambda: run([sys.executable, "-c", "pass"], base, env), args.runs)
        print(f"baseline python -c pass: {floor:.1f} ms")
        for size in sizes:
            corpus = base / f"c{size}.jsonl"
            make_corpus(size, corpus)
            repo = base / f"r{size}"
            repo.mkdir()
            run(["git", "init", "-q", "."], repo, env)
            import_s = run(["git", "memory", "import", str(corpus)], repo, env)
            counter = iter(range(10**6))

            def add() -> float:
                n = next(counter)
                return run(["git", "memory", "add", f"LEARNED: benchmark entry {n} at size {size}"],
                           repo, env)

            add_ms = median_ms(add, args.runs)
            rows.append((size, add_ms, import_s))
            print(f"{size:>7} entries: add median {add_ms:.0f} ms ({add_ms / floor:.1f}x python),"
                  f" import {import_s:.1f} s")
    first = rows[0][1]
    lines = [
        "## Storage: add and import",
        "",
        f"Measured {time.strftime('%Y-%m-%d')} by `python bench/bench_store.py` on {machine()}.",
        f"Method: whole `git memory` processes in an isolated repository; add is the median of"
        f" {args.runs} runs after one warm-up, each run including the index catch-up for the"
        " previous add; import is one run of `git memory import` of a `make_corpus.py` file into"
        " a fresh repository, index included; bytecode caching on, as in a user's install."
        " Baseline: `python -c pass`, median, same run:"
        f" **{floor:.0f} ms**.",
        "",
        "| entries | add median | add vs 1k | import (index included) |",
        "| ---: | ---: | ---: | ---: |",
    ]
    for size, add_ms, import_s in rows:
        lines.append(f"| {size:,} | {add_ms:.0f} ms | {add_ms / first:.2f}x | {import_s:.1f} s |")
    lines += ["", "Budgets: add on 100k at most 250 ms; import of 100k at most 20 s; add within 2x"
              " from 1k to 100k."]
    if not args.no_write:
        update_section("storage", "\n".join(lines))
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    sys.exit(main())

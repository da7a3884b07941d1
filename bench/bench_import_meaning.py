#!/usr/bin/env python3
"""`git memory import` of N entries with the transformer embedder configured vs without
(issue #31 point 4: within 1.1x). Same run, alternated, each in a fresh repository.

With the model on, import ends by starting the detached embedding worker (it never waits
for it); the worker then holds the machine for the better part of an hour at 100k, so this
benchmark reads its pid from the lock file, checks that it runs, and stops it with SIGKILL
before the next import (which also shows the kill it survives: the vectors stored so far
stay). "Off" is `memory.embed false`. Figures: wall and CPU (the import process and the
children it waits for; the detached worker is not among them) of the import alone.

    python bench/bench_import_meaning.py [--entries 100000] [--runs 2]
"""

from __future__ import annotations

import argparse
import os
import resource
import signal
import sqlite3
import statistics
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from common import isolated_env, machine, make_corpus, scratch  # noqa: E402


def children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def fresh_repo(path: Path, env: dict[str, str], model_on: bool) -> None:
    path.mkdir()
    for cmd in (["git", "init", "-q"], ["git", "commit", "-q", "--allow-empty", "-m", "init"],
                ["git", "config", "memory.embed", "true" if model_on else "false"],
                ["git", "config", "memory.embed.background", "true"]):
        subprocess.run(cmd, cwd=path, env=env, check=True)


def worker_pid(repo: Path, timeout: float = 30) -> int | None:
    lock = repo / ".git" / "git-memory" / "embed.lock"
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        text = lock.read_text().strip() if lock.exists() else ""
        if text.isdigit():
            return int(text)
        time.sleep(0.1)
    return None


def vectors_stored(repo: Path) -> int:
    path = repo / ".git" / "git-memory" / "vectors.sqlite"
    if not path.exists():
        return 0
    conn = sqlite3.connect(path)
    try:
        return int(conn.execute("SELECT count(*) FROM vectors").fetchone()[0])
    except sqlite3.OperationalError:
        return 0
    finally:
        conn.close()


def one_import(root: Path, name: str, corpus: Path, env: dict[str, str], model_on: bool
               ) -> tuple[float, float, str]:
    repo = root / name
    fresh_repo(repo, env, model_on)
    before = children_cpu()
    started = time.perf_counter()
    subprocess.run([sys.executable, "-m", "git_memory", "import", "--format", "jsonl",
                    str(corpus)], cwd=repo, env=env, check=True, capture_output=True)
    wall, cpu = time.perf_counter() - started, children_cpu() - before
    note = ""
    if model_on:
        pid = worker_pid(repo)
        if pid is None:
            raise SystemExit("the import started no embedding worker")
        time.sleep(20)  # let it load the model and store a few batches
        os.kill(pid, signal.SIGKILL)
        note = f"worker {pid} killed after 20 s with {vectors_stored(repo):,} vectors stored"
    return wall, cpu, note


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--entries", type=int, default=100_000)
    parser.add_argument("--runs", type=int, default=2)
    args = parser.parse_args()
    with scratch() as tmp:
        root = Path(tmp)
        env = isolated_env(root / "home")
        corpus = root / "corpus.jsonl"
        make_corpus(args.entries, corpus)
        found: dict[str, list[tuple[float, float]]] = {"on": [], "off": []}
        for run in range(args.runs):
            order = ("off", "on") if run % 2 == 0 else ("on", "off")
            for mode in order:
                wall, cpu, note = one_import(root, f"{mode}-{run}", corpus, env, mode == "on")
                found[mode].append((wall, cpu))
                print(f"run {run} model {mode}: {wall:.1f} s wall, {cpu:.1f} s CPU {note}",
                      flush=True)
        load = os.getloadavg()[0]
    med = {m: (statistics.median(w for w, _ in v), statistics.median(c for _, c in v))
           for m, v in found.items()}
    print(f"\n{machine()}; load {load:.1f}; {args.entries:,} entries, {args.runs} runs each")
    print("| import | wall (median) | CPU (median) |\n| --- | ---: | ---: |")
    for mode in ("off", "on"):
        print(f"| model {mode} | {med[mode][0]:.1f} s | {med[mode][1]:.1f} s |")
    print(f"| ratio on/off (budget 1.1x) | {med['on'][0] / med['off'][0]:.2f}x |"
          f" {med['on'][1] / med['off'][1]:.2f}x |")


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""Compare two revisions of git-memory in one run: import, warm recall, add, the hooks,
the session-start `context` and a cold index build (`reindex`).

A refactor or a new scanner must not cost time unnoticed. This benchmark installs each
revision (a `git archive` of it, a regular `pip install` into a virtual environment of its
own), builds the same repositories for both, and alternates the measured runs between them
(A, B, A, B, ...) so both see the same machine noise. Each figure is the median wall time of
the whole process, as a user meets it.

    python bench/bench_compare.py BASE_REV [NEW_REV] [--entries 10000] [--runs 15]

NEW_REV defaults to the working tree's HEAD. Figures go to stdout; paste them into
docs/benchmarks.md with the revisions named. The corpus comes from ../shared/tools.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "bench"))
from common import isolated_env, machine, make_corpus, scratch  # noqa: E402

QUERIES = ["oauth redirect", "sqlite index rebuild", "pip cache wheels", "ci runners cores",
           "retry backoff", "docker layer cache", "migration rollback", "token refresh"]
MARKED = ("change {n}\n\nLEARNED: bench note {n} about caching wheels\n"
          "DECISION: keep bench decision {n}\nFACT: bench fact {n} on two cores\n")


def install(rev: str, where: Path) -> Path:
    """A venv at `where` with revision `rev` installed the regular way; returns its bin/."""
    src = where / "src"
    src.mkdir(parents=True)
    archive = subprocess.run(["git", "archive", rev], cwd=ROOT, check=True, capture_output=True)
    subprocess.run(["tar", "-x", "-C", str(src)], input=archive.stdout, check=True)
    subprocess.run([sys.executable, "-m", "venv", str(where / "venv")], check=True)
    pip = [str(where / "venv" / "bin" / "python"), "-m", "pip", "install", "-q"]
    subprocess.run([*pip, str(src)], check=True, capture_output=True)
    return where / "venv" / "bin"


def timed(cmd: list[str], cwd: Path, env: dict[str, str], stdin: str | None = None) -> float:
    start = time.perf_counter()
    result = subprocess.run(cmd, cwd=cwd, env=env, input=stdin, capture_output=True, text=True)
    elapsed = time.perf_counter() - start
    if result.returncode != 0:
        raise SystemExit(f"{' '.join(cmd)} failed in {cwd}: {result.stderr[:400]}")
    return elapsed


def env_for(bin_dir: Path, home: Path) -> dict[str, str]:
    env = isolated_env(home)
    env["PATH"] = f"{bin_dir}:{env['PATH']}"
    return env


def git(repo: Path, env: dict[str, str], *args: str) -> None:
    subprocess.run(["git", *args], cwd=repo, env=env, check=True, capture_output=True)


def prepare(side: str, bin_dir: Path, base: Path, corpus: Path) -> tuple[Path, dict[str, str], float]:
    """A repository with the corpus imported and hooks installed; returns the import time."""
    env = env_for(bin_dir, base / f"home-{side}")
    repo = base / f"repo-{side}"
    repo.mkdir()
    git(repo, env, "init", "-q")
    (repo / "f.txt").write_text("0\n", encoding="utf-8")
    git(repo, env, "add", "f.txt")
    git(repo, env, "commit", "-q", "-m", "initial")
    seconds = timed(["git", "memory", "import", "--format", "jsonl", str(corpus)], repo, env)
    timed(["git", "memory", "install"], repo, env)
    return repo, env, seconds


def commit(repo: Path, env: dict[str, str], n: int, marked: bool) -> float:
    (repo / "f.txt").write_text(f"{n}\n", encoding="utf-8")
    git(repo, env, "add", "f.txt")
    message = MARKED.format(n=n) if marked else f"plain change {n}"
    return timed(["git", "commit", "-q", "-m", message], repo, env)


def measure(sides: dict[str, tuple[Path, dict[str, str]]], runs: int) -> dict[str, dict[str, float]]:
    samples: dict[str, dict[str, list[float]]] = {s: {} for s in sides}
    counter = 0
    for i in range(runs + 1):  # the first round is a warm-up
        for side, (repo, env) in sides.items():
            counter += 1
            row = {
                "recall": timed(["git", "memory", "recall", QUERIES[i % len(QUERIES)]], repo, env),
                "add": timed(["git", "memory", "add", f"FACT: compare run {counter} {side}"],
                             repo, env),
                "commit, no marker": commit(repo, env, counter * 2, marked=False),
                "commit, 3 markers": commit(repo, env, counter * 2 + 1, marked=True),
                "context": timed(["git", "memory", "context"], repo, env),
                # a cold build of the whole index (every round: it replaces the index whole)
                "reindex": timed(["git", "memory", "reindex"], repo, env),
            }
            if i:
                for name, value in row.items():
                    samples[side].setdefault(name, []).append(value)
    return {s: {k: statistics.median(v) * 1000 for k, v in rows.items()}
            for s, rows in samples.items()}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("base")
    ap.add_argument("new", nargs="?", default="HEAD")
    ap.add_argument("--entries", type=int, default=10_000)
    ap.add_argument("--runs", type=int, default=15)
    args = ap.parse_args()
    revs = {"base": args.base, "new": args.new}
    names = {k: subprocess.run(["git", "rev-parse", "--short", v], cwd=ROOT, check=True,
                               capture_output=True, text=True).stdout.strip()
             for k, v in revs.items()}
    with scratch() as tmp:
        base = Path(tmp)
        bins = {side: install(rev, base / side) for side, rev in revs.items()}
        corpus = base / "corpus.jsonl"
        make_corpus(args.entries, corpus)
        sides: dict[str, tuple[Path, dict[str, str]]] = {}
        imports: dict[str, float] = {}
        for side, bin_dir in bins.items():
            repo, env, seconds = prepare(side, bin_dir, base, corpus)
            sides[side] = (repo, env)
            imports[side] = seconds
        figures = measure(sides, args.runs)
    print(f"machine: {machine()}")
    print(f"entries: {args.entries}, runs: {args.runs} (medians, ms; import in s, one run each)")
    print(f"| measure | base {names['base']} | new {names['new']} | change |")
    print("| --- | ---: | ---: | ---: |")
    print(f"| import | {imports['base']:.1f} s | {imports['new']:.1f} s | "
          f"{(imports['new'] / imports['base'] - 1) * 100:+.1f}% |")
    for name in figures["base"]:
        a, b = figures["base"][name], figures["new"][name]
        print(f"| {name} | {a:.1f} | {b:.1f} | {b - a:+.1f} ms |")
    print(json.dumps({"revs": names, "imports": imports, "figures": figures}))


if __name__ == "__main__":
    main()

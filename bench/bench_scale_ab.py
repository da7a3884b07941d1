#!/usr/bin/env python3
"""Import of N entries and a cold build of them: two checkouts of the code, alternated.

    python bench/bench_scale_ab.py --before DIR [--after DIR] [--size 100000] [--runs 3]

DIR is a checkout of the code to compare with (`git archive REV | tar -x -C DIR`); the
code of `--after` defaults to this checkout. Each is run with PYTHONPATH set to it, in
the same environment, in the order A, B, A, B, ... so both see the same machine noise.
Each run: `git memory import --format jsonl` of the corpus (`make_corpus.py N`) into a
fresh repository, then `git memory reindex` in a fresh `git clone` of it (no index), each
timed by `/usr/bin/time` (wall, and CPU: user + system, the worker processes included).
Prints a table of medians and the ratios after / before; nothing is written.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from common import isolated_env, machine, make_corpus, scratch  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]


def timed(cmd: list[str], cwd: Path, env: dict[str, str]) -> tuple[float, float]:
    """(wall seconds, CPU seconds) of one process and the processes it waited for."""
    out = cwd.parent / "time.txt"
    subprocess.run(["/usr/bin/time", "-o", str(out), "-f", "%e %U %S", *cmd], cwd=cwd, env=env,
                   check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    wall, user, system = out.read_text().split()[-3:]
    return float(wall), float(user) + float(system)


def one_run(code: Path, corpus: Path, where: Path, env: dict[str, str]) -> dict[str, tuple[float, float]]:
    env = {**env, "PYTHONPATH": str(code)}
    run = [sys.executable, "-m", "git_memory"]
    repo, clone = where / "repo", where / "clone"
    subprocess.run(["git", "init", "-q", str(repo)], env=env, check=True)
    subprocess.run(["git", "commit", "-q", "--allow-empty", "-m", "init"], cwd=repo, env=env,
                   check=True)
    imported = timed([*run, "import", "--format", "jsonl", str(corpus)], repo, env)
    subprocess.run(["git", "clone", "-q", str(repo), str(clone)], env=env, check=True)
    subprocess.run(["git", "config", "memory.semantic", "false"], cwd=clone, env=env, check=True)
    return {"import": imported, "cold build": timed([*run, "reindex"], clone, env)}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--before", type=Path, required=True)
    ap.add_argument("--after", type=Path, default=ROOT)
    ap.add_argument("--size", type=int, default=100_000)
    ap.add_argument("--runs", type=int, default=3)
    args = ap.parse_args()
    sides = {"before": args.before.resolve(), "after": args.after.resolve()}
    samples: dict[str, dict[str, list[tuple[float, float]]]] = {s: {} for s in sides}
    with scratch() as tmp:
        base = Path(tmp)
        corpus = base / "corpus.jsonl"
        make_corpus(args.size, corpus)
        env = isolated_env(base / "home")
        for n in range(args.runs):
            for side, code in sides.items():
                where = base / f"{side}-{n}"
                where.mkdir()
                for name, figure in one_run(code, corpus, where, env).items():
                    samples[side].setdefault(name, []).append(figure)
                    print(f"run {n + 1} {side} {name}: {figure[0]:.2f} s, CPU {figure[1]:.2f} s",
                          flush=True)
                subprocess.run(["rm", "-rf", str(where)], check=True)
    print(f"machine: {machine()}; {args.size} entries; medians of {args.runs} alternated runs")
    print("| measure | before: wall (CPU) | after: wall (CPU) | after / before: wall (CPU) |")
    print("| --- | ---: | ---: | ---: |")
    for name in samples["before"]:
        (bw, bc), (aw, ac) = ((statistics.median(f[0] for f in samples[s][name]),
                               statistics.median(f[1] for f in samples[s][name]))
                              for s in ("before", "after"))
        print(f"| {name} | {bw:.1f} s ({bc:.1f} s) | {aw:.1f} s ({ac:.1f} s) |"
              f" {aw / bw:.2f} ({ac / bc:.2f}) |")


if __name__ == "__main__":
    main()

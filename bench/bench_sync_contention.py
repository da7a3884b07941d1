#!/usr/bin/env python3
"""Benchmark: a team syncing at once, and what a plain sync costs, against a baseline build.

Two measurements, each of this checkout and of a baseline revision (`--baseline`, default
where this branch left main, `git merge-base main HEAD`: its `git_memory/` taken with `git
archive` into a scratch folder), in the same run:

1. Plain sync: one clone adds an entry (untimed), then `git memory sync` pushes it (timed,
   a whole process). Baseline and this checkout alternate, `--runs` times each after a
   warm-up; medians and their ratio.
2. Contention: a bare remote with a shared memory and `--clones` clones of it; each round,
   every clone adds an entry of its own, then all of them start `git memory sync --json`
   together. Per round: wall time; per sync: exit code and attempts. The remote is then
   checked to hold every entry.

Both builds run as `python -m git_memory` with their own folder on PYTHONPATH, bytecode
cached (each folder compiled first), in an isolated git environment.

    python bench/bench_sync_contention.py [--clones 20] [--rounds 3] [--runs 7]
                                          [--baseline REV] [--skip-baseline-contention]
"""

from __future__ import annotations

import argparse
import compileall
import io
import json
import statistics
import subprocess
import sys
import tarfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from common import ROOT, isolated_env, machine, scratch  # noqa: E402


class Build:
    """One version of git-memory, run as `python -m git_memory` from `folder`."""

    def __init__(self, name: str, folder: Path, env: dict[str, str]) -> None:
        self.name = name
        self.env = {**env, "PYTHONPATH": str(folder)}
        compileall.compile_dir(str(folder / "git_memory"), quiet=1)

    def cmd(self, *args: str) -> list[str]:
        return [sys.executable, "-m", "git_memory", *args]

    def run(self, repo: Path, *args: str) -> subprocess.CompletedProcess[bytes]:
        return subprocess.run(self.cmd(*args), cwd=repo, env=self.env, capture_output=True)


def baseline_folder(revision: str, into: Path) -> Path:
    """`git_memory/` as `revision` holds it, unpacked under `into`."""
    data = subprocess.run(["git", "archive", "--format=tar", revision, "git_memory"],
                          cwd=ROOT, check=True, capture_output=True).stdout
    with tarfile.open(fileobj=io.BytesIO(data)) as tar:
        tar.extractall(into, filter="data")
    return into


def git(*args: str, cwd: Path, env: dict[str, str]) -> None:
    subprocess.run(["git", *args], cwd=cwd, env=env, check=True, capture_output=True)


def team(root: Path, env: dict[str, str], build: Build, clones: int) -> tuple[Path, list[Path]]:
    """A bare remote (refusing non-fast-forwards) whose memory holds one entry, and clones."""
    root.mkdir(parents=True)
    bare = root / "remote.git"
    git("init", "-q", "--bare", str(bare), cwd=root, env=env)
    git("config", "receive.denyNonFastForwards", "true", cwd=bare, env=env)
    seed = root / "seed"
    git("init", "-q", str(seed), cwd=root, env=env)
    git("commit", "-q", "--allow-empty", "-m", "code", cwd=seed, env=env)
    must(build.run(seed, "add", "LEARNED: the shared entry every clone starts from"))
    git("push", "-q", str(bare), "main", "git-memory", cwd=seed, env=env)
    made = []
    for n in range(clones):
        git("clone", "-q", str(bare), str(root / f"c{n:02d}"), cwd=root, env=env)
        made.append(root / f"c{n:02d}")
    return bare, made


def must(done: subprocess.CompletedProcess[bytes]) -> bytes:
    if done.returncode != 0:
        raise SystemExit(f"failed: {done.args}: {done.stderr.decode()[:400]}")
    return done.stdout


def plain_sync(builds: list[Build], root: Path, env: dict[str, str], runs: int) -> dict[str, float]:
    """Median seconds of a sync that pushes one new entry, per build, alternating."""
    repos = {b.name: team(root / f"plain-{b.name}", env, b, 1)[1][0] for b in builds}
    times: dict[str, list[float]] = {b.name: [] for b in builds}
    for number in range(runs + 1):
        for build in builds if number % 2 else builds[::-1]:  # neither always goes first
            repo = repos[build.name]
            must(build.run(repo, "add", f"LEARNED: plain sync number {number} of {build.name}"))
            start = time.perf_counter()
            must(build.run(repo, "sync"))
            if number:  # the first is a warm-up
                times[build.name].append(time.perf_counter() - start)
    return {name: statistics.median(found) for name, found in times.items()}


def contention(build: Build, root: Path, env: dict[str, str], clones: int, rounds: int) -> dict:
    bare, repos = team(root / f"team-{build.name}", env, build, clones)
    walls, attempts, failed, expected = [], [], 0, 1
    for number in range(rounds):
        for n, repo in enumerate(repos):
            must(build.run(repo, "add", f"LEARNED: clone {n} learned fact {number} of the bench"))
            expected += 1
        start = time.perf_counter()
        procs = [subprocess.Popen(build.cmd("sync", "--json"), cwd=repo, env=build.env,
                                  stdout=subprocess.PIPE, stderr=subprocess.PIPE)
                 for repo in repos]
        for proc in procs:
            stdout, _ = proc.communicate()
            if proc.returncode == 0:
                attempts.append(json.loads(stdout)["attempts"])
            else:
                failed += 1
        walls.append(time.perf_counter() - start)
    files = subprocess.run(["git", "ls-tree", "-r", "--name-only", "git-memory", "entries"],
                           cwd=bare, env=env, capture_output=True, text=True).stdout.split()
    return {"walls": walls, "attempts": attempts, "failed": failed, "syncs": clones * rounds,
            "expected": expected, "on_remote": len(files)}


def describe(name: str, found: dict) -> str:
    tries = sorted(found["attempts"]) or [0]
    return (f"{name}: {found['syncs'] - found['failed']} of {found['syncs']} syncs exit 0;"
            f" rounds {', '.join(f'{w:.1f}' for w in found['walls'])} s wall;"
            f" attempts per successful sync: mean {statistics.mean(tries):.1f},"
            f" median {statistics.median(tries):g}, max {max(tries)};"
            f" remote holds {found['on_remote']} of {found['expected']} entries")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[1])
    parser.add_argument("--clones", type=int, default=20, help="0: the plain sync only")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--baseline", default=None, help="default: git merge-base main HEAD")
    parser.add_argument("--skip-baseline-contention", action="store_true")
    args = parser.parse_args()
    with scratch() as tmp:
        work = Path(tmp)
        env = isolated_env(work / "home")
        revision = args.baseline or subprocess.run(
            ["git", "merge-base", "main", "HEAD"], cwd=ROOT, check=True, capture_output=True,
            text=True).stdout.strip()
        name = revision[:10]
        base = Build(name, baseline_folder(revision, work / "baseline"), env)
        this = Build("this", ROOT, env)
        print(machine())
        plain = plain_sync([base, this], work, env, args.runs)
        print(f"plain sync pushing one entry (median of {args.runs}): {name}"
              f" {plain[base.name] * 1000:.0f} ms, this {plain['this'] * 1000:.0f} ms,"
              f" ratio {plain['this'] / plain[base.name]:.2f}")
        if args.clones == 0:
            return
        builds = [this] if args.skip_baseline_contention else [base, this]
        for build in builds:
            found = contention(build, work, env, args.clones, args.rounds)
            print(f"{args.clones} clones x {args.rounds} rounds, " + describe(build.name, found))


if __name__ == "__main__":
    main()

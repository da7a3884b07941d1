#!/usr/bin/env python3
"""Hostile sizes (issue #37 A): a single-token entry and a line of many tags, at 10k, 100k
and 1M, against a normal entry measured in the same run.

    python bench/bench_hostile.py [--sizes 10000,100000,1000000]

For each size and shape, in a new repository holding one normal entry:

- recall: a record file written onto the memory branch with git plumbing (as a push would
  bring it: `tests/plumbing.py`), then `git memory recall widget`, which first brings the
  index up to it (parse, FTS rows, semantic vectors when the extra is installed);
- import: `git memory import --format jsonl` of one line holding that entry.

The single token is N letters `q` (999,000 at 1M: a record file over 1,000,000 bytes is
refused unread, so that is the largest one a reader parses); the tags are a JSON list of
N tags (a record with more than 100 is refused as malformed, an import line with more than
20 refused). Each time is the median of three runs; the ratio is each size's time over
the one before it (linear is ~10x per 10x, flat where a cap applies), and the baseline
column is the same command on a normal entry in the same repository kind.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "tests"))

from plumbing import commit_files, record  # noqa: E402 - the tests' hand-made commits

DAY = ("entries", "2026", "11", "20")


def _run(args: list[str], cwd: Path, env: dict[str, str]) -> float:
    start = time.perf_counter()
    subprocess.run(args, cwd=cwd, env=env, capture_output=True, timeout=600, check=False)
    return time.perf_counter() - start


def _repo(root: Path, env: dict[str, str]) -> Path:
    repo = root / "repo"
    subprocess.run(["git", "init", "-q", "-b", "main", str(repo)], check=True, env=env)
    (repo / "f").write_text("x\n")
    subprocess.run(["git", "add", "f"], cwd=repo, check=True, env=env)
    subprocess.run(["git", "commit", "-qm", "c"], cwd=repo, check=True, env=env)
    subprocess.run(["git", "memory", "add", "LEARNED: a normal widget entry"], cwd=repo,
                   check=True, env=env, capture_output=True)
    return repo


def _shape(kind: str, size: int) -> tuple[bytes, dict[str, object]]:
    """The record file and the import line of one hostile entry."""
    if kind == "normal":
        return (record("01NORMAL", body="another normal entry about gadgets"),
                {"type": "learned", "content": "another normal entry about gadgets"})
    if kind == "token":
        letters = "q" * min(size, 999_000)
        return record("01TOKEN", body=letters), {"type": "learned", "content": letters}
    tags = [f"t{i}" for i in range(size)]
    return (record("01TAGS", body="many tags", tags=json.dumps(tags)),
            {"type": "learned", "content": "many tags", "tags": tags})


def measure(kind: str, size: int, env: dict[str, str]) -> tuple[float, float]:
    recalls, imports = [], []
    for _ in range(3):
        with tempfile.TemporaryDirectory() as tmp:
            root = Path(tmp)
            home = {**env, "HOME": str(root)}
            repo = _repo(root, home)
            data, line = _shape(kind, size)
            os.environ["HOME"] = str(root)  # plumbing's git calls
            commit_files(repo, {(*DAY, f"learned-{kind}-aaaa0001.md"): ("100644", data)})
            recalls.append(_run(["git", "memory", "recall", "widget"], repo, home))
            path = root / "one.jsonl"
            path.write_text(json.dumps(line) + "\n", encoding="utf-8")
            imports.append(_run(["git", "memory", "import", "--format", "jsonl", str(path)],
                                repo, home))
    return statistics.median(recalls), statistics.median(imports)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--sizes", default="10000,100000,1000000")
    sizes = [int(s) for s in parser.parse_args().sizes.split(",")]
    env = {**os.environ, "GIT_CONFIG_NOSYSTEM": "1", "GIT_AUTHOR_NAME": "b",
           "GIT_AUTHOR_EMAIL": "b@e", "GIT_COMMITTER_NAME": "b", "GIT_COMMITTER_EMAIL": "b@e"}
    os.environ.update(env)  # plumbing's git calls run in this process's environment
    base_recall, base_import = measure("normal", 0, env)
    print(f"machine: {os.cpu_count()} cores, {platform.system()} {platform.machine()},"
          f" Python {platform.python_version()}; load {os.getloadavg()[0]:.2f}")
    print(f"baseline (a normal entry): recall {base_recall:.2f} s, import {base_import:.2f} s\n")
    print("| shape | size | recall s | x baseline | x previous size | import s | x baseline"
          " | x previous size |")
    print("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
    for kind in ("token", "tags"):
        before: tuple[float, float] | None = None
        for size in sizes:
            rec, imp = measure(kind, size, env)
            step = (f"{rec / before[0]:.2f}", f"{imp / before[1]:.2f}") if before else ("", "")
            print(f"| {kind} | {size:,} | {rec:.2f} | {rec / base_recall:.2f} | {step[0]} |"
                  f" {imp:.2f} | {imp / base_import:.2f} | {step[1]} |")
            before = (rec, imp)


if __name__ == "__main__":
    main()

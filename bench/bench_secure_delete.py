"""What `PRAGMA secure_delete` would cost the index: an ordinary `add` and a full index
build (`reindex`) at 10k and 100k entries, each timed with the pragma on every SQLite
connection and without it, in the same run (the ratio is the figure).

The purge no longer needs the pragma (a sync that rewrites the local branch rebuilds the
index into a new file: docs/curation.md); this measures what turning it on everywhere
would add, the alternative the issue weighed. The pragma is switched on by a launcher
that wraps `sqlite3.connect` before the console entry runs, so both arms run the same
code through the same launcher.

    python bench/bench_secure_delete.py [--sizes 10000,100000] [--runs 5]
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
from pathlib import Path

from common import isolated_env, machine, run, scratch

LAUNCH = """
import os, sqlite3, sys
if os.environ.get("BENCH_SECURE_DELETE") == "1":
    _connect = sqlite3.connect
    def connect(*args, **kwargs):
        conn = _connect(*args, **kwargs)
        conn.execute("PRAGMA secure_delete = ON")
        return conn
    sqlite3.connect = connect
from git_memory.entry import main
sys.argv[0] = "git-memory"
main()
"""


def _repo(root: Path, env: dict[str, str], size: int) -> Path:
    repo = root / f"repo-{size}"
    run(["git", "init", "-q", str(repo)], root, env)
    run(["git", "commit", "-q", "--allow-empty", "-m", "seed"], repo, env)
    lines = [json.dumps({"type": "learned", "content": f"bench entry {i} on topic {i % 97}"
                         f" with word{i % 1013} and part{i % 31}"}) for i in range(size)]
    data = root / f"entries-{size}.jsonl"
    data.write_text("\n".join(lines) + "\n", encoding="utf-8")
    run([sys.executable, "-c", LAUNCH, "import", "--format", "jsonl", str(data)], repo, env)
    return repo


def _timed(repo: Path, env: dict[str, str], on: bool, args: list[str]) -> float:
    arm = {**env, "BENCH_SECURE_DELETE": "1" if on else "0"}
    return run([sys.executable, "-c", LAUNCH, *args], repo, arm)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--sizes", default="10000,100000")
    parser.add_argument("--runs", type=int, default=5)
    opts = parser.parse_args()
    print(machine())
    with scratch() as tmp:
        root = Path(tmp)
        env = isolated_env(root / "home")
        for size in (int(s) for s in opts.sizes.split(",")):
            repo = _repo(root, env, size)
            _timed(repo, env, False, ["reindex"])  # warm the page cache
            times: dict[str, dict[bool, list[float]]] = {"add": {}, "reindex": {}}
            for run_no in range(opts.runs):
                for on in (False, True):  # interleaved: a slow spell hits both arms
                    times["add"].setdefault(on, []).append(_timed(
                        repo, env, on, ["add", f"LEARNED: bench add {size} {run_no} {on}"]))
                    times["reindex"].setdefault(on, []).append(
                        _timed(repo, env, on, ["reindex"]))
            for what, arms in times.items():
                off, on = (statistics.median(arms[k]) * 1000 for k in (False, True))
                print(f"{size:>7} entries  {what:<8} off {off:8.1f} ms  on {on:8.1f} ms"
                      f"  ratio {on / off:.3f}")


if __name__ == "__main__":
    main()

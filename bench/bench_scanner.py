#!/usr/bin/env python3
"""Cost of the secret scanner (issue #11 point 6), new against old in the same run.

The old scanner is bench/old_secrets.py (the 24-rule sanitize/secrets.py before #11).
For the old side the benchmark builds a copy of the package with that file in place
of sanitize/secrets.py and puts it first on PYTHONPATH, so every process (the hooks
included) runs the old code; the new side runs the checkout as installed.

    python bench/bench_scanner.py [--runs 21] [--entries 100000] [--no-import] [--write-docs]

Measures, alternating old and new runs so both see the same machine noise:
  - import of sanitize.secrets in a fresh interpreter (median wall time);
  - find_secret over the texts of a 100k-entry corpus (../shared/tools/make_corpus.py)
    and the 1,870 til notes, in process (total seconds, microseconds per text);
  - a real `git commit` whose message has 3 markers, in a repository with our hooks
    (commit-msg + post-commit capture): a plain message, and one whose marker holds a
    word the shim's grep hints at (so commit-msg starts Python); budget +10 ms;
  - `git memory import` of the 100k-entry corpus, once each (budget: within 10%).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "bench"))
from common import isolated_env, machine, make_corpus, scratch, update_section  # noqa: E402

TIL = ROOT / "tests" / "data" / "til-jbranchaud" / "notes.jsonl"


def old_package(base: Path) -> Path:
    """A copy of git_memory whose sanitize/secrets.py is the frozen old scanner."""
    target = base / "oldpkg"
    shutil.copytree(ROOT / "git_memory", target / "git_memory",
                    ignore=shutil.ignore_patterns("__pycache__"))
    sanitize = target / "git_memory" / "sanitize"
    for extra in sanitize.glob("secrets_*.py"):
        extra.unlink()
    shutil.copy(ROOT / "bench" / "old_secrets.py", sanitize / "secrets.py")
    return target


def timed(cmd: list[str], cwd: Path, env: dict[str, str], stdin: str | None = None) -> float:
    start = time.perf_counter()
    result = subprocess.run(cmd, cwd=cwd, env=env, input=stdin, capture_output=True, text=True)
    elapsed = time.perf_counter() - start
    if result.returncode != 0:
        raise SystemExit(f"{' '.join(cmd)} failed: {result.stderr[:400]}")
    return elapsed


def alternate(runs: int, old: Callable[[int], float], new: Callable[[int], float]) -> tuple[float, float]:
    """Median milliseconds of `old` and `new`, run turn about after one warm-up each."""
    old(-1)
    new(-1)
    a: list[float] = []
    b: list[float] = []
    for i in range(runs):
        a.append(old(i))
        b.append(new(i))
    return statistics.median(a) * 1000, statistics.median(b) * 1000


def scan_texts(texts: list[str], pythonpath: str | None) -> float:
    """Seconds find_secret takes over `texts`, in a fresh interpreter."""
    code = (
        "import json, sys, time\n"
        "from git_memory.sanitize.secrets import find_secret\n"
        "texts = json.load(sys.stdin)\n"
        "start = time.perf_counter()\n"
        "hits = sum(1 for t in texts if find_secret(t))\n"
        "print(time.perf_counter() - start, hits)\n"
    )
    env = dict(os.environ)
    env.pop("PYTHONPATH", None)
    if pythonpath:
        env["PYTHONPATH"] = pythonpath
    result = subprocess.run([sys.executable, "-c", code], input=json.dumps(texts), env=env,
                            capture_output=True, text=True, check=True)
    seconds, _ = result.stdout.split()
    return float(seconds)


def in_process(n: int) -> int:
    """Per-text cost of old and new find_secret in one process, best of 7 rounds."""
    import timeit

    import old_secrets

    from git_memory.sanitize.secrets import find_secret

    with scratch() as tmp:
        corpus = Path(tmp) / "corpus.jsonl"
        make_corpus(n, corpus)
        texts = [json.loads(line)["content"] for line in corpus.open(encoding="utf-8")]
    for label, find in (("old", old_secrets.find_secret), ("new", find_secret)):
        best = min(timeit.repeat(lambda: [find(t) for t in texts], number=1, repeat=7))
        print(f"{label}: {best / len(texts) * 1e6:.1f} µs per text ({len(texts):,} texts)")
    return 0


def hooked_repo(path: Path, env: dict[str, str]) -> None:
    path.mkdir()
    for args in (["git", "init", "-q"], ["git", "commit", "-q", "--allow-empty", "-m", "init"],
                 ["git", "memory", "install"]):
        timed(args, path, env)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--runs", type=int, default=21)
    ap.add_argument("--entries", type=int, default=100_000)
    ap.add_argument("--no-import", action="store_true", help="skip the 100k import")
    ap.add_argument("--write-docs", action="store_true")
    ap.add_argument("--in-process", type=int, metavar="N", default=0,
                    help="only: find_secret over N corpus texts, old and new in one process, "
                         "best of 7 (the least noisy per-text figure on a shared machine)")
    args = ap.parse_args()
    if args.in_process:
        return in_process(args.in_process)
    lines: list[str] = []

    def say(text: str) -> None:
        print(text, flush=True)
        lines.append(text)

    with scratch() as tmp:
        base = Path(tmp)
        old_path = str(old_package(base))
        env_new = isolated_env(base / "home")
        env_new.pop("PYTHONPATH", None)
        env_old = {**env_new, "PYTHONPATH": old_path}

        imp = [sys.executable, "-c", "import git_memory.sanitize.secrets"]
        o, n = alternate(args.runs, lambda i: timed(imp, base, env_old),
                         lambda i: timed(imp, base, env_new))
        say(f"| import sanitize.secrets (fresh interpreter) | {o:.1f} ms | {n:.1f} ms "
            f"| {n - o:+.1f} ms |")

        corpus = base / "corpus.jsonl"
        make_corpus(args.entries, corpus)
        contents = [json.loads(line)["content"] for line in corpus.open(encoding="utf-8")]
        notes = [json.loads(line) for line in TIL.open(encoding="utf-8")]
        til = [f"{note['title']}\n\n{note['body']}" for note in notes]
        for label, texts in ((f"find_secret over {len(contents):,} corpus entries", contents),
                             (f"find_secret over {len(til):,} til notes", til)):
            so = scan_texts(texts, old_path)
            sn = scan_texts(texts, None)
            say(f"| {label} | {so:.2f} s ({so / len(texts) * 1e6:.0f} µs each) "
                f"| {sn:.2f} s ({sn / len(texts) * 1e6:.0f} µs each) | {sn - so:+.2f} s |")

        repo_old, repo_new = base / "hooked-old", base / "hooked-new"
        hooked_repo(repo_old, env_old)
        hooked_repo(repo_new, env_new)
        counter = [0]

        def commit(repo: Path, env: dict[str, str], message: str) -> float:
            counter[0] += 1
            (repo / "work.txt").write_text(f"change {counter[0]}\n")
            timed(["git", "add", "work.txt"], repo, env)
            return timed(["git", "commit", "-q", "-F", "-"], repo, env, stdin=message)

        def plain(i: int) -> str:  # bench_hooks.py's message: no hint, commit-msg skips Python
            return (f"Parser work {i}\n\nLEARNED: parser run {i} needs a warm cache\n"
                    f"DECISION: keep the run {i} cache in memory\nFact: run {i} took 3 passes\n")

        def hinted(i: int) -> str:  # `token:` makes both greps start Python in commit-msg
            return (f"Auth work {i}\n\nLEARNED: the token: is read from the keyring on run {i}\n"
                    f"DECISION: keep the run {i} cache in memory\nFact: run {i} took 3 passes\n")

        for label, message in (("`git commit`, 3 markers (commit-msg skips Python)", plain),
                               ("`git commit`, 3 markers, one hinting at a secret", hinted)):
            o, n = alternate(args.runs, lambda i: commit(repo_old, env_old, message(i)),
                             lambda i: commit(repo_new, env_new, message(i)))
            say(f"| {label} | {o:.1f} ms | {n:.1f} ms | {n - o:+.1f} ms |")

        if not args.no_import:
            results = {}
            for side, env in (("old", env_old), ("new", env_new)):
                repo = base / f"import-{side}"
                repo.mkdir()
                timed(["git", "init", "-q"], repo, env)
                results[side] = timed(["git", "memory", "import", str(corpus)], repo, env)
            o, n = results["old"], results["new"]
            say(f"| `git memory import` of {args.entries:,} entries | {o:.1f} s | {n:.1f} s "
                f"| {(n - o) / o:+.1%} |")

    if args.write_docs:
        body = "\n".join([
            "## Secret scanner: old (24 rules) against new (issue #11)",
            "",
            f"Measured {time.strftime('%Y-%m-%d')} by `python bench/bench_scanner.py` on "
            f"{machine()}, shared with up to 8 other jobs: every figure is well above a quiet "
            "machine's and moves by tens of milliseconds between runs. Old and new alternate "
            "run by run (medians of "
            f"{args.runs}); the old side runs a copy of the package with bench/old_secrets.py "
            "as sanitize/secrets.py, first on PYTHONPATH, hooks included.",
            "",
            "| what | old | new | difference |",
            "| --- | ---: | ---: | ---: |",
            *lines,
        ])
        update_section("scanner", body)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

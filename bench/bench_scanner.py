#!/usr/bin/env python3
"""Cost of the secret scanner (issue #11 point 6), new against old in the same run.

The old scanner is bench/old_secrets.py (the 24-rule sanitize/secrets.py before #11).
For the old side the benchmark builds a copy of the package with that file in place
of sanitize/secrets.py and puts it first on PYTHONPATH, so every process (the hooks
included) runs the old code; the new side runs the checkout as installed.

    python bench/bench_scanner.py [--runs 41] [--entries 100000] [--no-import]
                                  [--hooks-only] [--write-docs]

Measures, alternating old and new run by run so both see the same machine noise, the
median wall time and the median CPU time of the process tree (user + sys of the
finished children, from getrusage(RUSAGE_CHILDREN) around each run: far less moved
by other jobs on a loaded machine than the wall time):
  - the installed commit-msg hook alone (`.git/hooks/commit-msg FILE`, the shim and
    whatever it starts) on four messages of 3 markers each: one neither side's grep
    hints at (no Python starts), one with assignments whose values are a word and a
    variable (`auth_mode=oauth`, `token=${CI_TOKEN}`: neither starts Python), one with
    a number under a token-like name (`api_key_ttl=3600`: until session 7 the new grep
    hinted at it and started Python; digits alone under such a name are never a token,
    so neither starts Python now), one both must look at (a non-ASCII character: both start Python);
  - a real `git commit` (commit-msg + post-commit capture) with the first and last;
  - import of sanitize.secrets in a fresh interpreter;
  - find_secret over the texts of a 100k-entry corpus (../shared/tools/make_corpus.py)
    and the 1,870 til notes, in process (total seconds, microseconds per text);
  - `git memory import` of the 100k-entry corpus, once each (budget: within 10%).
The load average is printed before and after (and written with the figures).
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
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
    # install renders the shim from `secrets_shim`: the old scanner's ERE, as it was
    (sanitize / "secrets_shim.py").write_text(
        "from git_memory.sanitize.secrets import SHIM_HINTS\n\n\n"
        "def shim_hints() -> str:\n    return SHIM_HINTS\n", encoding="utf-8")
    return target


Sample = tuple[float, float]  # (wall seconds, CPU seconds of the process tree)


def timed(cmd: list[str], cwd: Path, env: dict[str, str], stdin: str | None = None,
          ok: tuple[int, ...] = (0,)) -> Sample:
    """Wall time and CPU time (user + sys of the child and everything it waited for)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    result = subprocess.run(cmd, cwd=cwd, env=env, input=stdin, capture_output=True, text=True)
    elapsed = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if result.returncode not in ok:
        raise SystemExit(f"{' '.join(cmd)} failed: {result.stderr[:400]}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return elapsed, cpu


@dataclass
class Pair:
    """Medians, in milliseconds, of old and new runs taken turn about."""

    old_wall: float
    new_wall: float
    old_cpu: float
    new_cpu: float
    runs: int

    def row(self, label: str) -> str:
        return (f"| {label} | {self.old_wall:.1f} ms | {self.new_wall:.1f} ms "
                f"| {self.new_wall - self.old_wall:+.1f} ms | {self.old_cpu:.1f} ms "
                f"| {self.new_cpu:.1f} ms | {self.new_cpu - self.old_cpu:+.1f} ms |")


def alternate(runs: int, old: Callable[[int], Sample], new: Callable[[int], Sample]) -> Pair:
    """Old and new run turn about (which goes first alternates too) after one warm-up
    each; the medians of each side's wall and CPU times."""
    old(-1)
    new(-1)
    a: list[Sample] = []
    b: list[Sample] = []
    for i in range(runs):
        if i % 2:
            b.append(new(i))
            a.append(old(i))
        else:
            a.append(old(i))
            b.append(new(i))

    def med(samples: list[Sample], k: int) -> float:
        return statistics.median(s[k] for s in samples) * 1000

    return Pair(med(a, 0), med(b, 0), med(a, 1), med(b, 1), runs)


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


# Three messages of 3 markers each (`i` keeps every message new).
def plain(i: int) -> str:
    """Neither side's grep hints at a secret: commit-msg starts no Python."""
    return (f"Parser work {i}\n\nLEARNED: parser run {i} needs a warm cache\n"
            f"DECISION: keep the run {i} cache in memory\nFact: run {i} took 3 passes\n")


def word_value(i: int) -> str:
    """Shaped like assignments to secret-like names, but one value is a word and the
    other a variable: neither grep hints (the old one knows only token prefixes)."""
    return (f"Auth work {i}\n\nLEARNED: set auth_mode=oauth for run {i}, the keyring does the rest\n"
            f"DECISION: CI reads token=${{CI_TOKEN}} on run {i}, never a file\n"
            f"Fact: run {i} took 3 passes\n")


def number_value(i: int) -> str:
    """`api_key_ttl=3600`: a number under a token-like name, which the scanner never
    refuses (digits alone are not a generated token), so the grep need not hint at it."""
    return (f"Cache work {i}\n\nLEARNED: set api_key_ttl=3600 for run {i} in staging\n"
            f"DECISION: keep the run {i} cache in memory\nFact: run {i} took 3 passes\n")


def non_ascii(i: int) -> str:
    """A non-ASCII character (`é`) could be a look-alike hiding a token: both sides'
    commit-msg start Python and scan the three markers."""
    return (f"Parser work {i}\n\nLEARNED: the café parser run {i} needs a warm cache\n"
            f"DECISION: keep the run {i} cache in memory\nFact: run {i} took 3 passes\n")


MESSAGES: tuple[tuple[str, Callable[[int], str]], ...] = (
    ("no hint: no Python on either side", plain),
    ("`auth_mode=oauth`, `token=${CI_TOKEN}`: no Python on either side", word_value),
    ("`api_key_ttl=3600`: no Python on either side", number_value),
    ("non-ASCII: both start Python", non_ascii),
)


def load() -> str:
    one, five, fifteen = os.getloadavg()
    return f"{one:.1f} / {five:.1f} / {fifteen:.1f}"


def hook_rows(base: Path, env_old: dict[str, str], env_new: dict[str, str], runs: int,
              say: Callable[[str], None]) -> None:
    """The commit-msg hook alone, then whole commits."""
    repo_old, repo_new = base / "hooked-old", base / "hooked-new"
    hooked_repo(repo_old, env_old)
    hooked_repo(repo_new, env_new)

    def hook(repo: Path, env: dict[str, str], message: str) -> Sample:
        path = repo / ".git" / "BENCH_MSG"
        path.write_text(message, encoding="utf-8")
        return timed([str(repo / ".git" / "hooks" / "commit-msg"), str(path)], repo, env)

    for label, make in MESSAGES:
        pair = alternate(runs, lambda i: hook(repo_old, env_old, make(i)),
                         lambda i: hook(repo_new, env_new, make(i)))
        say(pair.row(f"commit-msg hook, 3 markers, {label}"))

    counter = [0]

    def commit(repo: Path, env: dict[str, str], message: str) -> Sample:
        counter[0] += 1
        (repo / "work.txt").write_text(f"change {counter[0]}\n")
        timed(["git", "add", "work.txt"], repo, env)
        return timed(["git", "commit", "-q", "-F", "-"], repo, env, stdin=message)

    for label, make in (MESSAGES[0], MESSAGES[3]):
        pair = alternate(runs, lambda i: commit(repo_old, env_old, make(i)),
                         lambda i: commit(repo_new, env_new, make(i)))
        say(pair.row(f"`git commit` (commit-msg + post-commit), 3 markers, {label}"))


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--runs", type=int, default=41)
    ap.add_argument("--entries", type=int, default=100_000)
    ap.add_argument("--no-import", action="store_true", help="skip the 100k import")
    ap.add_argument("--hooks-only", action="store_true",
                    help="only the commit-msg hook and commit rows")
    ap.add_argument("--new-package", metavar="DIR", default="",
                    help="run the new side from DIR/git_memory (first on PYTHONPATH), e.g. an "
                         "export of another commit, for a before/after of the new scanner")
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

    started, load_before = time.strftime("%Y-%m-%d %H:%M", time.gmtime()), load()
    print(f"load average (1/5/15 min) {load_before}", flush=True)
    with scratch() as tmp:
        base = Path(tmp)
        old_path = str(old_package(base))
        env_new = isolated_env(base / "home")
        env_new.pop("PYTHONPATH", None)
        if args.new_package:
            env_new["PYTHONPATH"] = str(Path(args.new_package).resolve())
        env_old = {**env_new, "PYTHONPATH": old_path}

        hook_rows(base, env_old, env_new, args.runs, say)

        if not args.hooks_only:
            imp = [sys.executable, "-c", "import git_memory.sanitize.secrets"]
            pair = alternate(args.runs, lambda i: timed(imp, base, env_old),
                             lambda i: timed(imp, base, env_new))
            say(pair.row("import sanitize.secrets (fresh interpreter)"))
            corpus_rows(base, old_path, env_old, env_new, args, say)
    finished, load_after = time.strftime("%H:%M", time.gmtime()), load()
    print(f"load average (1/5/15 min) {load_after}", flush=True)

    if args.write_docs:
        body = "\n".join([
            "## Secret scanner: old (24 rules) against new (issue #11)",
            "",
            f"Measured {started}-{finished} UTC by `python bench/bench_scanner.py "
            f"--runs {args.runs}{' --hooks-only' if args.hooks_only else ''}` on {machine()}, "
            f"shared with up to 8 other jobs; load average (1/5/15 min) {load_before} before, "
            f"{load_after} after. Old and new alternate run by run (medians of {args.runs} "
            "each, after one warm-up); the old side runs a copy of the package with "
            "bench/old_secrets.py as sanitize/secrets.py, first on PYTHONPATH, hooks included. "
            "CPU is user + sys of the whole process tree (the shim, grep, Python), from "
            "getrusage(RUSAGE_CHILDREN) around each run: on this machine the wall time moves "
            "by tens of milliseconds with the other jobs, the CPU time far less.",
            "",
            "| what | old, wall | new, wall | difference | old, CPU | new, CPU | difference |",
            "| --- | ---: | ---: | ---: | ---: | ---: | ---: |",
            *lines,
        ])
        update_section("scanner", body)
    return 0


def corpus_rows(base: Path, old_path: str, env_old: dict[str, str], env_new: dict[str, str],
                args: argparse.Namespace, say: Callable[[str], None]) -> None:
    """find_secret over a generated corpus and the til notes; the 100k import."""
    corpus = base / "corpus.jsonl"
    make_corpus(args.entries, corpus)
    contents = [json.loads(line)["content"] for line in corpus.open(encoding="utf-8")]
    notes = [json.loads(line) for line in TIL.open(encoding="utf-8")]
    til = [f"{note['title']}\n\n{note['body']}" for note in notes]
    for label, texts in ((f"find_secret over {len(contents):,} corpus entries", contents),
                         (f"find_secret over {len(til):,} til notes", til)):
        so = scan_texts(texts, old_path)
        sn = scan_texts(texts, str(Path(args.new_package).resolve()) if args.new_package else None)
        say(f"| {label} | {so:.2f} s ({so / len(texts) * 1e6:.0f} µs each) "
            f"| {sn:.2f} s ({sn / len(texts) * 1e6:.0f} µs each) | {sn - so:+.2f} s | | | |")
    if args.no_import:
        return
    results = {}
    for side, env in (("old", env_old), ("new", env_new)):
        repo = base / f"import-{side}"
        repo.mkdir()
        timed(["git", "init", "-q"], repo, env)
        results[side] = timed(["git", "memory", "import", str(corpus)], repo, env)
    (ow, oc), (nw, nc) = results["old"], results["new"]
    say(f"| `git memory import` of {args.entries:,} entries (once each) | {ow:.1f} s | {nw:.1f} s "
        f"| {(nw - ow) / ow:+.1%} | {oc:.1f} s | {nc:.1f} s | {(nc - oc) / oc:+.1%} |")


if __name__ == "__main__":
    raise SystemExit(main())

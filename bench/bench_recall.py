#!/usr/bin/env python3
"""Recall benchmarks: latency at 1k / 10k / 100k entries, first recall after an add,
peak memory, full reindex, import, each beside baselines measured in the same run.

    python bench/bench_recall.py [--sizes 1000,10000,100000] [--runs 15] [--write-docs] [--semantic]

For each size: `../shared/tools/make_corpus.py N corpus.jsonl --sqlite base.db`, a fresh
repository, `git memory import --format jsonl` (timed, index included: the first recall
after it brings the index up to date and is timed with it), then whole processes the way
a user meets them: warm `git memory recall QUERY` against `sqlite3 base.db <the same
OR-of-terms FTS5 BM25 query>` and `python -c pass`, interleaved, medians after a warm-up;
first recall after one `git memory add`; peak RSS (wait4) of recall; `git memory reindex`.
With --write-docs the table replaces the Recall section of docs/benchmarks.md. With --semantic
the install has the [semantic] extra (so semantic ranking is on) and every size also times
the same recall with `memory.semantic false` (through GIT_CONFIG_GLOBAL), interleaved.
"""

from __future__ import annotations

import argparse
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from common import ROOT, shared_dir  # noqa: E402

QUERY = "postgres timezone configuration"
SQL = (
    "SELECT k.key, k.content FROM knowledge_fts JOIN knowledge k ON k.rowid = knowledge_fts.rowid"
    " WHERE knowledge_fts MATCH '\"postgres\" OR \"timezone\" OR \"configuration\"'"
    " ORDER BY bm25(knowledge_fts, 10.0, 5.0) LIMIT 10"
)
GM = str(Path(sys.executable).with_name("git-memory"))  # replaced by install() unless --editable
ENV = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}


def install(where: Path, extra: str = "") -> str:
    """A fresh venv with a regular (non-editable, byte-compiled) install, as users get it."""
    subprocess.run([sys.executable, "-m", "venv", str(where)], check=True)
    subprocess.run([str(where / "bin" / "pip"), "install", "-q", f"{ROOT}{extra}"], check=True,
                   env=ENV, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return str(where / "bin" / "git-memory")


LAST_CPU = [0.0]  # CPU seconds (user + system) of the last process `timed` ran


def timed(cmd: list[str], cwd: Path, env: dict[str, str] | None = None) -> tuple[float, int]:
    """Wall seconds and peak RSS (KiB) of one process (its CPU seconds in LAST_CPU)."""
    started = time.perf_counter()
    proc = subprocess.Popen(cmd, cwd=cwd, env=env or ENV, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _, status, usage = os.wait4(proc.pid, 0)
    elapsed = time.perf_counter() - started
    if os.waitstatus_to_exitcode(status) != 0:
        raise SystemExit(f"failed: {' '.join(cmd)}")
    LAST_CPU[0] = usage.ru_utime + usage.ru_stime
    return elapsed, usage.ru_maxrss


def median_ms(values: list[float]) -> float:
    return 1000 * statistics.median(values)


def bench_size(n: int, runs: int, work: Path, semantic: bool = False,
               given: tuple[Path, Path] | None = None) -> dict[str, float]:
    """One size; `given` (repository, sqlite3 baseline DB) skips the import and the reindex."""
    folder = work / f"n{n}"
    folder.mkdir()
    if given:
        repo, base = given
        imp = first = float("nan")
    else:
        corpus, base = folder / "corpus.jsonl", folder / "base.db"
        subprocess.run([sys.executable, str(shared_dir() / "tools" / "make_corpus.py"), str(n),
                        str(corpus), "--sqlite", str(base)], check=True, capture_output=True)
        repo = folder / "repo"
        subprocess.run(["git", "init", "-q", str(repo)], check=True)
        for key, value in (("user.name", "Bench"), ("user.email", "bench@example.com")):
            subprocess.run(["git", "-C", str(repo), "config", key, value], check=True)
        imp, _ = timed([GM, "import", "--format", "jsonl", str(corpus)], repo)
        first, _ = timed([GM, "recall", QUERY], repo)
    commands = {
        "recall": [GM, "recall", QUERY],
        "sqlite": ["sqlite3", str(base), SQL],
        "python": [str(Path(GM).with_name("python")), "-c", "pass"],
    }
    envs = {name: ENV for name in commands}
    if semantic:  # the same recall with semantic ranking switched off, by git config
        off = folder / "gitconfig-off"
        off.write_text("[memory]\n\tsemantic = false\n", encoding="utf-8")
        commands["recall_off"] = commands["recall"]
        envs["recall_off"] = {**ENV, "GIT_CONFIG_GLOBAL": str(off)}
    samples: dict[str, list[float]] = {name: [] for name in commands}
    cpu: dict[str, list[float]] = {name: [] for name in commands}
    rss: dict[str, list[int]] = {"recall": [], "recall_off": []}
    for turn in range(runs + 2):
        for name, cmd in commands.items():
            elapsed, peak = timed(cmd, repo, envs[name])
            if turn >= 2:  # warm-up
                samples[name].append(elapsed)
                cpu[name].append(LAST_CPU[0])
                if name in rss:
                    rss[name].append(peak)
    after_add: list[float] = []
    warm_again: list[float] = []
    for turn in range(max(3, runs // 3)):
        timed([GM, "add", f"LEARNED: benchmark note {turn} {time.time()} about caching"], repo)
        after_add.append(timed([GM, "recall", QUERY], repo)[0])
        warm_again.append(timed([GM, "recall", QUERY], repo)[0])
    reindex, reindex_rss = (float("nan"), 0) if given else timed([GM, "reindex"], repo)
    return {
        "n": n, "import_s": imp, "first_recall_after_import_s": first,
        "recall_ms": median_ms(samples["recall"]), "sqlite_ms": median_ms(samples["sqlite"]),
        "python_ms": median_ms(samples["python"]),
        "after_add_ms": median_ms(after_add), "warm_again_ms": median_ms(warm_again),
        "rss_mib": max(rss["recall"]) / 1024, "reindex_s": reindex, "reindex_rss_mib": reindex_rss / 1024,
        **({"off_ms": median_ms(samples["recall_off"]), "off_rss_mib": max(rss["recall_off"]) / 1024,
            "cpu_ms": median_ms(cpu["recall"]), "off_cpu_ms": median_ms(cpu["recall_off"])}
           if semantic else {}),
    }


def table(results: list[dict[str, float]]) -> str:
    lines = [
        "| entries | warm recall (median) | sqlite3 CLI baseline | ratio (budget 2.5x) | python -c pass |"
        " first recall after one add | extra over warm (budget +100 ms) | peak RSS of recall (budget 80 MiB) |"
        " full reindex (budget 15 s at 100k) | import (index included) |",
        "| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |",
    ]
    for r in results:
        lines.append(
            f"| {r['n']:,} | {r['recall_ms']:.1f} ms | {r['sqlite_ms']:.1f} ms |"
            f" {r['recall_ms'] / r['sqlite_ms']:.2f}x | {r['python_ms']:.1f} ms |"
            f" {r['after_add_ms']:.1f} ms | {r['after_add_ms'] - r['warm_again_ms']:+.1f} ms |"
            f" {r['rss_mib']:.1f} MiB | {r['reindex_s']:.1f} s ({r['reindex_rss_mib']:.0f} MiB) |"
            f" {r['import_s'] + r['first_recall_after_import_s']:.1f} s |"
        )
    if any("off_ms" in r for r in results):
        lines += [
            "",
            "Semantic ranking (the `[semantic]` extra installed: on by default) against the same"
            " recall with `memory.semantic false`, interleaved in the same run:",
            "",
            "| entries | recall, semantic off | semantic on | added (budget +10 ms) | off / sqlite3 CLI"
            " (budget 2.2x) | CPU time off | on | added | peak RSS off | on | added (budget +20 MiB) |",
            "| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |",
        ]
        for r in results:
            lines.append(
                f"| {r['n']:,} | {r['off_ms']:.1f} ms | {r['recall_ms']:.1f} ms |"
                f" {r['recall_ms'] - r['off_ms']:+.1f} ms | {r['off_ms'] / r['sqlite_ms']:.2f}x |"
                f" {r['off_cpu_ms']:.1f} ms | {r['cpu_ms']:.1f} ms | {r['cpu_ms'] - r['off_cpu_ms']:+.1f} ms |"
                f" {r['off_rss_mib']:.1f} MiB | {r['rss_mib']:.1f} MiB |"
                f" {r['rss_mib'] - r['off_rss_mib']:+.1f} MiB |"
            )
    return "\n".join(lines)


def quality() -> str:
    """MRR from the per-query file recall_eval.py wrote (never a hand-copied figure)."""
    path = ROOT / "bench" / "results" / "til_per_query.jsonl"
    if not path.exists():
        return ""
    import json

    rows = [json.loads(line) for line in path.open(encoding="utf-8")]
    n = len(rows)
    mrr = sum(1 / r["rank"] for r in rows if r["rank"]) / n
    r1 = sum(1 for r in rows if r["rank"] == 1) / n
    r5 = sum(1 for r in rows if r["rank"] and r["rank"] <= 5) / n
    return (
        "\n\nQuality, from `bench/results/til_per_query.jsonl` (written by `python"
        " ../shared/tools/recall_eval.py til --cmd \"$PWD/.venv/bin/git-memory\" --per-query"
        f" bench/results/til_per_query.jsonl`): MRR@10 {mrr:.3f}, R@1 {r1:.3f}, R@5 {r5:.3f},"
        f" n={n} (goal 0.90; plain FTS5 BM25 over the body 0.869, Lavra's recipe 0.693)."
        " Details and the paraphrase set: docs/recall.md.\n"
    )


def machine() -> str:
    mem = ""
    try:
        kib = int(Path("/proc/meminfo").read_text().split()[1])
        mem = f", {kib / 1024 / 1024:.0f} GiB"
    except (OSError, ValueError, IndexError):
        pass
    return f"{os.cpu_count()} cores{mem}, {platform.system()} {platform.release()}, Python {platform.python_version()}"


def write_docs(text: str) -> None:
    path = ROOT / "docs" / "benchmarks.md"
    current = path.read_text(encoding="utf-8") if path.exists() else "# Benchmarks\n"
    start = current.find("## Recall")
    if start < 0:
        current = current.rstrip("\n") + "\n\n" + text
    else:
        end = current.find("\n## ", start + 1)
        current = current[:start] + text + (current[end + 1:] if end >= 0 else "")
    path.write_text(current.rstrip("\n") + "\n", encoding="utf-8")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--sizes", default="1000,10000,100000")
    ap.add_argument("--runs", type=int, default=15)
    ap.add_argument("--write-docs", action="store_true")
    ap.add_argument("--editable", action="store_true", help="use this venv's git-memory as it is")
    ap.add_argument("--semantic", action="store_true",
                    help="install the [semantic] extra; time recall with it on and off")
    ap.add_argument("--repo", type=Path,
                    help="an imported repository (a copy: `add` writes to it); one size, no import or reindex")
    ap.add_argument("--baseline-db", type=Path, help="with --repo: make_corpus.py's sqlite3 DB of the same corpus")
    args = ap.parse_args()
    global GM
    if not shutil.which("sqlite3"):
        raise SystemExit("the sqlite3 command-line tool is needed for the baseline")
    results = []
    with tempfile.TemporaryDirectory(prefix="gm-bench-") as tmp:
        if not args.editable:
            GM = install(Path(tmp) / "venv", "[semantic]" if args.semantic else "")
        for n in (int(x) for x in args.sizes.split(",")):
            given = (args.repo.resolve(), args.baseline_db.resolve()) if args.repo else None
            result = bench_size(n, args.runs, Path(tmp), args.semantic, given)
            results.append(result)
            print({k: round(v, 2) for k, v in result.items()}, flush=True)
    body = table(results)
    print(body)
    if args.write_docs:
        write_docs(
            "## Recall\n\n"
            f"Produced by `python bench/bench_recall.py --write-docs` on {time.strftime('%Y-%m-%d')};"
            f" machine: {machine()}, shared with other jobs (figures are noisy; ratios are"
            " measured in the same run, interleaved). Whole processes as a user runs them:"
            f" `git memory recall \"{QUERY}\"` against the `sqlite3` command-line tool running"
            " the OR-of-terms FTS5 BM25 query that `make_corpus.py --sqlite` prints, on the same"
            f" entries; medians of {args.runs} runs after 2 warm-up runs. git-memory is installed"
            " with pip into a fresh venv (regular install, byte-compiled). Peak RSS from wait4."
            " \"First recall after one add\" is the median over several rounds of"
            " `git memory add` then `recall` (the index catches up by tree diff); \"extra\" is"
            " against a warm recall in the same rounds. Import is `git memory import --format"
            " jsonl` plus the first recall after it (which indexes the import).\n\n"
            + body + "\n" + quality()
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())

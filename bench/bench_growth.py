"""The growth table (issue #16 point 5): every step a user waits on, at several memory sizes.

    python bench/bench_growth.py --sizes 10000 100000 [--write-docs]
    python bench/bench_growth.py --sizes 1000000 --write-docs    # adds its row, unattended

For each size N, one run of each step, whole `git memory` processes as a user runs
them (the venv's `git-memory` first on PATH, an isolated HOME and git config,
`memory.semantic false`):

- import: `git memory import --format jsonl cN.jsonl` into a fresh repository (the
  index built as part of it);
- reindex: `git memory reindex` (a full build from the branch);
- warm recall: the median of `--runs` recalls of the baseline's words, interleaved with
  the sqlite3 CLI running the baseline query (`cN.baseline.txt`) on `cN.sqlite`, the
  same entries in a plain FTS5 table;
- add: the median of `--runs` adds (each pays the index catch-up of the one before);
- sync: `git memory sync` pushing the whole memory to a new bare remote;
- fresh-clone first recall: `git clone` of that remote, then one recall with stderr on a
  pseudo-terminal (does it show progress while the index builds?);
- sync of one new entry: the first repository adds one and syncs, then the clone syncs;
- curate: `git memory curate --dry-run --json`;
- sizes: the index file, the pack (`git count-objects -v`).

Each step is timed by wait4 on its process: wall time, CPU time (user + system of the
process and every process it waited for) and peak RSS (of the largest of them). The
machine is shared, so the load average is printed before each step and stored with the
row. The corpus is `--corpus DIR/cN.jsonl` (default /work/corpus; made with
../shared/tools/make_corpus.py when missing). Rows are kept in
bench/results/growth.json by size, so a later run of one size adds or replaces its
row; the table is printed, and written to docs/benchmarks.md with `--write-docs`.
"""

from __future__ import annotations

import argparse
import json
import os
import pty
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from datetime import datetime, timezone
from pathlib import Path

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import ROOT, isolated_env, machine, make_corpus, update_section  # noqa: E402

sys.path.insert(0, str(ROOT / "tests"))
from ptyread import drain  # noqa: E402

RESULTS = ROOT / "bench" / "results" / "growth.json"
DEFAULT_CORPUS = Path("/work/corpus")


def load() -> str:
    return " ".join(f"{x:.2f}" for x in os.getloadavg())


def timed(cmd: list[str], cwd: Path, env: dict[str, str], tty: bool = False,
          ok: tuple[int, ...] = (0,)) -> dict[str, object]:
    """One process, reaped by wait4: wall seconds, CPU seconds (user + system, its waited-
    for children included: `git memory` is git starting our script), peak RSS in MiB
    (the largest of them); with `tty`, stderr on a pseudo-terminal, its text in `shown`."""
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        leader = follower = -1
        if tty:
            leader, follower = pty.openpty()
        started = time.perf_counter()
        proc = subprocess.Popen(cmd, cwd=cwd, env=env, stdout=out,
                                stderr=follower if tty else err)
        shown = b""
        if tty:
            os.close(follower)
            shown = drain(leader)
            os.close(leader)
        _, status, usage = os.wait4(proc.pid, 0)
        wall = time.perf_counter() - started
        proc.returncode = os.waitstatus_to_exitcode(status)
        out.seek(0)
        err.seek(0)
        stdout, stderr = out.read(), err.read()
    if proc.returncode not in ok:
        raise RuntimeError(f"{' '.join(cmd)} exited {proc.returncode}: "
                           f"{(stderr or shown).decode(errors='replace')[-800:]}")
    return {"wall": wall, "cpu": usage.ru_utime + usage.ru_stime, "rss": usage.ru_maxrss / 1024,
            "out": stdout.decode("utf-8", "replace"), "shown": shown.decode("utf-8", "replace")}


def git(args: list[str], cwd: Path, env: dict[str, str]) -> str:
    return subprocess.run(["git", *args], cwd=cwd, env=env, check=True,
                          capture_output=True, text=True).stdout


def baseline(corpus: Path, size: int) -> tuple[Path, str, list[str]]:
    """The sqlite3 database, its query, and the query's words (for recall)."""
    text = (corpus / f"c{size}.baseline.txt").read_text(encoding="utf-8")
    sql = re.search(r'sqlite3 \S+ "(.*)"\s*$', text.splitlines()[0]).group(1)  # type: ignore[union-attr]
    sql = sql.replace('\\"', '"')
    words = re.findall(r'\\?"(\w+)\\?"', text.split("MATCH", 1)[1].split("ORDER BY")[0])
    return corpus / f"c{size}.sqlite", sql, words


def ensure_corpus(corpus: Path, size: int, work: Path) -> Path:
    if (corpus / f"c{size}.jsonl").is_file() and (corpus / f"c{size}.baseline.txt").is_file():
        return corpus
    print(f"  making a corpus of {size} in {work}", flush=True)
    printed = make_corpus(size, work / f"c{size}.jsonl", work / f"c{size}.sqlite")
    (work / f"c{size}.baseline.txt").write_text(printed, encoding="utf-8")
    return work


def step(row: dict[str, object], name: str, result: dict[str, object]) -> dict[str, object]:
    row[name] = {k: result[k] for k in ("wall", "cpu", "rss") if k in result}
    print(f"  {name}: {fmt_s(result['wall'])} wall, {fmt_s(result['cpu'])} CPU,"
          f" {fmt_mib(result['rss'])}  (load {load()})", flush=True)
    return result


def medians(fn_a, fn_b, runs: int) -> tuple[list[dict[str, object]], list[dict[str, object]]]:
    fn_a(), fn_b()  # warm-up
    a, b = [], []
    for _ in range(runs):
        a.append(fn_a())
        b.append(fn_b())
    return a, b


def med(results: list[dict[str, object]]) -> dict[str, object]:
    return {k: statistics.median(float(r[k]) for r in results)  # type: ignore[arg-type]
            for k in ("wall", "cpu", "rss") if all(r.get(k) is not None for r in results)}


def measure(size: int, corpus: Path, work: Path, runs: int, env: dict[str, str]) -> dict[str, object]:
    corpus = ensure_corpus(corpus, size, work)
    db, sql, words = baseline(corpus, size)
    row: dict[str, object] = {"size": size, "date": datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
                              "load_start": load()}
    repo = work / "a"
    repo.mkdir()
    git(["init", "-q"], repo, env)
    git(["commit", "-q", "--allow-empty", "-m", "init"], repo, env)
    git(["config", "memory.semantic", "false"], repo, env)
    print(f"size {size}: {datetime.now(timezone.utc):%H:%M:%S} UTC, load {load()}", flush=True)
    step(row, "import", timed(["git", "memory", "import", "--format", "jsonl",
                               str(corpus / f"c{size}.jsonl")], repo, env))
    step(row, "reindex", timed(["git", "memory", "reindex"], repo, env))

    recall = ["git", "memory", "recall", *words]
    sqlite = ["sqlite3", str(db), sql]
    ours, theirs = medians(lambda: timed(recall, repo, env), lambda: timed(sqlite, repo, env), runs)
    row["recall"], row["sqlite3"] = med(ours), med(theirs)
    print(f"  recall median {fmt_s(row['recall']['wall'])}, sqlite3 CLI {fmt_s(row['sqlite3']['wall'])}"  # type: ignore[index]
          f" (load {load()})", flush=True)
    counter = iter(range(10**6))
    adds = [timed(["git", "memory", "add", "--type", "fact",
                   f"growth probe {size} number {next(counter)} {time.time_ns()}"], repo, env)
            for _ in range(runs + 1)][1:]
    row["add"] = med(adds)
    print(f"  add median {fmt_s(row['add']['wall'])} wall, {fmt_s(row['add']['cpu'])} CPU"  # type: ignore[index]
          f" (load {load()})", flush=True)

    remote = work / "remote.git"
    git(["init", "-q", "--bare", str(remote)], work, env)
    # file:// makes git use its pack transport, as over a network (a plain path hard-links).
    git(["remote", "add", "origin", remote.as_uri()], repo, env)
    step(row, "sync_push_all", timed(["git", "memory", "sync", "origin"], repo, env))
    clone = work / "b"
    step(row, "clone", timed(["git", "clone", "-q", remote.as_uri(), str(clone)], work, env))
    git(["config", "memory.semantic", "false"], clone, env)
    first = step(row, "clone_first_recall", timed(recall, clone, env, tty=True))
    row["clone_first_recall"]["progress_shown"] = bool(  # type: ignore[index]
        re.search(r"(indexing|index)[^\n]*\d", str(first["shown"])))
    timed(["git", "memory", "add", "--type", "fact", f"growth sync probe {time.time_ns()}"], repo, env)
    step(row, "sync_one_a", timed(["git", "memory", "sync", "origin"], repo, env))
    step(row, "sync_one_b", timed(["git", "memory", "sync", "origin"], clone, env))
    curate = step(row, "curate", timed(["git", "memory", "curate", "--dry-run", "--json"], repo, env,
                                       ok=(0, 1)))
    try:
        changes = json.loads(str(curate["out"])).get("changes")
        row["curate"]["proposals"] = len(changes) if isinstance(changes, list) else changes  # type: ignore[index]
    except (ValueError, AttributeError):
        pass
    index = repo / ".git" / "git-memory" / "index.sqlite"
    row["index_bytes"] = index.stat().st_size if index.exists() else None
    counts = dict(line.split(": ", 1) for line in git(["count-objects", "-v"], repo, env).splitlines())
    row["pack_bytes"] = int(counts.get("size-pack", "0")) * 1024
    row["load_end"] = load()
    print(f"  index {fmt_bytes(row['index_bytes'])}, pack {fmt_bytes(row['pack_bytes'])},"
          f" load {load()}", flush=True)
    return row


def fmt_s(value: object) -> str:
    if value is None:
        return "-"
    secs = float(value)  # type: ignore[arg-type]
    return f"{secs * 1000:.0f} ms" if secs < 1 else f"{secs:.1f} s"


def fmt_mib(value: object) -> str:
    return "-" if value is None else f"{float(value):.0f} MiB"  # type: ignore[arg-type]


def fmt_bytes(value: object) -> str:
    if value is None:
        return "-"
    mib = int(value) / 1024 / 1024  # type: ignore[call-overload]
    return f"{mib:.0f} MiB" if mib >= 10 else f"{mib:.1f} MiB"


STEPS = [
    ("import", "import (fresh repository, index included)"),
    ("reindex", "reindex (full build)"),
    ("recall", "warm recall (median)"),
    ("sqlite3", "sqlite3 CLI baseline (median)"),
    ("add", "add (median)"),
    ("sync_push_all", "sync: first push of the whole memory"),
    ("clone", "`git clone` of the remote"),
    ("clone_first_recall", "first recall in the fresh clone"),
    ("sync_one_a", "sync of one new entry (pushing clone)"),
    ("sync_one_b", "sync of one new entry (other clone)"),
    ("curate", "curate --dry-run"),
]


def _short(size: object) -> str:
    """10000 -> '10k', 1000000 -> '1M': the ratio columns' names."""
    n = int(str(size))
    return f"{n // 1000000}M" if n % 1000000 == 0 else f"{n // 1000}k" if n % 1000 == 0 else str(n)


def table(rows: list[dict[str, object]]) -> str:
    sizes = [r["size"] for r in rows]
    head = "| step | " + " | ".join(f"{int(s):,}: wall / CPU / peak" for s in sizes) + " |"
    if len(rows) > 1:
        head += " " + " | ".join(f"CPU, {_short(a['size'])} to {_short(b['size'])}"
                                 for a, b in zip(rows, rows[1:])) + " |"
    lines = [head, "| --- |" + " ---: |" * (len(rows) + max(0, len(rows) - 1))]
    for key, label in STEPS:
        cells = []
        for r in rows:
            m = r.get(key) or {}
            cells.append(f"{fmt_s(m.get('wall'))} / {fmt_s(m.get('cpu'))} / {fmt_mib(m.get('rss'))}")  # type: ignore[union-attr]
        ratios = []
        for a, b in zip(rows, rows[1:]):
            ca, cb = (a.get(key) or {}).get("cpu"), (b.get(key) or {}).get("cpu")  # type: ignore[union-attr]
            ratios.append(f"{cb / ca:.2f}x" if ca and cb else "-")
        lines.append(f"| {label} | " + " | ".join(cells) + (" | " + " | ".join(ratios) if ratios else "") + " |")
    extra = [
        ("recall / sqlite3 CLI (wall)", lambda r: f"{r['recall']['wall'] / r['sqlite3']['wall']:.2f}x"),
        ("recall / sqlite3 CLI (CPU)", lambda r: f"{r['recall']['cpu'] / r['sqlite3']['cpu']:.2f}x"),
        ("progress shown at the clone's first recall", lambda r: "yes" if r["clone_first_recall"].get("progress_shown") else "no"),
        ("curate: proposed changes", lambda r: str(r["curate"].get("proposals", "-"))),
        ("index size", lambda r: fmt_bytes(r.get("index_bytes"))),
        ("pack size", lambda r: fmt_bytes(r.get("pack_bytes"))),
        ("load average at start / end", lambda r: f"{r['load_start']} / {r['load_end']}"),
        ("measured", lambda r: str(r["date"])),
    ]
    for label, fn in extra:
        cells = []
        for r in rows:
            try:
                cells.append(fn(r))
            except (KeyError, TypeError, ZeroDivisionError):
                cells.append("-")
        lines.append(f"| {label} | " + " | ".join(cells) + (" | " * (len(rows) > 1)) +
                     " | ".join("" for _ in rows[1:]) + " |")
    return "\n".join(lines)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[10000, 100000])
    parser.add_argument("--corpus", type=Path, default=DEFAULT_CORPUS)
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--work", type=Path, default=None, help="scratch folder (default: a temp dir)")
    parser.add_argument("--keep", action="store_true", help="keep the scratch repositories")
    parser.add_argument("--write-docs", action="store_true")
    parser.add_argument("--report", action="store_true",
                        help="measure nothing: the table of the rows stored in growth.json")
    args = parser.parse_args()
    if not shutil.which("sqlite3"):
        raise SystemExit("the sqlite3 command-line tool is needed for the baseline")
    stored = json.loads(RESULTS.read_text()) if RESULTS.exists() else {}
    base = args.work or Path(os.environ.get("TMPDIR", "/tmp")) / f"gm-growth-{os.getpid()}"
    for size in [] if args.report else args.sizes:
        work = base / str(size)
        shutil.rmtree(work, ignore_errors=True)
        work.mkdir(parents=True)
        env = isolated_env(work / "home")
        env.pop("PYTHONDONTWRITEBYTECODE", None)
        try:
            row = measure(size, args.corpus, work, args.runs, env)
        finally:
            if not args.keep:
                shutil.rmtree(work, ignore_errors=True)
        row["machine"] = machine()
        stored[str(size)] = row
        RESULTS.parent.mkdir(parents=True, exist_ok=True)
        RESULTS.write_text(json.dumps(stored, indent=1, sort_keys=True) + "\n")
    rows = [stored[k] for k in sorted(stored, key=int)]
    text = table(rows)
    print(text)
    if args.write_docs:
        update_section("growth", _section(rows, text))
    return 0


def _section(rows: list[dict[str, object]], text: str) -> str:
    machines = sorted({str(r.get("machine", "")) for r in rows})
    return (
        "## Growth: 10k, 100k and 1M entries (issue #16 point 5)\n\n"
        "Produced by `python bench/bench_growth.py --sizes N... --write-docs` (one run of each "
        "step per size; rows of separate runs are kept in bench/results/growth.json) on "
        + "; ".join(machines) + ". Whole `git memory` processes in a fresh repository holding "
        "`make_corpus.py`'s corpus of that size, `memory.semantic false`; each cell is wall time "
        "/ CPU time (user + system of the process and the processes it waited for, from wait4) "
        "/ peak RSS of the largest of them; recall and add are medians. The ratio columns "
        "divide the CPU time of a step at one size by the one before it: under the size ratio "
        "means the step grows slower than the memory.\n\n" + text + "\n"
    )


if __name__ == "__main__":
    sys.exit(main())

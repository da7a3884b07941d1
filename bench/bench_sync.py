#!/usr/bin/env python3
"""Benchmark: `git memory sync` of two clones that each added 1,000 entries to a shared 100k memory.

Budget (shared/spec/performance.md): at most 5 s, shown beside a plain `git fetch` plus
`git push` of the branch carrying the same number of entries, measured in the same run.

Method. One repository imports the corpus (`make_corpus.py N`) and pushes code and memory to
a bare remote; clones A and B of that remote share it. Each round, A and B each import
`--added` new entries (untimed), then we time the whole processes `git memory sync` in A
(push), `git memory sync` in B (fetch A's entries, merge, push) and `git memory sync` in A
again (fetch B's, fast-forward), and check both clones end on the same commit. The
baseline uses a second copy of the remote and clones C and D: C imports `--added` entries,
then we time plain `git push origin git-memory` in C and plain `git fetch origin` in D.
The first round is a warm-up; figures are medians of the rest.

    python bench/bench_sync.py [--entries 100000] [--added 1000] [--rounds 4]
                               [--work DIR] [--write docs/benchmarks.md]
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
# ../shared from the repository root (one level more from a worktree under wt/).
MAKE_CORPUS = next(
    (p / "shared" / "tools" / "make_corpus.py" for p in (ROOT.parent, ROOT.parent.parent)
     if (p / "shared" / "tools" / "make_corpus.py").exists()),
    ROOT.parent / "shared" / "tools" / "make_corpus.py",
)
GM = [str(Path(sys.executable).parent / "git-memory")]


def run(args: list[str], cwd: Path, check: bool = True) -> subprocess.CompletedProcess[str]:
    result = subprocess.run(args, cwd=cwd, capture_output=True, text=True)
    if check and result.returncode != 0:
        raise SystemExit(f"failed: {' '.join(args)} in {cwd}\n{result.stderr}")
    return result


def timed(args: list[str], cwd: Path) -> tuple[float, str]:
    start = time.perf_counter()
    result = run(args, cwd)
    return time.perf_counter() - start, result.stdout


def isolate(work: Path) -> None:
    """Our own git identity and config, nothing from the machine's."""
    config = work / "gitconfig"
    config.write_text(
        "[user]\n\tname = Bench\n\temail = bench@example.com\n[init]\n\tdefaultBranch = main\n",
        encoding="utf-8",
    )
    os.environ.update(GIT_CONFIG_GLOBAL=str(config), GIT_CONFIG_NOSYSTEM="1", LC_ALL="C.UTF-8")
    os.environ["PATH"] = str(Path(sys.executable).parent) + os.pathsep + os.environ["PATH"]


def build_base(work: Path, entries: int) -> tuple[Path, float]:
    """A repository holding `entries` memory entries; returns it and the import time."""
    base = work / "base"
    note = work / "import-seconds.txt"
    if note.exists() and (base / ".git" / "git-memory" / "index.sqlite").exists():
        return base, float(note.read_text())  # built by an earlier run with the same --work
    corpus = work / f"corpus-{entries}.jsonl"
    run([sys.executable, str(MAKE_CORPUS), str(entries), str(corpus)], work)
    base.mkdir()
    run(["git", "init", "-q"], base)
    run(["git", "commit", "-q", "--allow-empty", "-m", "code"], base)
    seconds, _ = timed([*GM, "import", "--format", "jsonl", str(corpus)], base)
    run([*GM, "list", "--limit", "1"], base)  # bring the index up to the tip before copying it
    note.write_text(f"{seconds:.3f}")
    return base, seconds


def make_remote(work: Path, base: Path, name: str) -> Path:
    bare = work / name
    shutil.rmtree(bare, ignore_errors=True)
    run(["git", "init", "-q", "--bare", str(bare)], work)
    run(["git", "push", "-q", str(bare), "main", "git-memory"], base)
    return bare


def make_clone(bare: Path, base: Path, dest: Path) -> Path:
    shutil.rmtree(dest, ignore_errors=True)
    run(["git", "clone", "-q", str(bare), str(dest)], bare.parent)
    # The index is derived data stamped with the tip; copying it saves a 100k rebuild per clone.
    (dest / ".git" / "git-memory").mkdir(parents=True, exist_ok=True)
    shutil.copy(base / ".git" / "git-memory" / "index.sqlite", dest / ".git" / "git-memory")
    return dest


def add_entries(repo: Path, label: str, count: int) -> None:
    path = repo.parent / f"{label}.jsonl"
    with path.open("w", encoding="utf-8") as handle:
        for i in range(count):
            text = f"{label} entry {i}: the deploy script must run migrations before the restart"
            handle.write(json.dumps({"type": "learned", "content": text, "tags": ["bench"]}) + "\n")
    result = run([*GM, "import", "--format", "jsonl", "--json", str(path)], repo)
    assert json.loads(result.stdout)["imported"] == count, result.stdout


def machine() -> str:
    mem = "?"
    try:
        for line in Path("/proc/meminfo").read_text().splitlines():
            if line.startswith("MemTotal:"):
                mem = f"{int(line.split()[1]) / 1024 / 1024:.0f} GiB"
    except OSError:
        pass
    git = run(["git", "--version"], Path.cwd()).stdout.strip()
    return f"{os.cpu_count()} cores, {mem}, {platform.system()} {platform.release()}, " \
        f"Python {platform.python_version()}, {git}"


def bench(work: Path, entries: int, added: int, rounds: int) -> dict:
    isolate(work)
    base, import_s = build_base(work, entries)
    remote = make_remote(work, base, "remote.git")
    a = make_clone(remote, base, work / "a")
    b = make_clone(remote, base, work / "b")
    remote2 = make_remote(work, base, "remote2.git")
    c = make_clone(remote2, base, work / "c")
    d = make_clone(remote2, base, work / "d")
    rows: list[dict] = []
    for r in range(rounds):
        add_entries(a, f"round{r}-a", added)
        add_entries(b, f"round{r}-b", added)
        add_entries(c, f"round{r}-c", added)
        row: dict = {}
        row["sync_a"], out_a = timed([*GM, "sync", "--json"], a)
        row["sync_b"], out_b = timed([*GM, "sync", "--json"], b)
        row["sync_a2"], out_a2 = timed([*GM, "sync", "--json"], a)
        actions = [json.loads(o)["action"] for o in (out_a, out_b, out_a2)]
        assert actions == ["ahead", "merge", "fast-forward"], actions
        tips = {run(["git", "rev-parse", "git-memory"], p).stdout for p in (a, b, remote)}
        assert len(tips) == 1, "clones did not converge"
        row["push"], _ = timed(["git", "push", "-q", "origin", "git-memory"], c)
        row["fetch"], _ = timed(["git", "fetch", "-q", "origin"], d)
        row["both"] = row["sync_a"] + row["sync_b"]
        row["baseline"] = row["push"] + row["fetch"]
        rows.append(row)
        print(f"round {r}: " + ", ".join(f"{k} {v:.2f}s" for k, v in row.items()), flush=True)
    kept = rows[1:] if len(rows) > 1 else rows
    med = {k: statistics.median(row[k] for row in kept) for k in kept[0]}
    return {"entries": entries, "added": added, "rounds": len(kept), "median": med, "rows": rows,
            "import_s": import_s, "machine": machine(),
            "load": " / ".join(f"{x:.1f}" for x in os.getloadavg())}


def markdown(res: dict) -> str:
    m = res["median"]
    n, k = res["entries"], res["added"]
    imp = (f"\nBuilding the shared memory (`git memory import` of {n:,} entries, index included)"
           f" took {res['import_s']:.1f} s when the work directory was made.\n")
    rounds = "\n".join(
        f"| {i} | {r['sync_a']:.2f} | {r['sync_b']:.2f} | {r['sync_a2']:.2f} | {r['both']:.2f}"
        f" | {r['baseline']:.2f} |" for i, r in enumerate(res["rows"]))
    return f"""## Sync

`python bench/bench_sync.py` ({n:,} shared entries, each clone adds {k:,} per round,
median of {res['rounds']} rounds after one warm-up). Machine: {res['machine']}.

Two clones A and B of a bare remote (local `file` transport) that share a {n:,}-entry memory
each import {k:,} new entries; then whole `git memory sync` processes are timed: A pushes its
entries, B fetches them, merges and pushes, A fetches B's and fast-forwards. The baseline, in
the same run on a second copy of the remote, is plain git moving the same amount: `git push
origin git-memory` of {k:,} new entries from clone C plus `git fetch origin` of them into clone D.

| step | median |
| --- | --- |
| `sync` in A (push {k:,} entries) | {m['sync_a']:.2f} s |
| `sync` in B (fetch {k:,}, merge, push) | {m['sync_b']:.2f} s |
| `sync` in A again (fetch {k:,}, fast-forward) | {m['sync_a2']:.2f} s |
| **both clones synced (A + B)** | **{m['both']:.2f} s** (budget 5 s) |
| baseline: plain `git push` + `git fetch` of {k:,} entries | {m['baseline']:.2f} s |
| ratio: B's sync / baseline | {m['sync_b'] / m['baseline']:.2f}x |
| ratio: both syncs / baseline | {m['both'] / m['baseline']:.2f}x |

Every round in seconds (round 0 is the warm-up). Figures rise over the rounds for plain git
and for sync alike; the machine was shared with other jobs (load average {res['load']} at
the end of the run):

| round | sync A | sync B | sync A again | A + B | baseline |
| --- | --- | --- | --- | --- | --- |
{rounds}
{imp}"""


def write_section(doc: Path, section: str) -> None:
    text = doc.read_text(encoding="utf-8") if doc.exists() else (
        "# Benchmarks\n\nFigures printed by the scripts in `bench/`; never edited by hand.\n\n")
    start = text.find("## Sync\n")
    if start < 0:
        text = text.rstrip("\n") + "\n\n" + section
    else:
        end = text.find("\n## ", start + 1)
        text = text[:start] + section + (text[end + 1 :] if end >= 0 else "")
    doc.write_text(text.rstrip("\n") + "\n", encoding="utf-8")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--entries", type=int, default=100_000)
    parser.add_argument("--added", type=int, default=1_000)
    parser.add_argument("--rounds", type=int, default=4)
    parser.add_argument("--work", type=Path, help="keep (and reuse) the repositories here")
    parser.add_argument("--write", type=Path, help="update the Sync section of this Markdown file")
    args = parser.parse_args()
    work = args.work or Path(tempfile.mkdtemp(prefix="bench-sync-"))
    work.mkdir(parents=True, exist_ok=True)
    try:
        res = bench(work.resolve(), args.entries, args.added, args.rounds)
    finally:
        if not args.work:
            shutil.rmtree(work, ignore_errors=True)
    section = markdown(res)
    print(section)
    if args.write:
        write_section(args.write, section)


if __name__ == "__main__":
    main()

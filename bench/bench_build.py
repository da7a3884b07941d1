#!/usr/bin/env python3
"""Index build benchmarks (issue #20 points 1-3, issue #16's fresh-clone first recall).

    python bench/bench_build.py --before DIR [--sizes 100000,1000000] [--corpus /work/corpus]
                                [--repeat N] [--no-write]

For each size, a fresh `git clone` of CORPUS/repoN (a memory imported with the corpus
generator; the clone has no index) and, in that clone, each run once, or `--repeat N`
times up to 300k (the table then gives the median and the range: this machine's speed
moves by half between minutes; a 1M row runs once, a build there is a minute):

- cold build, before and after: `python -m git_memory reindex` with the code of
  `--before` (a checkout of main at the commit this work started from) and of this
  checkout, each on PYTHONPATH; wall time, CPU time (user + system, the build's worker
  processes included) and peak RSS (`/usr/bin/time -f '%e %M %U %S'`: the largest of
  the process and its workers); then `recall --json` of a few queries on both builds,
  each with its own code, must give the same bytes;
- killed at half, then resumed (after only): the detached build an agent hook starts
  (`reindex --background`), killed with SIGKILL once its stamp says half of the files
  are in, then run again to the end; the resumed run's time as a share of the full build;
- the first `recall` in a fresh clone with stderr on a pseudo-terminal: time, and
  whether the progress line was drawn;
- `timeout 15 git memory context --format claude` in a fresh clone: time, exit code,
  and whether the output holds entries and the note that the index is being built.

Semantic ranking is switched off in the clones (`memory.semantic false`) unless
`--semantic`: its vectors are the ranking helper's cost, measured in docs/recall.md.
Each run is written as the first subsection of its section in docs/benchmarks.md; the
subsections already there (earlier runs, notes) are kept below it (`--no-write`: print
only).
"""

from __future__ import annotations

import argparse
import json
import os
import pty
import signal
import sqlite3
import statistics
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from common import REPORT, isolated_env, machine, scratch, update_section  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
from ptyread import drain  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
FULL_UP_TO = 300000  # above this, no tty recall and no wait for the hook's build (each a full build)


def _env(base: dict[str, str], code: Path) -> dict[str, str]:
    env = dict(base)
    env["PYTHONPATH"] = str(code)
    return env


def _clone(source: Path, where: Path, env: dict[str, str], semantic: bool) -> Path:
    subprocess.run(["git", "clone", "-q", str(source), str(where)], env=env, check=True)
    if not semantic:
        subprocess.run(["git", "config", "memory.semantic", "false"], cwd=where, env=env,
                       check=True)
    return where


def _timed(cmd: list[str], cwd: Path, env: dict[str, str]) -> tuple[float, float, float]:
    """(wall seconds, peak RSS in MiB, CPU seconds: user + system) of one process (and
    the processes it waited for), by /usr/bin/time. CPU time is the figure that compares
    across loads on a shared machine; wall time scales with the load."""
    out = cwd / ".." / "time.txt"
    subprocess.run(["/usr/bin/time", "-o", str(out), "-f", "%e %M %U %S", *cmd], cwd=cwd,
                   env=env, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    secs, kib, user, system = out.read_text().split()[-4:]
    return float(secs), int(kib) / 1024, float(user) + float(system)


def _done(repo: Path) -> tuple[int, int]:
    path = repo / ".git" / "git-memory" / "index.sqlite.build"
    if not path.exists():
        return 0, 0
    try:
        conn = sqlite3.connect(f"file:{path}?mode=rw", uri=True, timeout=1)
        meta = dict(conn.execute("SELECT k, v FROM meta WHERE k LIKE 'build_%'").fetchall())
        conn.close()
        return int(meta.get("build_done", 0)), int(meta.get("build_total", 0))
    except (sqlite3.Error, ValueError):
        return 0, 0


def killed_and_resumed(repo: Path, env: dict[str, str]) -> dict[str, float]:
    cmd = [sys.executable, "-m", "git_memory", "reindex", "--background"]
    started = time.perf_counter()
    proc = subprocess.Popen(cmd, cwd=repo, env=env, start_new_session=True,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    while True:
        done, total = _done(repo)
        if total and done >= total / 2:
            break
        if proc.poll() is not None:
            raise RuntimeError("the build finished before it could be killed")
        time.sleep(0.05)
    os.killpg(proc.pid, signal.SIGKILL)
    proc.wait()
    first = time.perf_counter() - started
    secs, rss, cpu = _timed(cmd, repo, env)
    return {"killed_at": done, "total": total, "first_s": first, "resumed_s": secs,
            "resumed_rss": rss, "resumed_cpu": cpu}


QUERIES = ("postgres timezone", "react useEffect cleanup", "git rebase interactive",
           "docker compose volume", "how do I reload zsh config", "vim split window",
           "rails migration rollback", "JavaScript array includes", "tmux copy mode",
           "python virtualenv", "SQL window function", "elixir pattern match")


def same_recall(before: Path, before_env: dict[str, str], after: Path,
                after_env: dict[str, str]) -> bool:
    """Whether `recall --json` gives the same output on each index (before's code on
    before's build, after's on after's) for every query of QUERIES."""
    for query in QUERIES:
        outs = [subprocess.run([sys.executable, "-m", "git_memory", "recall", *query.split(),
                                "--json"], cwd=repo, env=env, capture_output=True, check=True).stdout
                for repo, env in ((before, before_env), (after, after_env))]
        if outs[0] != outs[1] or not json.loads(outs[0]):
            return False
    return True


def first_recall_on_a_tty(repo: Path, env: dict[str, str]) -> tuple[float, bool]:
    parent, child = pty.openpty()
    started = time.perf_counter()
    proc = subprocess.Popen([sys.executable, "-m", "git_memory", "recall", "postgres", "timezone"],
                            cwd=repo, env=env, stdout=subprocess.DEVNULL, stderr=child)
    os.close(child)
    shown = drain(parent)
    proc.wait()
    os.close(parent)
    return time.perf_counter() - started, b"indexing: " in shown


def hook_context(repo: Path, env: dict[str, str]) -> dict[str, object]:
    started = time.perf_counter()
    result = subprocess.run(["timeout", "15", sys.executable, "-m", "git_memory", "context",
                             "--format", "claude"], cwd=repo, env=env, capture_output=True)
    secs = time.perf_counter() - started
    text = ""
    if result.returncode == 0:
        text = json.loads(result.stdout)["hookSpecificOutput"]["additionalContext"]
    return {"secs": secs, "code": result.returncode, "entries": text.count("\n- ["),
            "note": "being built in the background" in text}


def _wait_build(repo: Path) -> float:
    """Seconds until the detached build the hook started has finished."""
    started = time.perf_counter()
    lock = repo / ".git" / "git-memory" / "index.build.lock"
    import fcntl

    while True:
        with open(lock, "a+") as handle:
            try:
                fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
                fcntl.flock(handle, fcntl.LOCK_UN)
                if (repo / ".git" / "git-memory" / "index.sqlite").exists():
                    return time.perf_counter() - started
            except BlockingIOError:
                pass
        time.sleep(0.2)


def _kill_builds(repo: Path) -> None:
    """SIGKILL the detached build running in `repo` (found by its working directory)."""
    for proc in Path("/proc").iterdir():
        try:
            if proc.name.isdigit() and Path(os.readlink(proc / "cwd")) == repo.resolve():
                os.kill(int(proc.name), signal.SIGKILL)
        except OSError:
            continue


def _load() -> str:
    return " ".join(f"{x:.2f}" for x in os.getloadavg())


def _fresh(repo: Path) -> None:
    """No index and no build files: the state of a fresh clone, for the next run."""
    for leftover in (repo / ".git" / "git-memory").glob("index.sqlite*"):
        leftover.unlink()


def measure(size: int, corpus: Path, before: Path, base: Path, env0: dict[str, str],
            semantic: bool, repeat: int = 1) -> dict[str, object]:
    """One row: each measurement `repeat` times (cold builds alternating before and
    after, in the same two clones; each kill-and-resume and each first recall in a
    fresh state), the figures kept per run."""
    source = corpus / f"repo{size}"
    repeat = repeat if size <= FULL_UP_TO else 1  # a 1M build is a minute: once
    row: dict[str, object] = {"size": size, "load_start": _load(), "before": [], "after": [],
                              "repeat": repeat}
    after_env, before_env = _env(env0, ROOT), _env(env0, before)
    cmd = [sys.executable, "-m", "git_memory", "reindex"]
    built = {name: _clone(source, base / f"{name}{size}", env0, semantic)
             for name in ("before", "after")}
    for turn in range(repeat):
        order = ("before", "after") if turn % 2 == 0 else ("after", "before")
        for name in order:
            env = before_env if name == "before" else after_env
            _fresh(built[name])
            timed = _timed(cmd, built[name], env)
            row[name].append(timed)  # type: ignore[attr-defined]
            print(f"{size}: cold build {name}: {timed[0]:.1f} s wall, {timed[2]:.1f} s CPU,"
                  f" {timed[1]:.0f} MiB, load {_load()}", flush=True)
    row["same_recall"] = same_recall(built["before"], before_env, built["after"], after_env)
    print(f"{size}: recall --json alike before and after: {row['same_recall']}", flush=True)
    repo = _clone(source, base / f"kill{size}", env0, semantic)
    resumed = []
    for _ in range(repeat):
        _fresh(repo)
        try:
            resumed.append(killed_and_resumed(repo, after_env))
        except RuntimeError:  # one batch (10k) and a short end: done before the poll saw half
            break
        print(f"{size}: killed at half, resumed: {resumed[-1]}", flush=True)
    row["resume"] = resumed
    if size <= FULL_UP_TO:
        ttys = []
        for turn in range(repeat):
            repo = _clone(source, base / f"tty{size}-{turn}", env0, semantic)
            ttys.append(first_recall_on_a_tty(repo, after_env))
            print(f"{size}: first recall on a tty: {ttys[-1]}", flush=True)
        row["recall_tty"] = ttys
    repo = _clone(source, base / f"hook{size}", env0, semantic)
    row["context"] = hook_context(repo, after_env)
    if size <= FULL_UP_TO:
        row["context_build_s"] = _wait_build(repo)
    else:  # a cold build at this size is measured above: stop the hook's, not wait for it
        _kill_builds(repo)
        row["context_build_s"] = None
    print(f"{size}: hook context: {row['context']}, background build {row['context_build_s']}",
          flush=True)
    row["load_end"] = _load()
    return row


def _spread(values: list[float], unit: str = " s") -> str:
    """The median, and the range when there is more than one value."""
    mid = statistics.median(values)
    if len(values) == 1:
        return f"{mid:.1f}{unit}"
    return f"{mid:.1f}{unit} [{min(values):.1f}-{max(values):.1f}]"


def _repeats(rows: list[dict[str, object]]) -> str:
    runs = max((int(row.get("repeat", 1)) for row in rows), default=1)  # type: ignore[call-overload]
    if runs < 2:
        return ""
    return (f" Where a row ran {runs} times, each figure is the median [lowest-highest]; the"
            " cold builds alternate before and after; peak RSS: the largest.")


def report(rows: list[dict[str, object]], semantic: bool) -> str:
    lines = [
        f"### A run of `bench_build.py` ({time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())})",
        "",
        f"Measured {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())} by `python bench/bench_build.py`"
        f" on {machine()}; semantic ranking {'on' if semantic else 'off'} in the clones.",
        "Method: every figure is one run of whole processes in a fresh `git clone` of a corpus"
        " memory (`make_corpus.py`, imported; a clone has no index). Before = main at the commit"
        " this work started from, after = this branch, each on PYTHONPATH with the same"
        " interpreter. Peak RSS by `/usr/bin/time`. Resumed: the detached build (`reindex"
        " --background`) killed with SIGKILL when its stamp said half the files were in, then"
        " run again to the end. The machine is shared (2 cores, up to 8 agents at once): load"
        " averages are given per row, and absolute times scale with them." + _repeats(rows),
        "",
        "| entries | cold build before: wall (CPU) | after: wall (CPU) | peak RSS before | after | resumed after a kill at half: wall (CPU) | share of a full build (CPU) | first recall, fresh clone, tty (progress shown) | hook `context`, fresh clone | `recall --json` alike | load (1/5/15 min) at start / end |",
        "| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- | --- |",
    ]
    for row in rows:
        r = row["resume"]
        walls = {name: [run[0] for run in row[name]] for name in ("before", "after")}  # type: ignore[attr-defined]
        cpus = {name: [run[2] for run in row[name]] for name in ("before", "after")}  # type: ignore[attr-defined]
        rss = {name: max(run[1] for run in row[name]) for name in ("before", "after")}  # type: ignore[attr-defined]
        if not r:
            resumed = "finished before the kill | -"
        else:
            wall = [run["resumed_s"] for run in r]  # type: ignore[union-attr]
            cpu = [run["resumed_cpu"] for run in r]  # type: ignore[union-attr]
            resumed = (f"{_spread(wall)} ({_spread(cpu)})"
                       f" | {statistics.median(wall) / statistics.median(walls['after']):.0%}"
                       f" ({statistics.median(cpu) / statistics.median(cpus['after']):.0%})")
        ttys = row.get("recall_tty")
        recall = (f"{_spread([t[0] for t in ttys])} (progress shown:"  # type: ignore[union-attr]
                  f" {sum(1 for t in ttys if t[1])} of {len(ttys)})" if ttys else "not run")  # type: ignore[union-attr]
        built = row["context_build_s"]
        later = f"build done {built:.0f} s later" if built is not None else "build stopped"
        ctx = row["context"]
        lines.append(
            f"| {row['size']:,} | {_spread(walls['before'])} ({_spread(cpus['before'])})"
            f" | {_spread(walls['after'])} ({_spread(cpus['after'])})"
            f" | {rss['before']:.0f} MiB | {rss['after']:.0f} MiB"
            f" | {resumed}"
            f" | {recall}"
            f" | {ctx['secs']:.2f} s, exit {ctx['code']}, {ctx['entries']} entries,"  # type: ignore[index]
            f" note {'yes' if ctx['note'] else 'no'}; {later}"  # type: ignore[index]
            f" | {'yes' if row['same_recall'] else '**no**'}"
            f" | {row['load_start']} / {row['load_end']} |")
    lines += ["", "Goals: 1M under 40 s, 100k under 4 s (cold build); resumed at most 60% of a"
              " full build; first recall in a fresh clone of 100k under 5 s with progress on a"
              " terminal; hook `context` in a fresh clone within its 15 s limit on the first try."]
    return "\n".join(lines)


HEADING = "## Index builds: cold, resumed, first recall, hook context (issue #20)"


def history() -> str:
    """Every subsection the section holds now (earlier runs, notes written by hand)."""
    text = REPORT.read_text(encoding="utf-8") if REPORT.exists() else ""
    start, end = "<!-- bench:build -->", "<!-- /bench:build -->"
    if start not in text or end not in text:
        return ""
    block = text.split(start, 1)[1].split(end, 1)[0]
    at = block.find("\n### ")
    return block[at + 1 :].strip() if at != -1 else ""


def with_history(run: str, older: str) -> str:
    """The section with this run as its first subsection and `older` (history(), read
    before the run's first write) below it."""
    return "\n\n".join(part for part in (HEADING, run.strip(), older) if part)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--before", required=True, type=Path, help="checkout of the code before")
    ap.add_argument("--sizes", default="100000,1000000")
    ap.add_argument("--corpus", default="/work/corpus", type=Path)
    ap.add_argument("--semantic", action="store_true")
    ap.add_argument("--no-write", action="store_true", help="print only; leave docs alone")
    ap.add_argument("--repeat", type=int, default=1,
                    help="runs of each measurement (the machine's speed moves between runs)")
    args = ap.parse_args()
    rows = []
    older = history()  # read once: the run rewrites its own subsection after each size
    with scratch() as tmp:
        base = Path(tmp)
        env0 = isolated_env(base / "home")
        for size in (int(s) for s in args.sizes.split(",")):
            rows.append(measure(size, args.corpus, args.before.resolve(), base, env0,
                                args.semantic, args.repeat))
            text = report(rows, args.semantic)
            if not args.no_write:
                update_section("build", with_history(text, older))
    print(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())

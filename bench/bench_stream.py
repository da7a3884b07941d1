#!/usr/bin/env python3
"""Streaming readers and near duplicates at scale (issue 20, points 4 and 5), before and after.

    python bench/bench_stream.py --before VENV_BIN --after VENV_BIN REPO [REPO ...]

Each REPO (for example /work/corpus/repo1000000: a memory imported from make_corpus.py
output, its index built) is copied with `cp -a` to a scratch folder, never touched. Into
the copy go 100 planted near-duplicate pairs: for every 18th til note (../shared/data), its
text and a deterministic rewording of it (tests/reword.py: synonyms swapped, the first
sentence moved last, a word dropped, a lead-in added), tagged `planted`. Then, once each
(1M runs are expensive on a shared machine), for the `git memory` of each VENV_BIN:

- `list > /dev/null`, `export --format jsonl > /dev/null`, `curate --dry-run --json`:
  wall time, CPU time and peak RSS from `/usr/bin/time -v`;
- `list | head -1`: wall time until the pipeline ends;
- planted pairs proposed: pairs whose two entries are in one change of the curate proposal.

Prints one Markdown table per repository, and the load average at the start and end.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "bench"))
sys.path.insert(0, str(ROOT / "tests"))
from common import shared_dir  # noqa: E402
from reword import reword  # noqa: E402

NOTES = shared_dir() / "data" / "til-jbranchaud" / "notes.jsonl"
PAIRS, STRIDE = 100, 18


def planted() -> list[dict]:
    """200 import lines: (note, rewording) for every STRIDE-th note, in the corpus' shape."""
    notes = [json.loads(line) for line in NOTES.open(encoding="utf-8")]
    rows = []
    for n in range(PAIRS):
        note = notes[n * STRIDE]
        text = f"{note['title']}: {' '.join(note['body'].split())[:320]}"
        for side, content in (("a", text), ("b", reword(text, n))):
            rows.append({"key": f"planted-{side}-{n}", "type": "learned", "content": content,
                         "tags": ["planted"], "created": f"2026-06-{1 + n % 28:02d}T12:00:00Z"})
    return rows


def measured(bin_dir: Path, args: list[str], cwd: Path, out: Path) -> dict:
    """One `git memory ARGS > out` under /usr/bin/time -v: wall s, cpu s, peak MiB."""
    env = {**os.environ, "PATH": f"{bin_dir}:{os.environ['PATH']}"}
    with out.open("wb") as sink:
        done = subprocess.run(["/usr/bin/time", "-v", "git", "memory", *args], cwd=cwd, env=env,
                              stdout=sink, stderr=subprocess.PIPE, text=True)
    if done.returncode != 0:
        raise SystemExit(f"git memory {' '.join(args)} failed: {done.stderr[-2000:]}")
    text = done.stderr
    wall = re.search(r"Elapsed \(wall clock\) time.*: (?:(\d+):)?(\d+):([\d.]+)", text)
    assert wall is not None
    hours, minutes, secs = wall.groups()
    user = float(re.search(r"User time \(seconds\): ([\d.]+)", text).group(1))  # type: ignore[union-attr]
    system = float(re.search(r"System time \(seconds\): ([\d.]+)", text).group(1))  # type: ignore[union-attr]
    rss = int(re.search(r"Maximum resident set size \(kbytes\): (\d+)", text).group(1))  # type: ignore[union-attr]
    return {"wall": int(hours or 0) * 3600 + int(minutes) * 60 + float(secs),
            "cpu": user + system, "rss_mib": rss / 1024}


def head_one(bin_dir: Path, cwd: Path) -> float:
    env = {**os.environ, "PATH": f"{bin_dir}:{os.environ['PATH']}"}
    start = time.perf_counter()
    done = subprocess.run("git memory list | head -1", shell=True, cwd=cwd, env=env,
                          capture_output=True, text=True)
    wall = time.perf_counter() - start
    if not done.stdout.strip():
        raise SystemExit(f"list | head -1 printed nothing: {done.stderr[-500:]}")
    return wall


def pairs_found(proposal: Path, ids: dict[str, str]) -> int:
    """Planted pairs whose two entries sit in one change of the proposal."""
    group: dict[str, int] = {}
    data = json.loads(proposal.read_text(encoding="utf-8"))
    for number, change in enumerate(data["changes"]):
        for eid in change["ids"]:
            group[eid] = number
    found = 0
    for n in range(PAIRS):
        a, b = ids.get(f"planted-a-{n}"), ids.get(f"planted-b-{n}")
        if a and b and a in group and group.get(a) == group.get(b):
            found += 1
    return found


def plant(repo: Path, bin_dir: Path, scratch: Path) -> dict[str, str]:
    lines = scratch / "planted.jsonl"
    lines.write_text("".join(json.dumps(r) + "\n" for r in planted()), encoding="utf-8")
    env = {**os.environ, "PATH": f"{bin_dir}:{os.environ['PATH']}"}
    subprocess.run(["git", "memory", "import", "--format", "jsonl", str(lines)], cwd=repo,
                   env=env, check=True, capture_output=True)
    listed = subprocess.run(["git", "memory", "list", "--json", "--tag", "planted"], cwd=repo,
                            env=env, check=True, capture_output=True, text=True)
    return {e["key"]: e["id"] for e in json.loads(listed.stdout)}


def bench(source: Path, sides: dict[str, Path], scratch: Path) -> None:
    repo = scratch / source.name
    shutil.copytree(source, repo, symlinks=True)
    ids = plant(repo, sides["after"], scratch)
    assert len(ids) == 2 * PAIRS, f"planted {len(ids)} entries"
    subprocess.run(["git", "memory", "list", "--limit", "1"], cwd=repo, check=True,
                   capture_output=True, env={**os.environ,
                                             "PATH": f"{sides['after']}:{os.environ['PATH']}"})
    rows = []
    for name, bin_dir in sides.items():
        result = {"side": name}
        result["list"] = measured(bin_dir, ["list"], repo, scratch / "list.out")
        result["export"] = measured(bin_dir, ["export", "--format", "jsonl"], repo,
                                    scratch / "export.out")
        proposal = scratch / f"curate-{name}.json"
        result["curate"] = measured(bin_dir, ["curate", "--dry-run", "--json"], repo, proposal)
        result["pairs"] = pairs_found(proposal, ids)
        result["head"] = head_one(bin_dir, repo)
        search = json.loads(proposal.read_text(encoding="utf-8")).get("search")
        result["changes"] = len(json.loads(proposal.read_text(encoding="utf-8"))["changes"])
        result["search"] = search
        for leftover in ("list.out", "export.out"):
            (scratch / leftover).unlink()
        proposal.unlink()
        rows.append(result)
        print(json.dumps(result), flush=True)
    print(f"\n### {source.name} (+{2 * PAIRS} planted entries)\n")
    print("| side | list wall / cpu / peak | export jsonl wall / cpu / peak"
          " | curate --dry-run wall / cpu / peak | list \\| head -1 | planted pairs proposed"
          " | changes |")
    print("| --- | --- | --- | --- | --- | --- | --- |")
    for r in rows:
        cells = [f"{r[k]['wall']:.1f} s / {r[k]['cpu']:.1f} s / {r[k]['rss_mib']:.0f} MiB"
                 for k in ("list", "export", "curate")]
        print(f"| {r['side']} | {' | '.join(cells)} | {r['head']:.2f} s | {r['pairs']}/{PAIRS}"
              f" | {r['changes']} |")
    shutil.rmtree(repo)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--before", type=Path, required=True, help="bin folder of the old venv")
    ap.add_argument("--after", type=Path, required=True, help="bin folder of the new venv")
    ap.add_argument("repos", type=Path, nargs="+")
    args = ap.parse_args()
    print(f"load average at start: {os.getloadavg()}", flush=True)
    with tempfile.TemporaryDirectory(dir=os.environ.get("BENCH_TMP")) as tmp:
        for source in args.repos:
            bench(source, {"before": args.before, "after": args.after}, Path(tmp))
    print(f"\nload average at end: {os.getloadavg()}")


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""The knowledge graph's cost against the index's (issue #18 point 4).

    python bench/bench_graph.py [--size 100000] [--corpus /work/corpus] [--write]

On a `cp -a` copy of CORPUS/repoN (a memory imported with the corpus generator, its index
built), in one run and in this order, each once (the machine is shared):

1. `git memory reindex`: a cold build of the index;
2. `git memory graph -n 1`: the first graph command after it fills the graph tables for
   every entry (cold), then answers a one-node question;
3. `git memory graph -n 1` again (the tables are current: the cost of a warm command);
4. one `git memory add`, then `graph -n 1` (the incremental catch-up of one entry);
5. `git memory related ID` and `git memory graph ID --depth 2` on one entry.

Wall time and CPU time (user + sys of the child, from `resource.getrusage`) of each, the
load average before and after, and the sizes: the index file before the graph, after it,
and the bytes of the graph tables and their indexes against the rest of the file
(SQLite's `dbstat`). The bars: the cold graph within 2x the reindex time, and the graph
tables within 1.5x the index's size. `--write` puts the figures in docs/benchmarks.md.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from common import isolated_env, machine, scratch, update_section  # noqa: E402

GRAPH_OBJECTS = ("graph_nodes", "graph_nodes_name", "graph_about", "graph_about_nid",
                 "graph_done")


def timed(cmd: list[str], cwd: Path, env: dict[str, str]) -> tuple[float, float, str]:
    """(wall seconds, CPU seconds of the child, stdout) of one process."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    done = subprocess.run(cmd, cwd=cwd, env=env, capture_output=True, text=True)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode != 0:
        raise SystemExit(f"{' '.join(cmd)} failed: {done.stderr.strip()}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu, done.stdout


def sizes(index: Path) -> tuple[int, int, int]:
    """(file bytes, bytes of the graph's tables and indexes, bytes of everything else)."""
    conn = sqlite3.connect(f"file:{index}?mode=ro", uri=True)
    rows = conn.execute("SELECT name, sum(pgsize) FROM dbstat GROUP BY name").fetchall()
    conn.close()
    graph = sum(size for name, size in rows if name in GRAPH_OBJECTS)
    rest = sum(size for name, size in rows if name not in GRAPH_OBJECTS)
    return index.stat().st_size, graph, rest


def counts(index: Path) -> dict[str, int]:
    conn = sqlite3.connect(f"file:{index}?mode=ro", uri=True)
    found = {
        "entries": conn.execute("SELECT count(*) FROM graph_done").fetchone()[0],
        "nodes": conn.execute("SELECT count(*) FROM graph_nodes").fetchone()[0],
        "about": conn.execute("SELECT count(*) FROM graph_about").fetchone()[0],
    }
    for kind, number in conn.execute("SELECT kind, count(*) FROM graph_nodes GROUP BY kind"):
        found[kind] = number
    conn.close()
    return found


def load() -> str:
    return " ".join(f"{x:.2f}" for x in os.getloadavg())


def measure(size: int, corpus: Path, where: Path) -> dict[str, object]:
    source = corpus / f"repo{size}"
    repo = where / f"repo{size}"
    subprocess.run(["cp", "-a", str(source), str(repo)], check=True)
    env = isolated_env(where / "home")
    index = repo / ".git" / "git-memory" / "index.sqlite"
    gm = ["git", "memory"]
    result: dict[str, object] = {"size": size, "load_before": load()}
    result["reindex"] = timed([*gm, "reindex"], repo, env)[:2]
    result["index_bytes"] = index.stat().st_size
    result["graph_cold"] = timed([*gm, "graph", "-n", "1"], repo, env)[:2]
    result["graph_warm"] = timed([*gm, "graph", "-n", "1"], repo, env)[:2]
    file_bytes, graph_bytes, rest_bytes = sizes(index)
    result.update(file_after=file_bytes, graph_bytes=graph_bytes, rest_bytes=rest_bytes)
    result["counts"] = counts(index)
    timed([*gm, "add", "LEARNED: the graph benchmark adds TokenCache.refresh to src/app.py"],
          repo, env)
    result["graph_after_add"] = timed([*gm, "graph", "-n", "1"], repo, env)[:2]
    listed = json.loads(timed([*gm, "list", "--json", "-n", "1"], repo, env)[2])
    entry = listed[0]["id"]
    result["related"] = timed([*gm, "related", entry], repo, env)[:2]
    result["neighbourhood"] = timed([*gm, "graph", entry, "--depth", "2"], repo, env)[:2]
    result["load_after"] = load()
    shutil.rmtree(repo)
    return result


def report(r: dict[str, object]) -> str:
    def pair(key: str) -> tuple[float, float]:
        value = r[key]
        assert isinstance(value, (tuple, list))
        return float(value[0]), float(value[1])

    reindex, cold = pair("reindex"), pair("graph_cold")
    graph_bytes, rest = int(r["graph_bytes"]), int(r["rest_bytes"])  # type: ignore[call-overload]
    c = r["counts"]
    assert isinstance(c, dict)
    lines = [
        f"Graph at {r['size']:,} entries (bench/bench_graph.py, a `cp -a` copy of the corpus"
        f" repository; {machine()}; load average {r['load_before']} before, {r['load_after']}"
        " after; each command run once, wall / CPU (user+sys) seconds):",
        "",
        "| step | wall s | CPU s |",
        "| --- | ---: | ---: |",
    ]
    for key, name in (("reindex", "`git memory reindex` (cold index build)"),
                      ("graph_cold", "`git memory graph -n 1`, cold (fills the graph tables)"),
                      ("graph_warm", "`git memory graph -n 1`, warm"),
                      ("graph_after_add", "`graph -n 1` after one `add` (catch-up of one entry)"),
                      ("related", "`git memory related ID`"),
                      ("neighbourhood", "`git memory graph ID --depth 2`")):
        wall, cpu = pair(key)
        lines.append(f"| {name} | {wall:.2f} | {cpu:.2f} |")
    lines += [
        "",
        f"Cold graph / reindex: {cold[0] / reindex[0]:.2f}x wall, {cold[1] / reindex[1]:.2f}x CPU"
        " (bar: 2x).",
        f"Graph tables and their indexes: {graph_bytes / 2**20:.1f} MiB against"
        f" {rest / 2**20:.1f} MiB for the rest of the index file"
        f" ({graph_bytes / rest:.2f}x; bar: 1.5x); the file went from"
        f" {int(r['index_bytes']) / 2**20:.1f} MiB to {int(r['file_after']) / 2**20:.1f} MiB."  # type: ignore[call-overload]
        ,
        f"The graph holds {c['entries']:,} entries, {c['nodes']:,} nodes"
        f" ({c.get('path', 0):,} paths, {c.get('symbol', 0):,} symbols, {c.get('tag', 0):,} tags)"
        f" and {c['about']:,} about links.",
    ]
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--size", type=int, default=100000)
    parser.add_argument("--corpus", type=Path, default=Path("/work/corpus"))
    parser.add_argument("--write", action="store_true", help="update docs/benchmarks.md")
    args = parser.parse_args()
    with scratch() as tmp:
        result = measure(args.size, args.corpus, Path(tmp))
    text = report(result)
    print(json.dumps(result, default=str))
    print(text)
    if args.write:
        update_section(f"graph-{args.size}", text)


if __name__ == "__main__":
    main()

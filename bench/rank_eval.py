#!/usr/bin/env python3
"""Score the ranking in-process, without git: fast enough to try an idea in seconds.

    python bench/rank_eval.py til [--sample N] [--per-query OUT.jsonl] [--set NAME=VALUE ...]
    python bench/rank_eval.py faq | lavra-questions   the question sets (../shared/data, bench/data)
    python bench/rank_eval.py FILE.jsonl          lines {"id", "query", "doc"}

Builds a throw-away index with the real schema and `insert_record`, then calls
`index.search.search` for every query (title = query, body = entry for `til`,
as `../shared/tools/recall_eval.py` does through the command line). `--set`
overrides a constant of `git_memory.index.rank.rerank` (e.g. `--set COVERAGE=0.5`),
`--bm25` scores stage one alone. The end-to-end figure of record is the one
from recall_eval.py; this script is for iterating.
"""

from __future__ import annotations

import argparse
import importlib
import json
import random
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from git_memory.index import db  # noqa: E402
from git_memory.index.rank import rerank, search
from git_memory.index.build import update
from git_memory.index.rank.hits import Hit  # noqa: E402
from git_memory.model import Record  # noqa: E402
from git_memory.store.locate import GitDirs  # noqa: E402
from common import shared_dir  # noqa: E402


def lavra_questions() -> list[dict]:
    """Our paraphrased questions (bench/data) over every Lavra entry of ../shared/data."""
    docs: dict[str, str] = {}
    for path in sorted((shared_dir() / "data" / "lavra-knowledge").glob("*.knowledge.jsonl")):
        for line in path.open(encoding="utf-8"):
            try:
                obj = json.loads(line)
                if isinstance(obj, str):
                    obj = json.loads(obj)  # double-encoded lines
            except ValueError:
                continue
            if isinstance(obj, dict) and obj.get("key") and obj.get("content"):
                docs.setdefault(str(obj["key"]), str(obj["content"]))
    questions = [json.loads(line) for line in (ROOT / "bench" / "data" / "lavra_questions.jsonl").open()]
    wanted = {q["id"]: q["query"] for q in questions}
    # Every entry is a document; only the questioned ones are queried (see --sample logic).
    return [{"id": k, "query": wanted.get(k, ""), "doc": d} for k, d in docs.items()]


def load(name: str) -> list[dict]:
    if name == "lavra-questions":
        return lavra_questions()
    if name == "faq":  # developer FAQs (Debian docs): question = query, answer = entry
        name = str(shared_dir() / "data" / "faq-public" / "faq.jsonl")
    if name == "til":
        til = shared_dir() / "data" / "til-jbranchaud" / "notes.jsonl"
        notes = [json.loads(line) for line in til.open(encoding="utf-8")]
        return [{"id": n["id"], "query": n["title"], "doc": n["body"]} for n in notes]
    return [json.loads(line) for line in open(name, encoding="utf-8") if line.strip()]


def build(items: list[dict], folder: Path, semantic: bool = False) -> db.Index:
    """A throw-away index of `items`; semantic ranking switched on or off as git config does."""
    from git_memory.index.rank import semantic as dense

    path = folder / "index.sqlite"
    conn = db._new_db(path)
    (folder / "config").write_text(f"[memory]\n\tsemantic = {str(semantic).lower()}\n",
                                   encoding="utf-8")
    conn.execute("BEGIN")
    for number, item in enumerate(items):
        record = Record(
            id=f"ID{number:08d}", type=item.get("type", "learned"), content=item["doc"],
            tags=item.get("tags", []), created=f"2026-01-01T00:{number % 60:02d}:00Z",
            key=item["id"], source="import", path=f"entries/x/{number}.md",
        )
        update.insert_record(conn, record, "0" * 40)
    if semantic:  # the vectors, as a rebuild makes them
        folder_ = dense.model_dir()
        if folder_ is None:
            raise SystemExit("--semantic needs the [semantic] extra installed")
        dense.sync(conn, folder_)
    conn.execute("COMMIT")
    return db.Index(conn, GitDirs(folder, folder, None), None, path)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("dataset")
    ap.add_argument("--sample", type=int, default=0)
    ap.add_argument("--per-query")
    ap.add_argument("--set", action="append", default=[])
    ap.add_argument("--bm25", action="store_true", help="stage one only (BM25 order)")
    ap.add_argument("--semantic", action="store_true", help="with the [semantic] extra switched on")
    args = ap.parse_args()
    for setting in args.set:
        name, _, value = setting.partition("=")
        module, _, name = name.rpartition(".")  # semantic.LAMBDA: a constant of index/semantic.py
        setattr(importlib.import_module(f"git_memory.index.{module or 'rerank'}"), name,
                int(value) if value.lstrip("-").isdigit() else float(value))
    items = load(args.dataset)
    queries = [item for item in items if item["query"]]
    if args.sample and args.sample < len(queries):
        queries = random.Random(7).sample(queries, args.sample)
    if args.bm25:
        rerank.rerank = _bm25_only  # type: ignore[assignment]
    with tempfile.TemporaryDirectory() as tmp:
        index = build(items, Path(tmp), args.semantic)
        started = time.perf_counter()
        results = []
        for item in queries:
            hits = search.search(index, item["query"], limit=10)
            keys = [h.row["key"] for h in hits]
            rank = keys.index(item["id"]) + 1 if item["id"] in keys else None
            results.append({"id": item["id"], "query": item["query"], "rank": rank})
        elapsed = time.perf_counter() - started
    n = len(results)
    mrr = sum(1 / r["rank"] for r in results if r["rank"]) / n
    r1 = sum(1 for r in results if r["rank"] == 1) / n
    r5 = sum(1 for r in results if r["rank"] and r["rank"] <= 5) / n
    if args.per_query:
        with open(args.per_query, "w", encoding="utf-8") as handle:
            for r in results:
                handle.write(json.dumps(r) + "\n")
    print(f"MRR@10 {mrr:.4f} R@1 {r1:.4f} R@5 {r5:.4f} n={n} ({1000 * elapsed / n:.1f} ms/query)")
    return 0


def _bm25_only(conn, words, rows, bm25, paths, *_):  # type: ignore[no-untyped-def]
    hits = [Hit(row, bm25.get(row["rowid"], 0.0)) for row in rows]
    return sorted(hits, key=lambda h: -h.score)


if __name__ == "__main__":
    sys.exit(main())

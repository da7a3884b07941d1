#!/usr/bin/env python3
"""Would dense vectors (WordLlama, 256 dimensions) pay for themselves? Measure before building.

    pip install wordllama            # in a scratch venv; it brings numpy, tokenizers, safetensors
    python bench/semantic_eval.py til
    python bench/semantic_eval.py lavra-questions

Loads the model straight from the files the wheel ships (wordllama/weights/
l2_supercat_256.safetensors and wordllama/tokenizers/l2_supercat_tokenizer_config.json;
nothing is downloaded), embeds every entry and query (mean of token vectors, L2-normalised,
as WordLlama does), then scores: dense alone, and our ranking fused with the cosine,
`score / best_score + LAMBDA * cosine` over the ranking's candidates, for several LAMBDA.
"""

from __future__ import annotations

import importlib.util
import sys
import tempfile
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

import numpy as np  # noqa: E402
from safetensors.numpy import load_file  # noqa: E402
from tokenizers import Tokenizer  # noqa: E402

import rank_eval  # noqa: E402
from git_memory.index.rank import rerank, search  # noqa: E402

LAMBDAS = (0.0, 0.25, 0.5, 1.0, 2.0, 4.0)


def load_model() -> tuple[Any, Any]:
    spec = importlib.util.find_spec("wordllama")
    if spec is None or not spec.submodule_search_locations:
        raise SystemExit("pip install wordllama first")
    base = Path(list(spec.submodule_search_locations)[0])
    matrix = load_file(str(base / "weights" / "l2_supercat_256.safetensors"))["embedding.weight"]
    tokenizer = Tokenizer.from_file(str(base / "tokenizers" / "l2_supercat_tokenizer_config.json"))
    tokenizer.no_truncation()
    tokenizer.no_padding()
    return matrix.astype(np.float32), tokenizer


def embed(model: tuple[Any, Any], texts: list[str]) -> Any:
    matrix, tokenizer = model
    out = np.zeros((len(texts), matrix.shape[1]), np.float32)
    for row, encoding in enumerate(tokenizer.encode_batch(texts)):
        vector = matrix[encoding.ids[:512]].mean(axis=0)
        norm = np.linalg.norm(vector)
        out[row] = vector / norm if norm else vector
    return out


def main() -> int:
    items = rank_eval.load(sys.argv[1] if len(sys.argv) > 1 else "til")
    queries = [item for item in items if item["query"]]
    model = load_model()
    docs = embed(model, [item["doc"] for item in items])
    cosine = embed(model, [item["query"] for item in queries]) @ docs.T
    position = {item["id"]: i for i, item in enumerate(items)}

    def mrr(ranked_keys: list[list[str]]) -> str:
        total = sum(1 / (keys.index(q["id"]) + 1) for q, keys in zip(queries, ranked_keys)
                    if q["id"] in keys[:10])
        first = sum(1 for q, keys in zip(queries, ranked_keys) if keys[:1] == [q["id"]])
        return f"MRR@10 {total / len(queries):.3f} R@1 {first / len(queries):.3f}"

    dense = [[items[j]["id"] for j in np.argsort(-cosine[i])[:10]] for i in range(len(queries))]
    print(f"dense alone            {mrr(dense)}  n={len(queries)}")
    index = rank_eval.build(items, Path(tempfile.mkdtemp()))
    pools: list[list[tuple[str, float]]] = []

    def capture(conn, words, rows, bm25, paths, stop_words=frozenset(), *_):  # type: ignore[no-untyped-def]
        pools.append([(r["key"], rerank.combine(p)) for r, p in rerank.features(conn, words, rows, stop_words)])
        return []

    rerank.rerank = capture  # type: ignore[assignment]
    for query in queries:
        before = len(pools)
        search.search(index, query["query"])
        if len(pools) == before:
            pools.append([])
    for lam in LAMBDAS:
        ranked = []
        for i, pool in enumerate(pools):
            best = max((s for _, s in pool), default=1.0) or 1.0
            fused = sorted(pool, key=lambda ks: -(ks[1] / best + lam * float(cosine[i, position[ks[0]]])))
            ranked.append([k for k, _ in fused[:10]])
        print(f"ranking + {lam:<4} x cosine {mrr(ranked)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

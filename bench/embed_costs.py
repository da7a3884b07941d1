#!/usr/bin/env python3
"""Lab for issue #31: what the MiniLM embedder costs (throughput, search, cold start).

    python bench/embed_costs.py throughput [--notes 500] [--backends numpy onnx]
    python bench/embed_costs.py search [--size 100000]
    python bench/embed_costs.py cold [--runs 5]

`throughput` runs one child process per thread count (1, 2), with OPENBLAS_NUM_THREADS and
OMP_NUM_THREADS set before numpy loads (onnxruntime gets the same count as intra_op threads),
and reports entries/second for batch sizes 1, 16, 32, 64 in arrival order and sorted by
length (a batch pads to its longest text). Notes are ../shared/data/til-jbranchaud bodies,
truncated at 256 tokens (the model's max_seq_length). OPENBLAS_CORETYPE / OPENBLAS_L2_SIZE
stay unset (they made it slower).

`search` tiles real note vectors (fusion_lab's cache, else 300 fresh ones) to SIZE with noise
and times, per query: sign-bit codes with a Hamming top-100 (numpy bitwise_count, or a
popcount table) rescored by float32; and an exact float32 / float16 matmul top-10.

`cold` times a fresh `python -c` to its first query vector, phase by phase.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
CACHE = Path("/tmp/lab31-cache")
BATCHES = ((1, False), (16, False), (32, False), (64, False), (16, True), (32, True), (64, True))


def child_env(threads: int) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items()
           if k not in ("OPENBLAS_CORETYPE", "OPENBLAS_L2_SIZE")}
    env.update(OPENBLAS_NUM_THREADS=str(threads), OMP_NUM_THREADS=str(threads))
    return env


def median(values: list[float]) -> float:
    return sorted(values)[len(values) // 2]


# --- throughput -------------------------------------------------------------------------

def throughput_child(backend: str, count: int) -> None:
    import numpy as np  # lazy: the thread count must be in the environment first

    import embed_lab

    threads = int(os.environ["OPENBLAS_NUM_THREADS"])
    folder = embed_lab.default_model_dir()
    encoder: Any = (embed_lab.Encoder(folder) if backend == "numpy"
                    else embed_lab.OnnxEncoder(folder, threads))
    texts = embed_lab.notes(count)
    encoder.embed(texts[:4])  # warm: first-call allocations are not throughput
    queries = []
    for text in ["why did the scheduled task die", "out of storage space", "pip cache"] * 4:
        start = time.perf_counter()
        encoder.embed([text])
        queries.append(time.perf_counter() - start)
    print(json.dumps({"backend": backend, "threads": threads,
                      "query_ms": round(1000 * median(queries), 2)}), flush=True)
    for batch, by_length in BATCHES:
        order = sorted(texts, key=len) if by_length else texts
        start = time.perf_counter()
        out = [encoder.embed(order[i:i + batch]) for i in range(0, len(order), batch)]
        elapsed = time.perf_counter() - start
        assert np.concatenate(out).shape == (len(texts), 384)
        print(json.dumps({"backend": backend, "threads": threads, "batch": batch,
                          "sorted": by_length, "entries_per_s": round(len(texts) / elapsed, 2)}),
              flush=True)


def throughput(count: int, backends: list[str]) -> None:
    for backend in backends:
        for threads in (1, 2):
            subprocess.run([sys.executable, __file__, "_throughput", backend, str(count)],
                           env=child_env(threads), check=True)


# --- search -----------------------------------------------------------------------------

def search(size: int, queries_wanted: int = 50) -> None:
    import numpy as np  # lazy: after the environment is set by the caller

    docs, queries = real_vectors()
    rng = np.random.default_rng(31)
    # Real notes tiled with noise: every copy is a distinct vector near a real one.
    tiles = docs[rng.integers(0, len(docs), size)]
    vectors = tiles + 0.35 * rng.standard_normal(tiles.shape, dtype=np.float32) / np.sqrt(384)
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    vectors = vectors.astype(np.float32)
    halves = vectors.astype(np.float16)
    codes = np.packbits(vectors > 0, axis=1)  # 48 bytes a vector
    words = codes.view(np.uint64)  # the same bits, six 64-bit words a vector
    table = np.array([bin(i).count("1") for i in range(256)], np.uint8)
    asked = queries[:queries_wanted]

    def binary(q: Any, shortlist: int = 100) -> Any:
        distance = np.bitwise_count(words ^ np.packbits(q > 0).view(np.uint64)).sum(
            1, dtype=np.int32)
        top = np.argpartition(distance, shortlist)[:shortlist]
        return top[np.argsort(-(vectors[top] @ q))[:10]]

    def binary400(q: Any) -> Any:
        return binary(q, 400)

    def binary_u8(q: Any) -> Any:
        distance = np.bitwise_count(codes ^ np.packbits(q > 0)).sum(1, dtype=np.int32)
        top = np.argpartition(distance, 100)[:100]
        return top[np.argsort(-(vectors[top] @ q))[:10]]

    def binary_table(q: Any) -> Any:
        distance = table[codes ^ np.packbits(q > 0)].sum(1, dtype=np.int32)
        top = np.argpartition(distance, 100)[:100]
        return top[np.argsort(-(vectors[top] @ q))[:10]]

    def exact32(q: Any) -> Any:
        score = vectors @ q
        top = np.argpartition(-score, 10)[:10]
        return top[np.argsort(-score[top])]

    def exact16(q: Any) -> Any:
        score = halves @ q.astype(np.float16)
        top = np.argpartition(-score, 10)[:10]
        return top[np.argsort(-score[top])]

    truth = [set(exact32(q).tolist()) for q in asked]
    report: dict[str, Any] = {"size": size, "threads": os.environ.get("OPENBLAS_NUM_THREADS"),
                              "queries": len(asked)}
    for name, method in (("binary_u64_bitwise_count_top100_rescore", binary),
                         ("binary_u64_bitwise_count_top400_rescore", binary400),
                         ("binary_u8_bitwise_count_top100_rescore", binary_u8),
                         ("binary_u8_table_top100_rescore", binary_table),
                         ("float32_matmul_top10", exact32), ("float16_matmul_top10", exact16)):
        runs, found = [], 0
        for q, want in zip(asked, truth):
            start = time.perf_counter()
            got = method(q)
            runs.append(time.perf_counter() - start)
            found += len(want & set(got.tolist()))
        report[name] = {"ms": round(1000 * median(runs), 2),
                        "recall@10_vs_float32": round(found / (10 * len(asked)), 3)}
    report["load_ms_from_page_cache"] = load_costs(vectors, halves, codes)
    report["real_sets_top10_recall"] = real_recall()
    print(json.dumps(report, indent=2))


def load_costs(vectors: Any, halves: Any, codes: Any) -> dict[str, float]:
    """What a fresh process pays to bring each form in from a warm page cache (np.load)."""
    import numpy as np  # lazy: as above

    out = {}
    for name, array in (("float32", vectors), ("float16", halves), ("codes", codes)):
        path = CACHE / f"search-{name}.npy"
        np.save(path, array)
        runs = []
        for _ in range(5):
            start = time.perf_counter()
            np.load(path)
            runs.append(time.perf_counter() - start)
        out[f"{name} ({array.nbytes / 1e6:.1f} MB)"] = round(1000 * median(runs), 2)
        path.unlink()
    return out


def real_recall() -> dict[str, float]:
    """On the real tuning sets (no tiling): how much of the float top-10 a Hamming top-100
    shortlist keeps, for every query of the set."""
    import numpy as np  # lazy: as above

    out = {}
    for name in ("til", "faq"):
        docs_path, queries_path = CACHE / f"{name}-docs.npy", CACHE / f"{name}-queries.npy"
        if not docs_path.exists():
            continue
        docs, queries = np.load(docs_path), np.load(queries_path)
        codes = np.packbits(docs > 0, axis=1)
        found = 0
        for q in queries:
            exact = set(np.argsort(-(docs @ q))[:10].tolist())
            top = np.argpartition(np.bitwise_count(codes ^ np.packbits(q > 0)).sum(1), 100)[:100]
            found += len(exact & set(top[np.argsort(-(docs[top] @ q))[:10]].tolist()))
        out[f"{name} ({len(docs)} docs)"] = round(found / (10 * len(queries)), 4)
    return out


def real_vectors() -> tuple[Any, Any]:
    import numpy as np  # lazy: as above

    docs, queries = CACHE / "til-docs.npy", CACHE / "til-queries.npy"
    if docs.exists() and queries.exists():
        return np.load(docs), np.load(queries)
    import embed_lab

    encoder = embed_lab.Encoder(embed_lab.default_model_dir())
    texts = embed_lab.notes(300)
    return (np.concatenate([encoder.embed(texts[i:i + 16]) for i in range(0, 300, 16)]),
            encoder.embed(["why did the scheduled task die", "out of storage space"]))


# --- cold start -------------------------------------------------------------------------

COLD = r"""
import time, sys
t = [("start", time.perf_counter())]
import numpy
t.append(("import numpy", time.perf_counter()))
import tokenizers
t.append(("import tokenizers", time.perf_counter()))
sys.path.insert(0, {here!r})
import embed_lab
t.append(("import embed_lab", time.perf_counter()))
folder = embed_lab.default_model_dir()
if {backend!r} == "numpy":
    enc = embed_lab.Encoder(folder, phases=t)
else:
    import onnxruntime
    t.append(("import onnxruntime", time.perf_counter()))
    enc = embed_lab.OnnxEncoder.from_file(folder, {onnx!r}, threads=2, phases=t)
enc.embed(["why did the scheduled task die"])
t.append(("first query vector", time.perf_counter()))
first = time.time()  # the parent's clock too: spawn to first vector
enc.embed(["out of storage space"])
t.append(("second query vector (warm)", time.perf_counter()))
print("READY", first, [(name, round(1000 * (b - a), 1)) for (name, b), (_, a) in zip(t[1:], t)])
"""


def cold(runs: int) -> None:
    sys.path.insert(0, str(HERE))
    onnx_path = CACHE / "minilm.onnx"
    if not onnx_path.exists():
        import embed_lab  # lazy: only to write the graph once

        onnx_path.write_bytes(embed_lab.build_onnx(
            embed_lab.Encoder(embed_lab.default_model_dir())).SerializeToString())
    baseline, baseline_cpu = [], []
    for _ in range(runs):
        used = resource.getrusage(resource.RUSAGE_CHILDREN)
        start = time.perf_counter()
        subprocess.run([sys.executable, "-c", "pass"], env=child_env(2), check=True)
        baseline.append(time.perf_counter() - start)
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        baseline_cpu.append(after.ru_utime + after.ru_stime - used.ru_utime - used.ru_stime)
    print(json.dumps({"baseline python -c pass ms": round(1000 * median(baseline), 1),
                      "cpu_ms": round(1000 * median(baseline_cpu), 1),
                      "load": os.getloadavg()[0]}))
    for backend in ("numpy", "onnx"):
        code = COLD.format(here=str(HERE), backend=backend, onnx=str(onnx_path))
        walls, phases, cpus = [], [], []
        for _ in range(runs):
            used = resource.getrusage(resource.RUSAGE_CHILDREN)
            start = time.time()
            done = subprocess.run([sys.executable, "-c", code], env=child_env(2),
                                  capture_output=True, text=True, check=True)
            line = next(x for x in done.stdout.splitlines() if x.startswith("READY"))
            first, listed = line[len("READY "):].split(" ", 1)
            walls.append(float(first) - start)
            after = resource.getrusage(resource.RUSAGE_CHILDREN)
            # CPU time reads truer than wall under load (the whole child, two queries too).
            cpus.append(after.ru_utime + after.ru_stime - used.ru_utime - used.ru_stime)
            phases.append(eval(listed))  # our own child's repr of a list
        middle = sorted(range(runs), key=lambda i: walls[i])[runs // 2]
        print(json.dumps({"backend": backend, "spawn_to_first_vector_ms_median": round(1000 * walls[middle], 1),
                          "wall_ms_all": [round(1000 * w, 1) for w in walls],
                          "child_cpu_ms_median": round(1000 * median(cpus), 1),
                          "phases_ms_of_median_run": phases[middle]}))


def main() -> int:
    if sys.argv[1:2] == ["_throughput"]:
        sys.path.insert(0, str(HERE))
        throughput_child(sys.argv[2], int(sys.argv[3]))
        return 0
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("what", choices=("throughput", "search", "cold"))
    parser.add_argument("--notes", type=int, default=500)
    parser.add_argument("--backends", nargs="+", default=["numpy", "onnx"])
    parser.add_argument("--size", type=int, default=100_000)
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    if args.what == "throughput":
        throughput(args.notes, args.backends)
    elif args.what == "search":
        for threads in (1, 2):
            subprocess.run([sys.executable, __file__, "_search", str(args.size)],
                           env=child_env(threads), check=True)
    else:
        cold(args.runs)
    return 0


if __name__ == "__main__":
    if sys.argv[1:2] == ["_search"]:
        search(int(sys.argv[2]))
        sys.exit(0)
    sys.exit(main())

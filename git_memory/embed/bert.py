"""A sentence-transformers BERT encoder (all-MiniLM-L6-v2 class) in numpy, no torch.

Reads a model folder as sentence-transformers saves it (config.json, tokenizer.json,
model.safetensors, sentence_bert_config.json) and reproduces its pipeline: Transformer,
mean pooling, L2 normalisation. Matches sentence-transformers' vectors within 2e-7
(bench/embed_lab.py --check-against-torch). Lab figures: docs/benchmarks.md.
"""

from __future__ import annotations

import hashlib
import json
import math
import mmap
import struct
from pathlib import Path
from typing import Any

import numpy as np
from tokenizers import Tokenizer

from git_memory.embed.base import EmbedderUnavailable

REQUIRED = ("config.json", "tokenizer.json", "model.safetensors")
_KINDS = {"F32": np.float32, "F16": np.float16, "I64": np.int64}  # I64: position ids


def is_model_dir(folder: Path) -> bool:
    return all((folder / name).is_file() for name in REQUIRED)


def weights_id(folder: Path) -> str:
    """8 hex digits naming these weights: the size and a hash of the first and last MiB
    (hashing all 90 MB would cost a fresh process ~0.1 s on every load)."""
    path = folder / "model.safetensors"
    size = path.stat().st_size
    digest = hashlib.sha256(str(size).encode())
    with path.open("rb") as handle:
        digest.update(handle.read(1 << 20))
        handle.seek(max(0, size - (1 << 20)))
        digest.update(handle.read(1 << 20))
    digest.update((folder / "tokenizer.json").read_bytes())
    return digest.hexdigest()[:8]


def read_safetensors(path: Path) -> dict[str, np.ndarray]:
    """The tensors of a .safetensors file (an 8-byte header length, a JSON header, raw
    data), as read-only views of the file mapped in memory: no copy of the 90 MB, and pages
    are read as the first forward pass touches them (a cold recall pays no more)."""
    with path.open("rb") as handle:
        size = struct.unpack("<Q", handle.read(8))[0]
        header = json.loads(handle.read(size))
        mapped = mmap.mmap(handle.fileno(), 0, access=mmap.ACCESS_READ)
    out: dict[str, np.ndarray] = {}
    for name, info in header.items():
        if name == "__metadata__":
            continue
        kind = _KINDS.get(info["dtype"])
        if kind is None:  # e.g. BF16, which numpy cannot read
            raise EmbedderUnavailable(f"{path}: tensor type {info['dtype']} is not supported")
        start, end = info["data_offsets"]
        if kind is np.int64:  # position ids: not weights
            continue
        array = np.frombuffer(mapped, dtype=kind, count=(end - start) // np.dtype(kind).itemsize,
                              offset=8 + size + start).reshape(info["shape"])
        # Checkpoints name tensors with or without the model's prefix ("bert.").
        out[name.removeprefix("bert.")] = array if kind is np.float32 else array.astype(np.float32)
    return out


def _erf(x: np.ndarray) -> np.ndarray:
    """erf in numpy alone (numpy has none): Numerical Recipes' erfc form, error < 1.2e-7,
    enough for float32 activations; BERT's GELU is the exact erf one, not the tanh one."""
    x64 = x.astype(np.float64)
    a = np.abs(x64)
    t = 1.0 / (1.0 + 0.5 * a)
    poly = (-a * a - 1.26551223 + t * (1.00002368 + t * (0.37409196 + t * (0.09678418 + t * (
        -0.18628806 + t * (0.27886807 + t * (-1.13520398 + t * (1.48851587 + t * (
            -0.82215223 + t * 0.17087277)))))))))
    return np.sign(x64) * (1.0 - t * np.exp(poly))


def _gelu(x: np.ndarray) -> np.ndarray:
    return (0.5 * x * (1.0 + _erf(x / math.sqrt(2.0)))).astype(np.float32)


def _layer_norm(x: np.ndarray, weight: np.ndarray, bias: np.ndarray, eps: float) -> np.ndarray:
    mean = x.mean(-1, keepdims=True)
    var = ((x - mean) ** 2).mean(-1, keepdims=True)
    return (x - mean) / np.sqrt(var + eps) * weight + bias


class BertEncoder:
    """One model folder loaded: `embed(texts)` -> unit vectors, as sentence-transformers."""

    def __init__(self, folder: Path, name: str) -> None:
        if not hasattr(np, "bitwise_count"):  # the vector search counts sign bits with it
            raise EmbedderUnavailable(f"recall by meaning needs numpy 2 or later (this is"
                                      f" {np.__version__}): pip install 'git-memory-cli[meaning]'")
        if not is_model_dir(folder):
            raise EmbedderUnavailable(f"{folder}: not a model folder (needs {', '.join(REQUIRED)})")
        config = json.loads((folder / "config.json").read_text())
        self.heads = int(config["num_attention_heads"])
        self.layers = int(config["num_hidden_layers"])
        self.eps = float(config.get("layer_norm_eps", 1e-12))
        self.dim = int(config["hidden_size"])
        self.model_id = f"{name}@{weights_id(folder)}"
        self.w = read_safetensors(folder / "model.safetensors")
        st_config = folder / "sentence_bert_config.json"
        max_len = json.loads(st_config.read_text()).get("max_seq_length", 256) \
            if st_config.is_file() else 256
        self.tokenizer = Tokenizer.from_file(str(folder / "tokenizer.json"))
        self.tokenizer.enable_truncation(int(max_len))
        self.tokenizer.enable_padding(pad_id=0, pad_token="[PAD]")

    def embed(self, texts: list[str]) -> np.ndarray:
        """Unit vectors, one row per text. Batches are sorted by length and kept small: on
        256-token notes batching gains nothing and padding costs (lab: docs/benchmarks.md)."""
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        order = sorted(range(len(texts)), key=lambda i: len(texts[i]))
        for start in range(0, len(order), 8):
            chunk = order[start:start + 8]
            out[chunk] = self._forward([texts[i] or " " for i in chunk])
        return out

    def _linear(self, x: np.ndarray, name: str) -> np.ndarray:
        # As one 2-D product with the weight's transposed view: BLAS reads it transposed in
        # place, where a 3-D `x @ W.T` (or a transposed copy made at load) copies the weights.
        flat = x.reshape(-1, x.shape[-1]) @ self.w[name + ".weight"].T
        return (flat + self.w[name + ".bias"]).reshape(*x.shape[:-1], -1)

    def _forward(self, texts: list[str]) -> np.ndarray:
        encodings = self.tokenizer.encode_batch(texts)
        ids = np.array([e.ids for e in encodings], dtype=np.int64)
        mask = np.array([e.attention_mask for e in encodings], dtype=np.float32)
        w = self.w
        batch, length = ids.shape
        x = (w["embeddings.word_embeddings.weight"][ids]
             + w["embeddings.position_embeddings.weight"][np.arange(length)][None]
             + w["embeddings.token_type_embeddings.weight"][0][None, None])
        x = _layer_norm(x, w["embeddings.LayerNorm.weight"], w["embeddings.LayerNorm.bias"], self.eps)
        bias = ((1.0 - mask) * np.float32(-1e9))[:, None, None, :]
        for n in range(self.layers):
            x = self._layer(x, f"encoder.layer.{n}.", bias, batch, length)
        pooled = (x * mask[..., None]).sum(1) / np.maximum(mask.sum(1, keepdims=True), 1e-9)
        return pooled / np.maximum(np.linalg.norm(pooled, axis=1, keepdims=True), 1e-12)

    def _layer(self, x: np.ndarray, p: str, bias: np.ndarray, batch: int, length: int) -> Any:
        w, dim = self.w, x.shape[-1] // self.heads

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
        return _layer_norm(x + self._linear(hidden, p + "output.dense"),
                           w[p + "output.LayerNorm.weight"], w[p + "output.LayerNorm.bias"], self.eps)

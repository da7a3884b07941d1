"""The vector store's snapshot file: one model's rows up to a sequence number, laid out to be
mapped in memory (hashes, the packed sign bits, the float16 vectors), written from the table
in batches and replaced at once. What searches read instead of the table (index.vectors)."""

from __future__ import annotations

import json
import mmap
import os
import sqlite3
import struct
from pathlib import Path
from typing import Any

from git_memory.index.files import vectors_path
from git_memory.store.leftovers import temp_path
from git_memory.store.locate import GitDirs

_MAGIC = b"GMVSNAP1"
# What a warm process (MCP server, embedding daemon) keeps of a snapshot: path -> (stamp, Snapshot).
_MAPPED: dict[str, tuple[tuple[int, int, int], Snapshot]] = {}


def numpy_module() -> Any:
    import numpy  # lazy: numpy, only where vectors are made or searched

    return numpy


def snapshot_path(dirs: GitDirs, model: str) -> Path:
    slug = "".join(c if c.isalnum() or c in "-_.@" else "_" for c in model)[:80]
    return vectors_path(dirs).with_name(f"vectors-{slug}.snap")


class Snapshot:
    """One model's rows up to `seq`, mapped from a snapshot file: `hashes` (bytes), `codes`
    (the sign bits, packed) and `values` (float16), one row each."""

    def __init__(self, path: Path) -> None:
        np = numpy_module()
        with path.open("rb") as handle:
            if handle.read(8) != _MAGIC:
                raise ValueError(f"{path}: not a vector snapshot")
            size = struct.unpack("<Q", handle.read(8))[0]
            head = json.loads(handle.read(size))
            mapped = mmap.mmap(handle.fileno(), 0, access=mmap.ACCESS_READ)
        self.store, self.model, self.seq = str(head["store"]), str(head["model"]), int(head["seq"])
        count, dim = int(head["count"]), int(head["dim"])
        self.hashes = np.frombuffer(mapped, dtype=f"S{int(head['width'])}", count=count,
                                    offset=int(head["hashes"]))
        self.codes = np.frombuffer(mapped, dtype=np.uint8, count=count * dim // 8,
                                   offset=int(head["codes"])).reshape(count, dim // 8)
        self.values = np.frombuffer(mapped, dtype=np.float16, count=count * dim,
                                    offset=int(head["values"])).reshape(count, dim)


def _aligned(offset: int) -> int:
    return -(-offset // 64) * 64


def write_snapshot(dirs: GitDirs, store: sqlite3.Connection, model: str) -> int:
    """Rewrite `model`'s snapshot from the table (streamed, a batch at a time) and replace
    the old one at once; the number of rows it holds."""
    np = numpy_module()
    count, top, width, blob = store.execute(
        "SELECT count(*), max(seq), max(length(hash)), max(length(v)) FROM vectors WHERE model = ?",
        (model,)).fetchone()
    if not count:
        return 0
    count, width, dim = int(count), int(width), int(blob) // 2
    head: dict[str, Any] = {"store": store_id(store), "model": model, "seq": int(top),
                            "count": count, "dim": dim, "width": width}
    room = len(json.dumps({**head, "hashes": 0, "codes": 0, "values": 0})) + 64  # for the offsets
    hashes_at = _aligned(16 + room)
    codes_at = _aligned(hashes_at + count * width)
    values_at = _aligned(codes_at + count * dim // 8)
    head.update(hashes=hashes_at, codes=codes_at, values=values_at)
    text = json.dumps(head).encode().ljust(room)
    path = snapshot_path(dirs, model)
    temporary = temp_path(path)  # a killed writer's is a leftover doctor names, import removes
    try:
        with temporary.open("wb") as out:
            out.write(_MAGIC + struct.pack("<Q", len(text)) + text)
            rows = store.execute("SELECT hash, v FROM vectors WHERE model = ? AND seq <= ?"
                                 " ORDER BY seq", (model, top))
            done = 0
            while batch := rows.fetchmany(10_000):
                values = np.frombuffer(b"".join(v for _, v in batch), dtype=np.float16)
                values = values.reshape(len(batch), dim)
                hashes = np.array([h for h, _ in batch], dtype=f"S{width}")
                for offset, data in ((hashes_at + done * width, hashes),
                                     (codes_at + done * dim // 8, np.packbits(values > 0, axis=1)),
                                     (values_at + done * dim * 2, values)):
                    out.seek(offset)
                    out.write(data.tobytes())
                done += len(batch)
        os.replace(temporary, path)
    finally:
        temporary.unlink(missing_ok=True)
    return count


def store_id(store: sqlite3.Connection) -> str:
    try:
        row = store.execute("SELECT value FROM meta WHERE key = 'id'").fetchone()
    except sqlite3.OperationalError:  # no meta table yet
        return ""
    return str(row[0]) if row else ""


def mapped(path: Path) -> Snapshot | None:
    """The snapshot at `path` (kept mapped by a warm process until the file is replaced),
    or None when there is none or it cannot be read (a search then reads the table)."""
    try:
        info = os.stat(path)
    except OSError:
        return None
    stamp = (info.st_ino, info.st_mtime_ns, info.st_size)
    kept = _MAPPED.get(str(path))
    if kept and kept[0] == stamp:
        return kept[1]
    try:
        snap = Snapshot(path)
    except (OSError, ValueError, KeyError, TypeError):
        return None
    _MAPPED[str(path)] = (stamp, snap)
    return snap



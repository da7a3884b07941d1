"""Blobs read straight from the repository's pack files, for an index build.

A build reads every record file once. One lookup in the pack's index and one zlib
inflate per blob cost about half of a pygit2 read, and the pages read stay in the
page cache rather than in this process (pygit2 maps whole packs: at a million
records that alone is hundreds of MiB of resident memory).

Only what is simple is read here: a whole (not delta-compressed) blob found in a
version-2 pack index, whose inflated bytes have the announced size and hash to its
id. Anything else (a loose object, a delta, another index version, a damaged entry)
is None, and the caller reads that blob its usual way (pygit2), which also reports
real damage as it always did. Standard library only; `store.branch` uses it.
"""

from __future__ import annotations

import hashlib
import mmap
import os
import struct
import zlib
from pathlib import Path

_MAGIC = b"\xfftOc\x00\x00\x00\x02"  # pack index, version 2
_BLOB = 3  # pack object type of a blob (6 and 7 are deltas)
_FIRST_READ = 1024  # bytes read at an object's offset: most record files fit whole


class _Pack:
    """One pack: its index mapped (read by binary search), its data read by offset."""

    def __init__(self, idx: Path) -> None:
        with open(idx, "rb") as handle:
            self.map = mmap.mmap(handle.fileno(), 0, access=mmap.ACCESS_READ)
        try:
            if self.map[:8] != _MAGIC:
                raise ValueError("not a version-2 pack index")
            self.fanout = struct.unpack_from(">256I", self.map, 8)
            count = self.fanout[255]
            self.shas = 8 + 1024
            self.offsets = self.shas + 24 * count  # after the ids (20 bytes) and CRCs (4)
            self.large = self.offsets + 4 * count
            self.fd = os.open(idx.with_suffix(".pack"), os.O_RDONLY)
        except BaseException:
            self.map.close()
            raise

    def close(self) -> None:
        self.map.close()
        os.close(self.fd)

    def offset(self, sha: bytes) -> int | None:
        first = sha[0]
        lo = self.fanout[first - 1] if first else 0
        hi = self.fanout[first]
        table, base = self.map, self.shas
        while lo < hi:
            mid = (lo + hi) // 2
            at = base + 20 * mid
            probe = table[at : at + 20]
            if probe < sha:
                lo = mid + 1
            elif probe > sha:
                hi = mid
            else:
                found: int = struct.unpack_from(">I", table, self.offsets + 4 * mid)[0]
                if found & 0x80000000:  # a pack over 2 GiB: the offset is in the large table
                    found = struct.unpack_from(">Q", table, self.large + 8 * (found & 0x7FFFFFFF))[0]
                return found
        return None

    def blob(self, offset: int) -> tuple[int, bytes] | None:
        """(size, the object's bytes after its header) when the object is a whole blob."""
        chunk = os.pread(self.fd, _FIRST_READ, offset)
        if not chunk:
            return None
        byte = chunk[0]
        kind, size, shift, at = (byte >> 4) & 7, byte & 15, 4, 1
        while byte & 0x80:
            if at >= len(chunk):
                return None
            byte = chunk[at]
            size |= (byte & 0x7F) << shift
            shift += 7
            at += 1
        if kind != _BLOB:
            return None
        # zlib's bound on deflated size (compressBound), plus its header and checksum.
        need = at + size + (size >> 12) + (size >> 14) + 64
        if need > len(chunk) == _FIRST_READ:
            chunk = os.pread(self.fd, need, offset)
        return size, chunk[at:]


class PackFiles:
    """The packs of an objects folder, open for the length of a `with` block."""

    def __init__(self, objects: Path) -> None:
        self.packs: list[_Pack] = []
        folder = objects / "pack"
        try:
            names = sorted(folder.glob("*.idx"))
        except OSError:
            names = []
        for idx in names:
            try:
                self.packs.append(_Pack(idx))
            except (OSError, ValueError, struct.error):
                continue  # being written, or another format: its blobs go the usual way

    def __enter__(self) -> PackFiles:
        return self

    def __exit__(self, *exc: object) -> None:
        for pack in self.packs:
            pack.close()
        self.packs = []

    def read(self, blob: str) -> bytes | None:
        """The blob's bytes, or None when it must be read another way."""
        try:
            sha = bytes.fromhex(blob)
        except ValueError:
            return None
        if len(sha) != 20:
            return None
        for pack in self.packs:
            offset = pack.offset(sha)
            if offset is None:
                continue
            try:
                found = pack.blob(offset)
                if found is None:
                    return None
                data = zlib.decompress(found[1], bufsize=max(found[0], 1))  # to the stream end
            except (OSError, zlib.error, IndexError):
                return None
            if len(data) != found[0] or hashlib.sha1(
                    b"blob %d\x00" % len(data) + data).digest() != sha:
                return None
            return data
        return None

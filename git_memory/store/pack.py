"""Many blobs as one pack file, for bulk imports: one loose file per blob costs a file
creation each (100k entries: seconds of syscalls, and work for `git gc` later).
Blobs go to disk undeltified as they come, so an import never holds them in memory."""

from __future__ import annotations

import hashlib
import os
import struct
import sys
import zlib
from array import array
from pathlib import Path

from git_memory.errors import GitMemoryError
from git_memory.store import gitrun, leftovers

_BLOB = 3
_CHUNK = 1 << 20


def _object_header(kind: int, size: int) -> bytes:
    first = (kind << 4) | (size & 0x0F)
    size >>= 4
    out = bytearray()
    while size:
        out.append(first | 0x80)
        first = size & 0x7F
        size >>= 7
    out.append(first)
    return bytes(out)


def blob_object(data: bytes) -> tuple[bytes, bytes, int]:
    """A blob as `PackStream.add_object` takes it: (20-byte object id, the object as the
    pack holds it: header and compressed body, its CRC-32). All of it depends on the
    blob alone, so another process can make it (bulk_items's workers)."""
    oid = hashlib.sha1(b"blob %d\x00" % len(data) + data).digest()
    header, packed = _object_header(_BLOB, len(data)), zlib.compress(data, 1)
    return oid, header + packed, zlib.crc32(packed, zlib.crc32(header))


class PackStream:
    """A pack written blob by blob to a temporary file, indexed and named by `finish()`;
    `abort()` (or a failed `finish`) leaves nothing behind. The header's count is set and
    the checksum computed at the end, by reading the file back (a fraction of the
    compression's cost). The `.idx` is written here too (ids, offsets and CRCs are known
    as we go): `git index-pack` inflates and hashes every object again, a fifth of a
    million-entry import's CPU, so it runs only for two objects with one id."""

    def __init__(self, common_dir: Path) -> None:
        self.folder = Path(common_dir) / "objects" / "pack"
        self.folder.mkdir(parents=True, exist_ok=True)
        # Not `*.pack`: git looks at packs through their `.idx`, and gc would flag a
        # lone `.pack`; a `tmp_` name is what git itself uses for packs being written.
        self.path = self.folder / f"{leftovers.PACK_PREFIX}{os.getpid()}_{id(self):x}"
        self.handle = open(self.path, "wb")
        # A descriptor of its own, held to the end: `handle` is closed and the file
        # reopened while `finish` completes it, and the lock must outlast both.
        self._lock = os.open(self.path, os.O_RDONLY)
        leftovers.lock(self._lock)
        self.handle.write(b"PACK" + struct.pack(">II", 2, 0))
        self.count = 0
        self.offset = 12  # where the next object starts
        self.oids = bytearray()  # 20 bytes per object, in pack order
        self.offsets = array("Q")
        self.crcs = array("I")

    def add(self, data: bytes) -> bytes:
        """Write one blob; its 20-byte object id."""
        oid, obj, crc = blob_object(data)
        self.add_object(oid, obj, crc)
        return oid

    def add_object(self, oid: bytes, obj: bytes, crc: int) -> None:
        """Write one blob `blob_object` made."""
        self.handle.write(obj)
        self.oids += oid
        self.offsets.append(self.offset)
        self.crcs.append(crc)
        self.offset += len(obj)
        self.count += 1

    def finish(self) -> None:
        """Index the pack and give it its name (nothing to do for an empty one)."""
        try:
            self.handle.seek(8)
            self.handle.write(struct.pack(">I", self.count))
            self.handle.close()
            if self.count == 0:
                return
            digest = hashlib.sha1()
            with open(self.path, "r+b") as handle:
                while chunk := handle.read(_CHUNK):
                    digest.update(chunk)
                handle.write(digest.digest())
            idx = self._side("idx")
            index = _pack_index(self.oids, self.offsets, self.crcs, digest.digest())
            if index is not None:
                idx.write_bytes(index)
                name = digest.hexdigest()  # git names a pack by its trailing checksum
            else:
                name = self._index_pack(idx)
            # The .pack first, the .idx last: git sees a pack once its index exists (a
            # git that writes reverse indexes by default names one after the .idx).
            os.replace(self.path, self.folder / f"pack-{name}.pack")
            if self._side("rev").exists():
                os.replace(self._side("rev"), self.folder / f"pack-{name}.rev")
            os.replace(idx, self.folder / f"pack-{name}.idx")
        finally:
            self.abort()

    def _index_pack(self, idx: Path) -> str:
        done = gitrun.run(["index-pack", "-o", str(idx), str(self.path)],
                          git_dir=self.folder.parent.parent, check=True, what="index a pack")
        name = done.stdout.decode("ascii", "replace").split()[-1]
        if len(name) not in (40, 64) or any(c not in "0123456789abcdef" for c in name):
            raise GitMemoryError(f"git index-pack named the pack {name[:80]!r}")
        return name

    def _side(self, suffix: str) -> Path:
        return self.path.with_name(f"{self.path.name}.{suffix}")

    def abort(self) -> None:
        if not self.handle.closed:
            self.handle.close()
        for leftover in (self.path, self._side("idx"), self._side("rev")):
            try:
                leftover.unlink()
            except FileNotFoundError:
                pass
        if self._lock >= 0:
            os.close(self._lock)  # after the unlink: a cleaner never sees it unlocked
            self._lock = -1


def _pack_index(oids: bytearray, offsets: array, crcs: array,  # type: ignore[type-arg]
                pack_sum: bytes) -> bytes | None:
    """A version 2 pack index (gitformat-pack(5)): magic and version, the fan-out table
    (objects whose id's first byte is at most 0..255), the ids in order, their CRC-32s,
    their offsets (31 bits, or an index into a table of 64-bit ones), the pack's
    checksum, then the index's own. None when two objects share an id (git's own
    index-pack then decides what the pack holds)."""
    # One list of 24-byte keys (id, then the object's number), sorted in place: a third
    # of the memory of ids, a key function and an order list (200 MB at a million).
    count = len(offsets)
    data = bytes(oids)
    keys = [data[20 * i: 20 * i + 20] + i.to_bytes(4, "big") for i in range(count)]
    del data
    keys.sort()
    ids = bytearray()
    fanout = array("I", bytes(1024))
    small, large, sums = array("I"), array("Q"), array("I")
    previous = b""
    for key in keys:
        oid = key[:20]
        if oid == previous:
            return None
        previous = oid
        ids += oid
        fanout[key[0]] += 1
        number = int.from_bytes(key[20:], "big")
        offset = offsets[number]
        if offset < 0x80000000:
            small.append(offset)
        else:
            small.append(0x80000000 | len(large))
            large.append(offset)
        sums.append(crcs[number])
    del keys
    total = 0
    for first in range(256):  # from counts to "ids whose first byte is at most this"
        total += fanout[first]
        fanout[first] = total
    for table in (fanout, small, large, sums):
        if sys.byteorder == "little":
            table.byteswap()  # the index is big-endian
    body = b"".join((b"\377tOc", struct.pack(">I", 2), fanout.tobytes(), ids, sums.tobytes(),
                     small.tobytes(), large.tobytes(), pack_sum))
    return body + hashlib.sha1(body).digest()


def write_blobs(common_dir: Path, blobs: list[bytes]) -> list[str]:
    """Store `blobs` in a new pack under `common_dir`; return their ids in order."""
    stream = PackStream(common_dir)
    try:
        ids = [stream.add(data).hex() for data in blobs]
    except BaseException:
        stream.abort()
        raise
    stream.finish()
    return ids

"""Git objects read without pygit2: after `git memory add` its commit, trees and blob are
loose, and reading them here spares the next recall pygit2's import (more than all the
rest of the catch-up). Anything unusual (a packed object, a merge, many commits)
gives None: the caller takes the pygit2 path. Also the one reader of tree objects."""

from __future__ import annotations

import zlib
from pathlib import Path

RECORD_ROOTS = ("entries", "records")  # as in store.layout, which the hot path does not load
MAX_COMMITS = 20


class Change:
    """A record file added or removed: its path, blob id and git file mode."""

    __slots__ = ("path", "blob", "mode")

    def __init__(self, path: str, blob: str, mode: int = 0o100644) -> None:
        self.path, self.blob, self.mode = path, blob, mode


class NotLoose(Exception):
    """An object we cannot read here; the caller falls back to pygit2."""


class LooseReader:
    """Reads loose objects of one repository (the `read_blob` the index needs)."""

    def __init__(self, common_dir: Path) -> None:
        self.objects = common_dir / "objects"

    def read(self, sha: str, kind: bytes) -> bytes:
        try:
            raw = zlib.decompress((self.objects / sha[:2] / sha[2:]).read_bytes())
        except (OSError, zlib.error):
            raise NotLoose(sha) from None
        header, _, body = raw.partition(b"\0")
        if header.split(b" ", 1)[0] != kind:
            raise NotLoose(sha)
        return body

    def read_blob(self, sha: str) -> bytes:
        return self.read(sha, b"blob")

    def commit(self, sha: str) -> tuple[str, list[str]]:
        """(tree, parents) of a commit."""
        tree, parents = "", []
        for line in self.read(sha, b"commit").split(b"\n"):
            if not line:
                break
            if line.startswith(b"tree "):
                tree = line[5:].decode()
            elif line.startswith(b"parent "):
                parents.append(line[7:].decode())
        return tree, parents

    def tree(self, sha: str) -> dict[str, tuple[bool, str, int]]:
        """name -> (is a tree, id, mode) of a tree object."""
        items: dict[str, tuple[bool, str, int]] = {}
        for mode, name, oid in tree_items(self.read(sha, b"tree")):
            # Submodules and symlinks are kept with their mode: the index counts them as bad.
            items[name.decode("utf-8", "surrogateescape")] = (mode == TREE_MODE, oid.hex(), int(mode, 8))
        return items


TREE_MODE = b"40000"  # a folder's mode in a tree object


def tree_items(body: bytes) -> list[tuple[bytes, bytes, bytes]]:
    """(mode, name, 20-byte id) of each item of a tree object's bytes, in their order, a
    name twice kept twice (doctor's tree check looks for that); ValueError for a bad tree."""
    items = []
    pos = 0
    while pos < len(body):
        space = body.index(b" ", pos)
        nul = body.index(b"\0", space)
        if nul + 21 > len(body):
            raise ValueError("a tree object cut short")
        items.append((body[pos:space], body[space + 1 : nul], body[nul + 1 : nul + 21]))
        pos = nul + 21
    return items


def changes_since(common_dir: Path, stamp: str, tip: str) -> tuple[LooseReader, list[Change], list[Change]] | None:
    """Record files added and removed from `stamp` to `tip`, or None to use pygit2. Only
    a straight line of at most MAX_COMMITS single-parent commits from `tip` back to
    `stamp` qualifies (which proves `stamp` an ancestor); an empty `stamp` is the memory
    before its first commit, the line ending at a root commit."""
    reader = LooseReader(common_dir)
    try:
        new_tree, parents = reader.commit(tip)
        sha = tip
        for _ in range(MAX_COMMITS):
            if not parents and not stamp:
                break  # the branch's first commit, from the empty memory
            if len(parents) != 1:
                return None
            if parents[0] == stamp:
                break
            sha = parents[0]
            _, parents = reader.commit(sha)
        else:
            return None
        added: list[Change] = []
        removed: list[Change] = []
        old_root = reader.tree(reader.commit(stamp)[0]) if stamp else {}
        new_root = reader.tree(new_tree)
        for root in RECORD_ROOTS:
            _walk(reader, old_root.get(root), new_root.get(root), root + "/", added, removed)
    except NotLoose:
        return None
    return reader, added, removed


def _walk(
    reader: LooseReader, was: tuple[bool, str, int] | None, now: tuple[bool, str, int] | None,
    prefix: str, added: list[Change], removed: list[Change],
) -> None:
    if was == now:
        return
    for item, out in ((was, removed), (now, added)):
        if item is not None and not item[0]:
            out.append(Change(prefix.rstrip("/"), item[1], item[2]))
    old = reader.tree(was[1]) if was is not None and was[0] else {}
    new = reader.tree(now[1]) if now is not None and now[0] else {}
    for name in sorted(old.keys() | new.keys()):
        _walk(reader, old.get(name), new.get(name), f"{prefix}{name}/", added, removed)

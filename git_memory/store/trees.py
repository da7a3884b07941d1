"""Trees of the memory branch with pygit2: built (files grafted onto a tree, rebuilding
only the folders on their paths) and counted or walked without reading blobs."""

from __future__ import annotations

from typing import Iterator, Mapping

import pygit2

from git_memory.errors import GitMemoryError
from git_memory.store.layout import MODE_BLOB


def count_quick(obj: pygit2.Object) -> int:
    if obj.type_str != "tree":
        return 1
    tree: pygit2.Tree = obj  # type: ignore[assignment]
    size = len(tree)
    if size and tree[0].type_str != "tree" and tree[size - 1].type_str != "tree":
        return size
    return sum(count_quick(item) for item in tree)  # type: ignore[arg-type]


def day_folders(obj: pygit2.Object, root: str) -> Iterator[tuple[str, pygit2.Object]]:
    """The `YYYY/MM/DD` folders under a record root (anything else is skipped here:
    the index's full build counts it as a bad file)."""
    if obj.type_str != "tree":
        return
    for year in obj:  # type: ignore[attr-defined]
        if year.type_str != "tree":
            continue
        for month in year:
            if month.type_str != "tree":
                continue
            for day in month:
                if day.type_str == "tree":
                    yield f"{year.name}/{month.name}/{day.name}", day


def file_mode(obj: pygit2.Object) -> int:
    mode = getattr(obj, "filemode", None)
    return int(mode) if mode is not None else MODE_BLOB


def graft(
    repo: pygit2.Repository, base: pygit2.Tree | None, files: Mapping[str, pygit2.Oid | str]
) -> pygit2.Oid:
    """The tree `base` with `files` (path -> blob id) added or replaced, rebuilding only
    the folders on their paths. A path where a file and a folder clash is refused, so
    no record is ever silently replaced by a folder (or the other way round)."""
    nested: dict = {}
    for path, oid in files.items():
        node = nested
        parts = path.split("/")
        for part in parts[:-1]:
            node = node.setdefault(part, {})
            if not isinstance(node, dict):
                raise GitMemoryError(f"path clash on the memory branch at {path}")
        node[parts[-1]] = oid if isinstance(oid, pygit2.Oid) else pygit2.Oid(hex=oid)
    return _build(repo, base, nested, "")


def _build(repo: pygit2.Repository, base: pygit2.Tree | None, nested: dict, where: str) -> pygit2.Oid:
    builder = repo.TreeBuilder(base) if base is not None else repo.TreeBuilder()
    for name, value in nested.items():
        if name == "":  # graft_folders' packed files
            _insert_packed(builder, base, value, where)
            continue
        existing = base[name] if base is not None and name in base else None
        if isinstance(value, dict):
            if existing is not None and not isinstance(existing, pygit2.Tree):
                raise GitMemoryError(f"path clash on the memory branch at {where}{name}")
            sub = _build(repo, existing, value, f"{where}{name}/")
            builder.insert(name, sub, pygit2.GIT_FILEMODE_TREE)
        else:
            if isinstance(existing, pygit2.Tree):
                raise GitMemoryError(f"path clash on the memory branch at {where}{name}")
            builder.insert(name, value, pygit2.GIT_FILEMODE_BLOB)
    return builder.write()


STAGED_NAME = 46  # where the file name starts in an `append_staged` entry


def graft_folders(
    repo: pygit2.Repository, base: pygit2.Tree | None, folders: Mapping[str, list[bytes]]
) -> pygit2.Oid:
    """`graft` for a bulk write: `folders` maps a folder path to its new files, packed as
    `append_staged` says, so a million files never become a million Python objects
    more than their packed bytes."""
    nested: dict = {}
    for folder, items in folders.items():
        node = nested
        for part in folder.split("/"):
            node = node.setdefault(part, {})
            if not isinstance(node, dict):
                raise GitMemoryError(f"path clash on the memory branch at {folder}")
        node.setdefault("", []).append(items)  # "" is never a path part: the files here
    return _build(repo, base, nested, "")


def _insert_packed(
    builder: pygit2.TreeBuilder, base: pygit2.Tree | None, lists: list[list[bytes]], where: str
) -> None:
    for items in lists:
        for item in items:
            if not item:
                continue
            name = item[STAGED_NAME:].decode("utf-8")
            if base is not None and name in base and isinstance(base[name], pygit2.Tree):
                raise GitMemoryError(f"path clash on the memory branch at {where}{name}")
            builder.insert(name, pygit2.Oid(raw=item[:20]), pygit2.GIT_FILEMODE_BLOB)

"""Which record files changed between two memory commits, reading only what changed.

Used by the index to catch up. pygit2 is imported by the caller's path anyway
(the index is behind), never on the hot path.
"""

from __future__ import annotations

from typing import Any


def tree_changes(branch: Any, old: str, new: str) -> tuple[list[Any], list[Any]]:
    """Record files added and removed between two memory commits.

    Walks both trees and skips every subtree whose id did not change, so one
    new entry among 100k costs a few tree reads (libgit2's tree diff took
    about 100 ms on the same change). Same result as `MemoryBranch.changes`.
    """
    from git_memory.store.branch import RECORD_ROOTS, FileChange

    repo = branch.repo
    added: list[Any] = []
    removed: list[Any] = []

    def files(tree: Any, prefix: str, out: list[Any]) -> None:
        for item in tree:
            if item.type_str == "tree":
                files(item, f"{prefix}{item.name}/", out)
            elif item.type_str == "blob":
                out.append(FileChange(prefix + item.name, str(item.id)))

    def walk(a: Any, b: Any, prefix: str) -> None:
        old_items = {item.name: item for item in a} if a is not None else {}
        new_items = {item.name: item for item in b} if b is not None else {}
        for name in old_items.keys() | new_items.keys():
            was, now = old_items.get(name), new_items.get(name)
            if was is not None and now is not None and was.id == now.id:
                continue
            if was is not None and now is not None and was.type_str == now.type_str == "tree":
                walk(was, now, f"{prefix}{name}/")
                continue
            for item, out in ((was, removed), (now, added)):
                if item is None:
                    continue
                if item.type_str == "tree":
                    files(item, f"{prefix}{name}/", out)
                elif item.type_str == "blob":
                    out.append(FileChange(prefix + name, str(item.id)))

    import pygit2

    old_tree, new_tree = repo[old].peel(pygit2.Tree), repo[new].peel(pygit2.Tree)
    for root in RECORD_ROOTS:
        was = old_tree[root] if root in old_tree else None
        now = new_tree[root] if root in new_tree else None
        if was is not None and now is not None and was.id == now.id:
            continue
        walk(was if was is None or was.type_str == "tree" else None,
             now if now is None or now.type_str == "tree" else None, root + "/")
    return sorted(added, key=lambda c: c.path), sorted(removed, key=lambda c: c.path)

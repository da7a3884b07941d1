"""Screening a fetched memory commit before it is merged: every file it adds (subtrees
equal to ours skipped) is checked against `store.layout`. When some fail, a commit on
top of it leaves them out, built from the fetched commit alone (its committer, a fixed
message) so that every clone makes the same one. What was left out goes to
`incoming.json`, for `doctor`."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

import pygit2

from git_memory.store.layout import RECORD_ROOTS, check_entry, unsafe_part
from git_memory.store.leftovers import temp_path
from git_memory.store.locate import GitDirs

STATE_NAME = "incoming.json"


@dataclass
class Screened:
    """The commit to merge instead of the fetched one, and what it leaves out."""

    tip: str
    refused: list[tuple[str, str]] = field(default_factory=list)  # (path, reason)
    reordered: list[str] = field(default_factory=list)  # folders written again in order


def screen(
    repo: pygit2.Repository, ours: str | None, theirs: str, roots: tuple[str, ...] = RECORD_ROOTS
) -> Screened:
    """`theirs` as it is when every file it adds is acceptable, else a cleaned commit."""
    tree = repo[theirs].peel(pygit2.Tree)
    base = repo[ours].peel(pygit2.Tree) if ours else None
    refused: list[tuple[str, str]] = []
    reordered: list[str] = []
    _check(repo, tree, base, "", roots, refused, reordered)
    if not refused and not reordered:
        return Screened(theirs)
    refused = list(dict.fromkeys(refused))  # a name three times is said once
    clean = _without(repo, tree, {p for p, _ in refused}, "", set(reordered))
    commit = repo[theirs].peel(pygit2.Commit)
    oid = repo.create_commit(
        None, commit.committer, commit.committer, _message(refused, reordered), clean,
        [commit.id],
    )
    return Screened(str(oid), refused, reordered)


def _message(refused: list[tuple[str, str]], reordered: list[str]) -> str:
    if refused:
        head = (f"memory: leave out {len(refused)} unsafe file{'s' if len(refused) != 1 else ''}"
                " that arrived with this branch")
    else:
        head = "memory: write again in git's order the folders that arrived out of it"
    return (head + "\n\n" + "".join(f"  {_printable(p)}: {why}\n" for p, why in refused)
            + "".join(f"  {_printable(p)}/: entries out of git's order, written in order\n"
                      for p in reordered))


def _printable(path: str) -> str:
    return path.encode("unicode_escape", "replace").decode("ascii")


def _check(
    repo: pygit2.Repository, tree: pygit2.Tree, base: pygit2.Tree | None, prefix: str,
    roots: tuple[str, ...], refused: list[tuple[str, str]], reordered: list[str],
) -> None:
    seen: set[str] = set()
    last = b""
    for item in tree:  # type: ignore[attr-defined]
        name = str(item.name)
        # git's order (names as bytes, a folder's as if it ended in '/'): a tree out of it is
        # one git fsck refuses, and a lookup by name may miss an entry; it is written again
        key = name.encode("utf-8", "surrogateescape") + (b"/" if isinstance(item, pygit2.Tree) else b"")
        if key < last and prefix.rstrip("/") not in reordered:
            reordered.append(prefix.rstrip("/"))
        last = max(last, key)
        path = f"{prefix}{name}"
        reason = unsafe_part(name)
        if not reason and name in seen:  # git fsck refuses such a tree; which copy is
            # meant cannot be told, so the name is left out (both copies)
            reason = "a name twice in one folder"
        seen.add(name)
        if reason:  # before any lookup by this name: `..` or `a/b` would be read as a path
            refused.append((path, reason))
            continue
        mine = base[name] if base is not None and _has(base, name) else None
        if mine is not None and mine.id == item.id and mine.filemode == item.filemode:
            continue  # we hold this very file or folder already
        if isinstance(item, pygit2.Tree):
            sub_base = mine if isinstance(mine, pygit2.Tree) else None
            _check(repo, item, sub_base, path + "/", roots, refused, reordered)
            continue
        # Names and modes only: reading every new blob's size here tripled the time of a
        # first sync of 20k records; an over-large file is skipped by the reader instead.
        reason = check_entry(path, int(item.filemode), roots)
        if reason:
            refused.append((path, reason))


def _has(tree: pygit2.Tree, name: str) -> bool:
    try:
        return name in tree
    except (ValueError, KeyError):
        return False


def _without(
    repo: pygit2.Repository, tree: pygit2.Tree, drop: set[str], prefix: str,
    rebuild: set[str] | None = None,
) -> pygit2.Oid:
    """`tree` minus the paths in `drop`, rebuilding only the folders on their way (and
    the folders in `rebuild`: a tree builder writes its entries in git's order)."""
    builder = repo.TreeBuilder(tree)
    removed: set[str] = set()
    for item in tree:  # type: ignore[attr-defined]
        name = str(item.name)
        path = f"{prefix}{name}"
        if path in drop:
            if name not in removed:  # a name twice is one entry in the builder
                builder.remove(name)
                removed.add(name)
        elif isinstance(item, pygit2.Tree) and (
                any(p.startswith(path + "/") for p in drop) or _leads_to(path, rebuild)):
            sub = _without(repo, item, drop, path + "/", rebuild)
            if len(repo[sub]) == 0:  # type: ignore[arg-type]
                builder.remove(name)  # git keeps no empty folders
            else:
                builder.insert(name, sub, pygit2.GIT_FILEMODE_TREE)
    return builder.write()


def _leads_to(path: str, rebuild: set[str] | None) -> bool:
    return rebuild is not None and any(r == path or r.startswith(path + "/") for r in rebuild)


def _state(dirs: GitDirs) -> dict[str, Any]:
    try:
        state = json.loads((dirs.memory_dir / STATE_NAME).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return state if isinstance(state, dict) else {}


def remember(dirs: GitDirs, remote: str, tip: str, refused: list[tuple[str, str]]) -> None:
    """Keep what the last sync from `remote` left out (doctor reads it)."""
    path = dirs.memory_dir / STATE_NAME
    state = _state(dirs)
    state[remote] = {"tip": tip, "refused": [{"path": p, "reason": r} for p, r in refused]}
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = temp_path(path)  # NAME.<pid>.tmp: two syncs at once never share one
    tmp.write_text(json.dumps(state, indent=1, sort_keys=True), encoding="utf-8")
    tmp.replace(path)


def remembered(dirs: GitDirs) -> dict[str, list[dict[str, str]]]:
    """remote -> the files the last sync from it left out."""
    return {str(remote): list(value.get("refused") or [])
            for remote, value in _state(dirs).items() if isinstance(value, dict)}

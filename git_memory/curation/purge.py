"""Purge: rewrite the memory branch's history without one redacted entry's file.

Every commit of the memory branch (and of local proposal branches built on it)
is rewritten with the same author, committer and message, minus that one path;
commits from before the entry existed keep their ids. The old commits stay in
the object store until the reflog expires and `git gc` prunes them, and every
other clone and the remote keep them until they are rewritten too: callers
must say so.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import pygit2

from git_memory.curation.proposal import PROPOSAL_PREFIX
from git_memory.errors import ConcurrentUpdate
from git_memory.store.branch import MemoryBranch


@dataclass
class PurgeResult:
    rewritten: int = 0
    refs: dict[str, str] = field(default_factory=dict)  # ref -> new tip
    still_holding: list[str] = field(default_factory=list)  # refs we must not rewrite


def _without(repo: pygit2.Repository, tree: pygit2.Tree, parts: list[str],
              memo: dict[tuple[str, str], pygit2.Oid]) -> pygit2.Oid:
    """`tree` minus the file at `parts`; the same id when it is not there."""
    key = (str(tree.id), "/".join(parts))
    if key in memo:
        return memo[key]
    name = parts[0]
    if name not in tree:
        result = tree.id
    elif len(parts) == 1:
        builder = repo.TreeBuilder(tree)
        builder.remove(name)
        result = builder.write()
    else:
        child = tree[name]
        if child.type_str != "tree":
            result = tree.id
        else:
            new_child = _without(repo, child, parts[1:], memo)  # type: ignore[arg-type]
            builder = repo.TreeBuilder(tree)
            if len(repo[new_child]) == 0:  # type: ignore[arg-type]
                builder.remove(name)  # git keeps no empty folders
            else:
                builder.insert(name, new_child, pygit2.GIT_FILEMODE_TREE)
            result = builder.write()
    memo[key] = result
    return result


def _refs_to_rewrite(branch: MemoryBranch) -> dict[str, str]:
    refs = {branch.ref: str(branch.repo.references[branch.ref].resolve().target)}
    for name in branch.repo.references:
        if name.startswith(PROPOSAL_PREFIX):
            refs[name] = str(branch.repo.references[name].resolve().target)
    return refs


def purge(branch: MemoryBranch, path: str) -> PurgeResult:
    """Rewrite the memory branch (and proposal branches) without the file at `path`."""
    repo = branch.repo
    refs = _refs_to_rewrite(branch)
    walker = repo.walk(refs[branch.ref], pygit2.enums.SortMode.TOPOLOGICAL
                       | pygit2.enums.SortMode.REVERSE)
    for tip in refs.values():
        walker.push(tip)
    mapped: dict[str, str] = {}
    memo: dict[tuple[str, str], pygit2.Oid] = {}
    result = PurgeResult()
    parts = path.split("/")
    for commit in walker:
        tree = _without(repo, commit.tree, parts, memo)
        parents = [mapped.get(str(p), str(p)) for p in commit.parent_ids]
        if tree == commit.tree_id and parents == [str(p) for p in commit.parent_ids]:
            mapped[str(commit.id)] = str(commit.id)
            continue
        oid = repo.create_commit(
            None, commit.author, commit.committer, commit.message, tree,
            [pygit2.Oid(hex=p) for p in parents],
        )
        mapped[str(commit.id)] = str(oid)
        result.rewritten += 1
    for name, old in refs.items():
        current = str(repo.references[name].resolve().target)
        if current != old:
            raise ConcurrentUpdate(f"{name} moved during the purge; run it again")
        new = mapped.get(old, old)
        if new != old:
            repo.references.create(name, new, force=True)
        result.refs[name] = new
    result.still_holding = _other_holders(branch, set(refs), set(mapped) - set(mapped.values()))
    return result


def _other_holders(branch: MemoryBranch, done: set[str], old_commits: set[str]) -> list[str]:
    """Refs we left alone (remote-tracking, tags) that still point into the old history."""
    holders = []
    for name in branch.repo.references:
        if name in done or not (name.startswith("refs/remotes/") or name.startswith("refs/tags/")):
            continue
        try:
            target = str(branch.repo.references[name].resolve().target)
        except (pygit2.GitError, KeyError):
            continue
        if target in old_commits or any(
            branch.is_ancestor(old, target) for old in list(old_commits)[:50]
        ):
            holders.append(name)
    return sorted(holders)

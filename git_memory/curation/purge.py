"""Purge: the memory branch's history (and local proposal branches') rewritten without one
redacted entry's blob (docs/curation.md, "Redaction and purge"), the same way every clone's
sync rewrites it on meeting the purge record, so the rewrites agree."""

from __future__ import annotations

from dataclasses import dataclass, field

from git_memory.curation.proposal_branch import PREFIX as PROPOSAL_PREFIX
from git_memory.errors import ConcurrentUpdate, GitMemoryError
from git_memory.store.branch import MemoryBranch


@dataclass
class PurgeResult:
    rewritten: int = 0
    refs: dict[str, str] = field(default_factory=dict)  # ref -> new tip
    still_holding: list[str] = field(default_factory=list)  # refs we must not rewrite


def purge(branch: MemoryBranch, blob: str) -> PurgeResult:
    """Rewrite the memory branch (and proposal branches) without any file holding `blob`."""
    names = [branch.ref, *branch.ref_names(PROPOSAL_PREFIX)]
    refs = {name: sha for name in names if (sha := branch.ref_target(name))}
    result = PurgeResult()
    old_commits: set[str] = set()
    for name, old in refs.items():
        new, count = branch.rewrite_without(old, {blob})
        result.rewritten += count
        if new != old:
            old_commits.add(old)
        result.refs[name] = new or old
    for name, old in refs.items():
        if branch.ref_target(name) != old:
            raise ConcurrentUpdate(f"{name} moved during the purge; run it again")
        if result.refs[name] != old and not branch.set_ref(name, result.refs[name]):
            raise GitMemoryError(f"cannot move {name} to the rewritten history")
    result.still_holding = _other_holders(branch, set(refs), old_commits)
    return result


def _other_holders(branch: MemoryBranch, done: set[str], old_commits: set[str]) -> list[str]:
    """Refs we left alone (remote-tracking, tags) that still point into the old history."""
    holders = []
    for name in branch.ref_names():
        if name in done or not (name.startswith("refs/remotes/") or name.startswith("refs/tags/")):
            continue
        target = branch.ref_target(name)
        if target is None:
            continue
        if target in old_commits or any(
            branch.is_ancestor(old, target) for old in list(old_commits)[:50]
        ):
            holders.append(name)
    return sorted(holders)

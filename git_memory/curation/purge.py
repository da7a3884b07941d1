"""Purge: rewrite the memory branch's history without one redacted entry's file.

Every commit of the memory branch (and of local proposal branches built on it)
is rewritten with the same author, committer and message, minus every file
holding that blob (store.rewrite); commits from before the entry existed keep
their ids. A secret in any commit message of that history (a curation reason in a
`Review-Reason:` trailer, say) is replaced by `[REDACTED:rule]` on the way
(deterministically, so every clone's rewrite agrees), so purging the record that
carried it leaves no copy in the log either. The command then leaves a `purge`
record naming the blob on the rewritten branch: every clone's sync that meets it
rewrites its own history and the remote's the same way (sync.engine), so the blob
cannot come back.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from git_memory.curation.proposal import PROPOSAL_PREFIX
from git_memory.errors import ConcurrentUpdate, GitMemoryError
from git_memory.store.branch import MemoryBranch


@dataclass
class PurgeResult:
    rewritten: int = 0
    refs: dict[str, str] = field(default_factory=dict)  # ref -> new tip
    still_holding: list[str] = field(default_factory=list)  # refs we must not rewrite


def _refs_to_rewrite(branch: MemoryBranch) -> dict[str, str]:
    refs = {branch.ref: branch.ref_target(branch.ref) or ""}
    for name in branch.ref_names(PROPOSAL_PREFIX):
        refs[name] = branch.ref_target(name) or ""
    return {name: sha for name, sha in refs.items() if sha}


def purge(branch: MemoryBranch, blob: str) -> PurgeResult:
    """Rewrite the memory branch (and proposal branches) without any file holding `blob`.

    By blob id, as every other clone's sync does when it meets the purge record
    (store.rewrite): the same commits rewritten the same way get the same ids."""
    refs = _refs_to_rewrite(branch)
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

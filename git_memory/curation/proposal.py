"""Curate's proposal (docs/curation.md, "curate"): the exact records it would append, their
hash (the tip and what every record says), apply and propose. Ids and `created` derive from
the tip, so a dry run is byte for byte what `--apply` or `--propose` writes."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field

from git_memory.curation import record_builders as build
from git_memory.curation.candidates import Candidate, Search, search
from git_memory.curation.proposal_branch import TRAILER, commit_records, name_of, ref_for
from git_memory.errors import BadInput, ConcurrentUpdate, NotFound
from git_memory.index.db import Index, open_index
from git_memory.index.curating import merge_sources
from git_memory.model import Record, utc_now
from git_memory.store.branch import MemoryBranch
from git_memory.store.locate import GitDirs
from git_memory.store.record_format import record_path

HASH_CHARS = 16


class ProposalChanged(BadInput):
    """The memory moved on since the proposal was reviewed."""


@dataclass
class Change:
    candidate: Candidate
    records: list[Record] = field(default_factory=list)


@dataclass
class Proposal:
    tip: str
    changes: list[Change]
    digest: str
    search: Search | None = None  # what the near-duplicate search examined

    @property
    def records(self) -> list[Record]:
        return [r for change in self.changes for r in change.records]


def _records_for(
    index: Index, cand: Candidate, author: str, created: str
) -> list[Record]:
    reason = f"curate: {cand.why}"
    opts = {"created": created, "source": "curate"}
    if cand.action == "duplicate":
        keeper = cand.ids[0]
        return [build.supersede(old, keeper, f"curate: duplicate of {keeper}", author, **opts)
                for old in cand.ids[1:]]
    if cand.action == "near_duplicate":
        # Keep the fullest wording; on a tie the oldest, so the choice is stable. Only the
        # type, tags and that one text are read: a large group is never loaded whole.
        kind, tags, text = merge_sources(index, cand.ids)
        return [build.merged_from_ids(cand.ids, kind, tags, text, reason, author, **opts)]
    return [build.status(cand.ids[0], "needs_review", reason, author, **opts)]


def digest_of(tip: str, records: list[Record]) -> str:
    # Hashed piece by piece (the same bytes as one joined text): a proposal merging a
    # million entries is never one string.
    digest = hashlib.sha256(("git-memory proposal v1\n" + tip + "\n").encode("utf-8"))
    for number, record in enumerate(records):
        digest.update((("\n" if number else "") + build.canonical(record)).encode("utf-8"))
    return digest.hexdigest()[:HASH_CHARS]


def compute(dirs: GitDirs) -> Proposal:
    """The proposal for the memory as it is now."""
    branch = MemoryBranch(dirs)
    tip = branch.tip()
    if tip is None:
        raise NotFound("no memory branch yet; nothing to curate")
    stamp = branch.commit(tip).time
    created = utc_now(stamp)
    author = branch.author()
    index = open_index(dirs)
    try:
        if index.stamp != tip:
            raise ConcurrentUpdate("the memory branch moved while curating; run it again")
        found, report = search(index)
        changes = [Change(c, _records_for(index, c, author, created)) for c in found]
    finally:
        index.close()
    proposal = Proposal(tip, changes, "", report)
    for number, record in enumerate(proposal.records):
        seed = f"{tip}\n{author}\n{number}\n{build.canonical(record)}"
        record.id = build.derived_id(stamp * 1000, seed)
        record.path = record_path(record)
    proposal.digest = digest_of(tip, proposal.records)
    return proposal


def check(proposal: Proposal, given: str) -> None:
    """Refuse a hash that is not this proposal's (at least 8 characters of it)."""
    wanted = given.strip().lower()
    if len(wanted) < 8 or not proposal.digest.startswith(wanted):
        raise ProposalChanged(
            f"proposal {given} no longer matches the memory (it is now {proposal.digest});"
            " the memory changed since it was reviewed: run `git memory curate --dry-run`"
            " and review again"
        )


def apply(dirs: GitDirs, given: str) -> tuple[Proposal, str]:
    """Append the proposal reviewed as `given`, in one commit; (proposal, commit)."""
    branch = MemoryBranch(dirs)
    branch.ensure_init()
    proposal = compute(dirs)
    check(proposal, given)
    if not proposal.records:
        raise BadInput("the proposal is empty; nothing to apply")
    count = len(proposal.changes)
    message = (f"memory: curate, {count} change{'' if count == 1 else 's'}"
               f" (proposal {proposal.digest})")
    trailers = build.trailers(proposal.records) + [("Proposal", proposal.digest)]
    moved = ProposalChanged(f"{branch.ref} moved while writing; nothing was written")
    commit = commit_records(branch, branch.ref, proposal.tip, proposal.records, message, trailers,
                            moved)
    return proposal, commit


def propose(dirs: GitDirs, name: str) -> tuple[Proposal, str, str]:
    """Write the proposal on its own branch, one commit per change; (proposal, ref, tip)."""
    ref = ref_for(name)
    name = name_of(ref)
    branch = MemoryBranch(dirs)
    if branch.ref_target(ref) is not None:
        raise BadInput(f"{ref} already exists; pick another name or delete it first")
    proposal = compute(dirs)
    if not proposal.records:
        raise BadInput("nothing to curate; no proposal branch written")
    parent, create = proposal.tip, True
    for change in proposal.changes:
        short = ", ".join(i[-8:].lower() for i in change.candidate.ids)
        message = f"memory: curate proposal {name}: {change.candidate.action} {short}"
        trailers = build.trailers(change.records) + [("Proposal", proposal.digest),
                                                       (TRAILER, name)]
        moved = ProposalChanged(f"{ref} moved while writing; nothing was written")
        parent = commit_records(branch, ref, parent, change.records, message, trailers, moved,
                                create)
        create = False
    return proposal, ref, parent

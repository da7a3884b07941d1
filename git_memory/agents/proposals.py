"""Agent writes that wait for review: one entry on a proposal branch of its own.

When `memory.agentWrites` is `propose`, an agent's entry is not appended to the
memory branch; it is committed on top of the memory branch's tip as
`refs/heads/git-memory-proposals/agent-<short id>` (the prefix curation proposals
use), so a person can look at it with `git log -p` and merge it, or delete the
branch. The entry went through the same sanitizer as a direct write. Never prints.
May import `store`, `writer`, `curation.proposal` (the prefix) and `errors`.
"""

from __future__ import annotations

from git_memory.curation.proposal import PROPOSAL_PREFIX
from git_memory.model import Record
from git_memory.store.branch import MemoryBranch
from git_memory.store.locate import GitDirs
from git_memory.store.record_format import dump_record, record_path
from git_memory.writer import NewEntry, prepare


def propose_entry(dirs: GitDirs, item: NewEntry) -> tuple[Record, str]:
    """Sanitize `item` (SecretFound / BadInput as for `add`) and commit it on a new
    proposal branch; (the record, the ref written)."""
    branch = MemoryBranch(dirs)
    record = prepare(item, dirs, branch.author())
    record.path = record.path or record_path(record)
    tip = branch.ensure_init()
    ref = f"{PROPOSAL_PREFIX}agent-{record.id[-8:].lower()}"
    message = f"memory: agent proposes {record.type} {record.id[-8:].lower()}"
    branch.commit_once(ref, tip, {record.path: dump_record(record).encode("utf-8")}, message,
                       create=True)
    return record, ref

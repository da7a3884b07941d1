"""The local half of sync: two memory histories unioned into one commit (docs/sync.md, "Edge
cases of the merge") and the local ref moved by compare-and-swap."""

from __future__ import annotations

import random
import time
from dataclasses import dataclass, field

from git_memory.errors import GitMemoryError
from git_memory.store.branch import RECORD_ROOTS, SESSION_ROOTS, Delta, MemoryBranch

REF_ATTEMPTS = 60


class RefMoved(Exception):
    """The local ref changed under us (internal: re-read and retry)."""


@dataclass(frozen=True)
class Rules:
    """How the union merge treats one ref."""

    roots: tuple[str, ...]  # top-level folders whose files are records (counted, merged)
    title: str  # what the merge commit says it merged
    keep_longer: bool = False  # a file changed on both sides: keep the longer, not both
    noun: str = "memory"  # for messages: "origin has memory this clone lacks"
    optional: bool = False  # a clone may hold none: pushing nothing is not an error


MEMORY = Rules(RECORD_ROOTS, "the memory branch")
# One Markdown file per session under sessions/; a session only grows, so on a clash the
# longer copy holds everything the shorter one did.
SESSIONS = Rules(SESSION_ROOTS, "the session archive", keep_longer=True, noun="sessions",
                 optional=True)


@dataclass
class Plan:
    """What the local branch should become after seeing their tip."""

    result: str | None  # the commit that holds both sides (None: no memory anywhere)
    kind: str  # empty | adopt | up-to-date | ahead | fast-forward | merge
    conflicts: list[str] = field(default_factory=list)
    # Record files only their side had / only ours had, when the merge already counted them.
    theirs_only: int | None = None
    ours_only: int | None = None


def plan(
    branch: MemoryBranch, ours: str | None, theirs: str | None, label: str, rules: Rules = MEMORY
) -> Plan:
    """Decide how to combine `ours` and `theirs`, creating a merge commit when needed."""
    if theirs is None:
        return Plan(ours, "ahead" if ours else "empty")
    if ours is None:
        return Plan(theirs, "adopt")
    if branch.is_ancestor(theirs, ours):
        return Plan(ours, "up-to-date" if ours == theirs else "ahead")
    if branch.is_ancestor(ours, theirs):
        return Plan(theirs, "fast-forward")
    tree, conflicts, (theirs_only, ours_only) = union_tree(branch, ours, theirs, rules)
    message = f"memory: merge {rules.title} of {label}\n"
    if conflicts:
        message += "\nKept both versions of files edited on both sides:\n"
        message += "".join(f"  {path}\n" for path in conflicts)
    merged = branch.merge_commit(tree, [ours, theirs], message)
    return Plan(merged, "merge", conflicts, theirs_only, ours_only)


def _beside(path: str, blob: str) -> str:
    """entries/.../x.md -> entries/.../x.conflict-1a2b3c4d.md"""
    head, _, name = path.rpartition("/")
    stem, dot, ext = name.rpartition(".")
    new = f"{stem}.conflict-{blob[:8]}.{ext}" if dot else f"{name}.conflict-{blob[:8]}"
    return f"{head}/{new}" if head else new


def union_tree(
    branch: MemoryBranch, ours: str, theirs: str, rules: Rules = MEMORY
) -> tuple[str, list[str], tuple[int, int]]:
    """Our tree plus every file of theirs we lack or that only they changed, both on a clash;
    also how many record files only they had and only we had."""
    base_commit = branch.merge_base(ours, theirs)
    updates: dict[str, str] = {}
    conflicts: list[str] = []
    theirs_only = ours_only = 0
    # A tree diff in libgit2 skips identical subtrees, so this stays cheap at 100k records.
    deltas: list[Delta] = branch.diff(ours, theirs)
    for delta in deltas:
        status = delta.status
        record = delta.path.split("/", 1)[0] in rules.roots
        if status == "A":  # theirs has it, we do not (new there, or deleted here: keep it)
            updates[delta.path] = delta.new_blob
            theirs_only += record
        elif status == "D":  # we have it, they do not: keep ours
            ours_only += record
        elif status == "M":
            path, mine, new = delta.path, delta.old_blob, delta.new_blob
            base = branch.blob_at(base_commit, path) if base_commit is not None else None
            if base == mine:
                updates[path] = new  # only they changed it
            elif base == new or path.split("/", 1)[0] not in rules.roots:
                continue  # only we changed it; or README/.gitattributes, where ours will do
            elif rules.keep_longer:
                # The same session grown on two machines: the longer copy holds more of it.
                # Ties go to the smaller blob id, so both sides' merges build the same tree.
                longer = min((mine, new), key=lambda oid: (-branch.blob_size(oid), oid))
                if longer != mine:
                    updates[path] = longer
            else:
                low, high = sorted((mine, new))
                updates[path] = low
                updates[_beside(path, high)] = high
                conflicts.append(path)
    return branch.graft_onto(ours, updates), sorted(conflicts), (theirs_only, ours_only)


def move_ref(branch: MemoryBranch, expected: str | None, new: str, message: str) -> None:
    """Point the local memory ref at `new` only if it still points at `expected`."""
    if not branch.move_ref(expected, new, message):
        raise RefMoved()


def integrate(
    branch: MemoryBranch, theirs: str, label: str, rules: Rules = MEMORY
) -> tuple[str | None, Plan]:
    """Bring `theirs` into the local branch (fast-forward or merge), retrying while it moves:
    the local tip before, and the plan applied."""
    for attempt in range(REF_ATTEMPTS):
        ours = branch.local_tip()
        step = plan(branch, ours, theirs, label, rules)
        if step.result is None or step.result == ours:
            return ours, step
        try:
            move_ref(branch, ours, step.result, f"git-memory sync: {step.kind} {label}")
            return ours, step
        except RefMoved:
            time.sleep(random.uniform(0.005, 0.02) * (1 + min(attempt, 10)))
    raise GitMemoryError(
        f"the memory branch kept changing; gave up after {REF_ATTEMPTS} attempts"
    )

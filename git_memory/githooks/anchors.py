"""Re-check entry anchors against the checked-out tree (post-checkout, post-merge).

Anchors judge the code: a checkout of the memory branch itself (a worktree on it), or
of a branch with no history in common with the previous HEAD, changes no flag.

An entry anchored to paths that are all gone from HEAD is flagged `stale`; one
with some of them gone `needs_review`. Flags are local judgements: they live in
the index table `local_flags` (and each change in the audit log), never on the
branch, because another checkout may bring the files back; when it does, the
flag is cleared.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import re
import time
from dataclasses import dataclass, field
from typing import Any, Iterator

from git_memory.index.db import open_index
from git_memory.index.entries import anchored
from git_memory.index.flags import local_flags, replace_local_flags
from git_memory.sanitize import audit
from git_memory.store.locate import GitDirs


MAX_REASON_PATHS = 5


@dataclass
class AnchorReport:
    checked: int = 0
    flagged: dict[str, tuple[str, str]] = field(default_factory=dict)  # id -> (flag, reason)
    changed: int = 0  # flags set, changed or cleared by this check
    cleared: list[str] = field(default_factory=list)
    head: str | None = None


def _anchor_paths(row: Any) -> list[str]:
    origin = json.loads(row["origin"] or "{}")
    fields = json.loads(row["fields"] or "{}")
    # `origin.paths` are the files a commit touched: paths whatever their characters.
    captured = origin.get("paths") if isinstance(origin, dict) else None
    out = [v for v in captured if isinstance(v, str)] if isinstance(captured, list) else []
    extra = fields.get("anchors")
    if isinstance(extra, list):
        out.extend(v for v in extra if isinstance(v, str) and _looks_like_path(v))
    return [p for p in dict.fromkeys(out) if p]


def _looks_like_path(anchor: str) -> bool:
    """Hand-written anchors may name symbols (`Class.method`, `fn()`, `mod::item`), which
    are not files; a name with a space is a path only when it has a folder or an extension."""
    if "(" in anchor or "::" in anchor:
        return False
    return " " not in anchor or "/" in anchor or re.search(r"\.[A-Za-z0-9]+$", anchor) is not None


def _judge(paths: list[str], tree: Any, head: str) -> tuple[str, str] | None:
    missing = [p for p in paths if not tree.has(p)]
    if not missing:
        return None
    shown = ", ".join(missing[:MAX_REASON_PATHS]) + (" ..." if len(missing) > MAX_REASON_PATHS else "")
    if len(missing) == len(paths):
        return "stale", f"all anchored files are gone at {head[:12]}: {shown}"
    return "needs_review", f"{len(missing)} of {len(paths)} anchored files are gone at {head[:12]}: {shown}"


def check_anchors(
    dirs: GitDirs, source: str = "post-checkout", previous: str | None = None
) -> AnchorReport:
    """Bring the index up to date, then flag or clear entries by their anchors
    (`previous`: the HEAD before a checkout, to tell an unrelated branch)."""
    report = AnchorReport()
    from git_memory.store.commits import head_tree  # lazy: pygit2, only when a checkout happened (a git hook)

    tree = head_tree(dirs, previous)
    if tree is None:
        return report
    report.head = tree.sha
    index = open_index(dirs)
    try:
        rows = anchored(index)
        before = local_flags(index)
        now = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
        verdicts: dict[str, tuple[str, str]] = {}
        for row in rows:
            paths = _anchor_paths(row)
            if not paths:
                continue
            report.checked += 1
            verdict = _judge(paths, tree, report.head)
            if verdict:
                verdicts[row["id"]] = verdict
        replace_local_flags(index, verdicts, now)
    finally:
        index.close()
    actions: list[audit.Action] = []
    report.flagged = verdicts
    for eid, (flag, reason) in verdicts.items():
        if before.get(eid, (None,))[0] != flag:
            report.changed += 1
            actions.append(audit.Action(f"anchor-{flag.replace('_', '-')}", "flagged", reason, source, eid))
    for eid in before:
        if eid not in verdicts:
            report.cleared.append(eid)
            report.changed += 1
            actions.append(audit.Action("anchor-present", "cleared", "anchored files are back", source, eid))
    audit.write(dirs, actions)
    return report


def flags(dirs: GitDirs) -> dict[str, tuple[str, str | None]]:
    """The current local flags: {id: (flag, reason)}."""
    index = open_index(dirs)
    try:
        return local_flags(index)
    finally:
        index.close()


@contextlib.contextmanager
def coalesced(dirs: GitDirs) -> Iterator[bool]:
    """Let a burst of checkouts (a rebase, a script) run at most one check and one waiter.

    Yields True when this process should run the check: it holds the run lock. A
    process that finds another already waiting yields False and leaves, because that
    waiter will run after the current check and see the newest HEAD anyway.
    """
    dirs.memory_dir.mkdir(parents=True, exist_ok=True)
    with open(dirs.memory_dir / "anchors.wait.lock", "a+") as wait, \
            open(dirs.memory_dir / "anchors.run.lock", "a+") as run:
        try:
            fcntl.flock(wait, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            yield False
            return
        fcntl.flock(run, fcntl.LOCK_EX)
        fcntl.flock(wait, fcntl.LOCK_UN)
        try:
            yield True
        finally:
            fcntl.flock(run, fcntl.LOCK_UN)

"""Re-check entry anchors against the checked-out tree (post-checkout, post-merge): all anchored
paths gone is `stale`, some `needs_review`. Flags are local (the index's `local_flags`, each
change audited), never on the branch: another checkout may bring the files back.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import re
import time
from typing import Any, Iterator

from git_memory.index.db import open_index
from git_memory.index.entries import anchored
from git_memory.index.flags import local_flags, replace_local_flags
from git_memory.sanitize import audit
from git_memory.store.locate import GitDirs


MAX_REASON_PATHS = 5


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


def check_anchors(dirs: GitDirs, source: str = "post-checkout",
                  previous: str | None = None) -> dict[str, tuple[str, str]]:
    """Bring the index up to date, then flag or clear entries by their anchors; the flags
    now set, {id: (flag, reason)}. No flag changes when the checkout is of the memory
    branch itself or of a branch with no history in common with `previous` (the HEAD
    before): anchors judge the code."""
    from git_memory.store.commits import head_tree  # lazy: pygit2, only when a checkout happened (a git hook)

    tree = head_tree(dirs, previous)
    if tree is None:
        return {}
    verdicts: dict[str, tuple[str, str]] = {}
    with contextlib.closing(open_index(dirs)) as index:
        before = local_flags(index)
        for row in anchored(index):
            verdict = _judge(_anchor_paths(row), tree, tree.sha)
            if verdict:
                verdicts[row["id"]] = verdict
        replace_local_flags(index, verdicts, time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()))
    actions = [audit.Action(f"anchor-{flag.replace('_', '-')}", "flagged", reason, source, eid)
               for eid, (flag, reason) in verdicts.items() if before.get(eid, (None,))[0] != flag]
    actions += [audit.Action("anchor-present", "cleared", "anchored files are back", source, eid)
                for eid in before if eid not in verdicts]
    audit.write(dirs, actions)
    return verdicts


@contextlib.contextmanager
def coalesced(dirs: GitDirs) -> Iterator[bool]:
    """Let a burst of checkouts (a rebase, a script) run at most one check and one waiter.
    Yields True when this process holds the run lock; False when another waits already
    (it runs after the current check and sees the newest HEAD anyway)."""
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

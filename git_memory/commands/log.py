"""`git memory log`: the memory branch's history, one line per commit with what it added."""

from __future__ import annotations

import time

import pygit2

from git_memory import ui
from git_memory.store.branch import RECORD_ROOTS, MemoryBranch
from git_memory.store.locate import discover


def _counts(repo: pygit2.Repository, commit: pygit2.Commit) -> tuple[int, int]:
    tree = commit.tree
    if commit.parents:
        diff = commit.parents[0].tree.diff_to_tree(tree)
    else:
        diff = tree.diff_to_tree(swap=True)
    added = removed = 0
    for delta in diff.deltas:
        path = delta.new_file.path or delta.old_file.path
        if path.split("/", 1)[0] not in RECORD_ROOTS:
            continue
        if delta.status_char() == "D":
            removed += 1
        else:
            added += 1
    return added, removed


def run(*, limit: int) -> int:
    branch = MemoryBranch(discover())
    tip = branch.tip()
    if tip is None:
        ui.out("no memory branch yet; add an entry with: git memory add \"LEARNED: ...\"")
        return 0
    walker = branch.repo.walk(tip, pygit2.enums.SortMode.TOPOLOGICAL | pygit2.enums.SortMode.TIME)
    for number, commit in enumerate(walker):
        if limit and number >= limit:
            break
        added, removed = _counts(branch.repo, commit)
        when = time.strftime("%Y-%m-%d %H:%M", time.gmtime(commit.commit_time))
        change = f"+{added}" + (f" -{removed}" if removed else "")
        lines = commit.message.strip().split("\n")
        ui.out(f"{str(commit.id)[:10]} {when} {commit.author.name}: {lines[0]} ({change} records)")
        for line in lines[1:]:
            if ": " in line and line.split(": ", 1)[0].replace("-", "").isalpha():
                ui.out(f"    {line.strip()}")
    return 0

"""Our tree walk (MemoryBranch.changes, used by the index) agrees with libgit2's tree diff."""

from __future__ import annotations

from pathlib import Path

from conftest import git
import pygit2

from git_memory.model import Record, new_id
from git_memory.store.branch import MemoryBranch
from git_memory.store.locate import discover


def _libgit2_changes(branch: MemoryBranch, old: str, new: str) -> tuple[list, list]:
    """The reference: libgit2's own diff, restricted to record folders."""
    diff = branch.repo[old].peel(pygit2.Tree).diff_to_tree(branch.repo[new].peel(pygit2.Tree))
    added, removed = [], []
    for delta in diff.deltas:
        if delta.status_char() in ("D", "M"):
            removed.append((delta.old_file.path, str(delta.old_file.id)))
        if delta.status_char() in ("A", "M"):
            added.append((delta.new_file.path, str(delta.new_file.id)))
    keep = lambda side: sorted(p for p in side if p[0].split("/")[0] in ("entries", "records"))  # noqa: E731
    return keep(added), keep(removed)


def _entry(content: str, day: str) -> Record:
    return Record(id=new_id(), type="fact", content=content, created=f"{day}T10:00:00Z",
                  author="T <t@example.com>")


def test_tree_walk_matches_libgit2_diff(git_repo: Path, tmp_path: Path) -> None:
    branch = MemoryBranch(discover())
    first = branch.append([_entry(f"entry {i}", f"2026-01-0{1 + i % 3}") for i in range(9)], "one")
    second = branch.append([_entry("late", "2026-02-01"), _entry("early", "2026-01-01")], "two")
    work = tmp_path / "wt"
    git("worktree", "add", "-q", str(work), "git-memory", cwd=git_repo)
    victim = sorted((work / "entries" / "2026" / "01" / "02").iterdir())[0]
    victim.unlink()
    (work / "entries" / "2026" / "01" / "03" / "renamed.md").write_text("---\nid: X\n---\nx\n")
    (work / "records").mkdir()
    (work / "records" / "r.md").write_text("---\nid: Y\n---\ny\n")
    (work / "stray.txt").write_text("not a record\n")
    git("add", "-A", cwd=work)
    git("commit", "-q", "-m", "hand", cwd=work)
    third = branch.tip()
    assert third is not None
    for old, new in ((first, second), (second, third), (first, third), (third, first)):
        mine = branch.changes(old, new)
        assert [sorted((c.path, c.blob) for c in side) for side in mine] == list(
            _libgit2_changes(branch, old, new))
    added, removed = branch.changes(second, third)
    assert {c.path.rsplit("/", 1)[-1] for c in added} == {"renamed.md", "r.md"}
    assert len(removed) == 1

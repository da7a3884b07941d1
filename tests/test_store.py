"""The storage layer directly: tree diffs, bulk packs, adoption of a remote branch."""

from __future__ import annotations

import json
from pathlib import Path

from conftest import git, out
from git_memory.model import Record, new_id, utc_now
from git_memory.store.branch import MemoryBranch
from git_memory.store.locate import discover, memory_tip


def _entry(text: str) -> Record:
    return Record(id=new_id(), type="fact", content=text, created=utc_now())


def test_changes_lists_added_and_removed_records(git_repo: Path) -> None:
    branch = MemoryBranch(discover())
    first = branch.append([_entry("one"), _entry("two")], "two entries")
    later = _entry("three")
    second = branch.append([later], "one more")
    added, removed = branch.changes(first, second)
    assert [c.path for c in added] == [later.path] and removed == []
    # A hand commit that deletes a record shows up as removed.
    git("worktree", "add", "-q", str(git_repo.parent / "mem"), "git-memory", cwd=git_repo)
    mem = git_repo.parent / "mem"
    git("rm", "-q", later.path, cwd=mem)
    git("commit", "-q", "-m", "remove one", cwd=mem)
    third = memory_tip(discover())
    assert third is not None
    added, removed = branch.changes(second, third)
    assert added == [] and [c.path for c in removed] == [later.path]
    assert branch.is_ancestor(first, third) and not branch.is_ancestor(third, first)


def test_bulk_import_writes_one_pack_not_loose_objects(git_repo: Path, gm) -> None:
    rows = [json.dumps({"type": "fact", "content": f"bulk fact number {i}"}) for i in range(600)]
    path = git_repo.parent / "bulk.jsonl"
    path.write_text("\n".join(rows) + "\n", encoding="utf-8")
    packs_before = set((git_repo / ".git" / "objects" / "pack").glob("*.pack"))
    assert gm("import", str(path)).returncode == 0
    packs_after = set((git_repo / ".git" / "objects" / "pack").glob("*.pack"))
    assert len(packs_after - packs_before) == 1
    loose = git("count-objects", "-v", cwd=git_repo)
    assert int(loose.split("count: ")[1].split()[0]) < 50  # trees and the commit only
    assert git("fsck", "--no-dangling", cwd=git_repo) == ""
    assert len(json.loads(out(gm("list", "--json")))) == 600


def test_reads_follow_packed_refs(git_repo: Path, gm) -> None:
    assert gm("add", "FACT: before packing").returncode == 0
    git("pack-refs", "--all", cwd=git_repo)
    assert not (git_repo / ".git" / "refs" / "heads" / "git-memory").exists()
    assert gm("add", "FACT: after packing").returncode == 0
    assert len(json.loads(out(gm("list", "--json")))) == 2


def test_local_flags_survive_a_rebuild(git_repo: Path, gm) -> None:
    import sqlite3

    new_id_ = out(gm("add", "FACT: anchored somewhere")).strip()
    db = git_repo / ".git" / "git-memory" / "index.sqlite"
    conn = sqlite3.connect(db)
    conn.execute("INSERT INTO local_flags(id, flag, reason, checked) VALUES (?,?,?,?)",
                 (new_id_, "stale", "src/gone.py is gone", "2026-11-26T00:00:00Z"))
    conn.commit()
    conn.close()
    from git_memory.index.db import open_index

    open_index(discover(), force_rebuild=True).close()
    conn = sqlite3.connect(db)
    assert conn.execute("SELECT flag FROM local_flags WHERE id = ?", (new_id_,)).fetchone() == ("stale",)
    conn.close()


def test_a_write_leaves_the_index_current(git_repo: Path, gm) -> None:
    import sqlite3

    assert gm("add", "FACT: indexed by the writer").returncode == 0
    conn = sqlite3.connect(git_repo / ".git" / "git-memory" / "index.sqlite")
    stamp = conn.execute("SELECT v FROM meta WHERE k = 'stamp'").fetchone()[0]
    conn.close()
    assert stamp == git("rev-parse", "git-memory", cwd=git_repo).strip()

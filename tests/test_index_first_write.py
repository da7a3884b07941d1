"""A repository's first write catches its index up from the empty memory, not by a build.

A command that opens the index before anything is on the memory branch (recall, or the
write's own duplicate check) leaves an index stamped with the empty memory. The write's
catch-up then takes every file of the new tip as added (index.db._from), on the loose
path (`add`) and on the pygit2 path (`import`, which writes a pack), instead of building
the whole index a second time.
"""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

from git_memory.store.loose import changes_since
from git_memory.model import Record, new_id
from git_memory.store.branch import MemoryBranch
from git_memory.store.locate import discover

INDEX = Path(".git/git-memory/index.sqlite")


def _stamp(repo: Path) -> str | None:
    conn = sqlite3.connect(repo / INDEX)
    try:
        row = conn.execute("SELECT v FROM meta WHERE k = 'stamp'").fetchone()
    finally:
        conn.close()
    return row[0] if row else None


def _empty_index(gm, repo: Path) -> int:
    """The index a first reader makes, stamped with the empty memory; its inode."""
    gm("recall", "anything", cwd=repo)
    assert _stamp(repo) == ""
    return (repo / INDEX).stat().st_ino


def test_first_add_catches_up_from_the_empty_memory(gm, git_repo: Path) -> None:
    inode = _empty_index(gm, git_repo)
    done = gm("add", "LEARNED: pip caches wheels under ~/.cache/pip", cwd=git_repo)
    assert done.returncode == 0, done.stderr
    # The same file, caught up in place: a build would have swapped in a new one.
    assert (git_repo / INDEX).stat().st_ino == inode
    assert _stamp(git_repo) == MemoryBranch(discover(git_repo)).tip()
    found = gm("recall", "wheels", "--json", cwd=git_repo).stdout.decode()
    assert "pip caches wheels" in found


def test_first_import_catches_up_by_the_tree_diff(gm, git_repo: Path, tmp_path: Path) -> None:
    inode = _empty_index(gm, git_repo)
    lines = [{"type": "fact", "content": f"the staging host number {i} runs Debian 12"}
             for i in range(5)]
    source = tmp_path / "in.jsonl"
    source.write_text("".join(json.dumps(line) + "\n" for line in lines))
    done = gm("import", "--format", "jsonl", str(source), cwd=git_repo)
    assert done.returncode == 0, done.stderr
    assert (git_repo / INDEX).stat().st_ino == inode
    listed = gm("list", "--json", cwd=git_repo).stdout.decode()
    assert sum("staging host number" in line for line in listed.splitlines()) == 5


def test_an_empty_stamp_over_local_rows_is_rebuilt(gm, git_repo: Path) -> None:
    """An index that says 'empty memory' but holds local rows is not trusted to diff from."""
    inode = _empty_index(gm, git_repo)
    conn = sqlite3.connect(git_repo / INDEX)
    conn.execute(
        "INSERT INTO records(id, kind, content, tags, created, anchors, path, blob)"
        " VALUES ('X', 'entry', 'a stray row', '[]', '2026-01-01T00:00:00Z', '', 'p', 'b')")
    conn.commit()
    conn.close()
    assert gm("add", "LEARNED: ruff replaces flake8 here", cwd=git_repo).returncode == 0
    assert (git_repo / INDEX).stat().st_ino != inode  # built anew
    listed = gm("list", "--json", cwd=git_repo).stdout.decode()
    assert "ruff replaces flake8" in listed and "a stray row" not in listed


def test_the_diffs_from_the_empty_memory_list_every_file(git_repo: Path) -> None:
    branch = MemoryBranch(discover(git_repo))
    tip = branch.append([Record(id=new_id(), type="fact", content=f"note {i}",
                                created="2026-01-02T10:00:00Z", author="T <t@example.com>")
                         for i in range(4)], "first")
    files = sorted((f.path, f.blob) for f in branch.iter_files())
    added, removed = branch.changes("", tip)
    assert sorted((c.path, c.blob) for c in added) == files and removed == []
    found = changes_since(Path(discover(git_repo).common_dir), "", tip)
    assert found is not None
    _, loose_added, loose_removed = found
    assert sorted((c.path, c.blob) for c in loose_added) == files and loose_removed == []

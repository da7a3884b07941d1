"""Merging memory histories: separate inits, redactions, hand edits, the local compare-and-swap."""

from __future__ import annotations

from pathlib import Path

import pygit2
import pytest

from conftest import err, git, out
from git_memory.model import Record, new_id, utc_now
from git_memory.store.branch import MemoryBranch
from git_memory.store.locate import discover
from git_memory.sync.merge import RefMoved, move_ref, plan
from sync_world import (
    assert_never_forced,
    clone,
    entries,
    entry_ids,
    is_ancestor,
    make_remote,
    remote_and_clones,
    rev,
)


@pytest.fixture
def world(tmp_path: Path, built_once):
    return remote_and_clones(built_once, tmp_path)


def test_separately_started_memories_merge_on_first_sync(world, gm) -> None:
    bare, a, b = world
    # Both clones start their own memory branch before either has synced: no common base.
    gm("add", "LEARNED: alpha started first", cwd=a)
    gm("add", "DECISION: beta started on its own", cwd=b)
    roots = {rev(a): a, rev(b): b}
    assert git("merge-base", rev(a), rev(b), cwd=b, check=False) == ""
    assert gm("sync", cwd=a).returncode == 0
    result = gm("sync", cwd=b)
    assert result.returncode == 0, err(result)
    assert "merged 1 record from origin" in out(result)
    assert gm("sync", cwd=a).returncode == 0
    assert entry_ids(gm, a) == entry_ids(gm, b)
    assert len(entry_ids(gm, a)) == 2
    parents = git("rev-list", "--parents", "-n", "1", rev(b), cwd=b).split()[1:]
    assert len(parents) == 2
    for root in roots:
        assert is_ancestor(bare, root, rev(bare))
    files = git("ls-tree", "--name-only", rev(b), cwd=b).split()
    assert files == [".gitattributes", "README.md", "entries"]
    assert_never_forced(bare)


def redact(repo: Path, target: str) -> None:
    branch = MemoryBranch(discover(repo))
    record = Record(
        id=new_id(), kind="redact", created=utc_now(), author=branch.author(),
        fields={"target": target, "review_reason": "contained a customer name"},
    )
    branch.append([record], "memory: redact")


@pytest.mark.parametrize("who", ["a", "b"])
def test_redaction_survives_sync_whichever_side_redacted(world, gm, who: str) -> None:
    _, a, b = world
    secret = out(gm("add", "LEARNED: customer Zorblax pays late", cwd=a)).strip()
    keep = out(gm("add", "LEARNED: invoices go out on the 1st", cwd=a)).strip()
    assert gm("sync", cwd=a).returncode == 0
    assert gm("sync", cwd=b).returncode == 0
    assert secret in entry_ids(gm, b)
    redactor, other = (a, b) if who == "a" else (b, a)
    redact(redactor, secret)
    gm("add", "LEARNED: the other side kept working", cwd=other)  # histories diverge
    for repo in (redactor, other, redactor):
        assert gm("sync", cwd=repo).returncode == 0
    for repo in (a, b):
        ids = entry_ids(gm, repo)
        assert secret not in ids
        assert keep in ids and len(ids) == 2
        everything = {e["id"]: e for e in entries_all(gm, repo)}
        assert everything[secret]["status"] == "redacted"


def entries_all(gm, repo: Path) -> list[dict]:
    import json

    result = gm("list", "--all", "--json", cwd=repo)
    assert result.returncode == 0
    return json.loads(result.stdout)


def hand_edit(repo: Path, path: str, text: str) -> str:
    """Commit a changed version of one record file, the way a hand edit on the branch would."""
    branch = MemoryBranch(discover(repo))
    pg = branch.repo
    parent = branch.local_tip()
    assert parent is not None
    tree = pg[parent].peel(pygit2.Tree)
    index = pygit2.Index()
    index.read_tree(tree)
    blob = pg.create_blob(text.encode("utf-8"))
    index.add(pygit2.IndexEntry(path, blob, pygit2.GIT_FILEMODE_BLOB))
    new_tree = index.write_tree(pg)
    sig = branch.signature()
    return str(pg.create_commit(branch.ref, sig, sig, "hand edit", new_tree, [pg[parent].id]))


def test_file_edited_on_both_sides_keeps_both_versions(world, gm) -> None:
    bare, a, b = world
    added = out(gm("add", "FACT: the build takes four minutes", cwd=a)).strip()
    assert gm("sync", cwd=a).returncode == 0 and gm("sync", cwd=b).returncode == 0
    path = entries(gm, a)[0]["path"]
    original = git("show", f"{rev(a)}:{path}", cwd=a)
    hand_edit(a, path, original.replace("four minutes", "five minutes"))
    hand_edit(b, path, original.replace("four minutes", "six minutes"))
    for repo in (a, b, a):
        result = gm("sync", "--json", cwd=repo)
        assert result.returncode == 0, err(result)
    assert rev(a) == rev(b) == rev(bare)
    listed = git("ls-tree", "-r", "--name-only", rev(a), cwd=a).split()
    twins = [p for p in listed if p.startswith(path[:-3])]
    assert len(twins) == 2 and path in twins
    texts = {git("show", f"{rev(a)}:{p}", cwd=a) for p in twins}
    assert any("five minutes" in t for t in texts) and any("six minutes" in t for t in texts)
    message = git("log", "-1", "--format=%B", rev(b), cwd=b) + git(
        "log", "--format=%B", rev(a), cwd=a
    )
    assert "Kept both versions" in message and path in message
    assert added in entry_ids(gm, a)


def test_edit_on_one_side_only_is_taken(world, gm) -> None:
    _, a, b = world
    gm("add", "FACT: the build takes four minutes", cwd=a)
    assert gm("sync", cwd=a).returncode == 0 and gm("sync", cwd=b).returncode == 0
    path = entries(gm, a)[0]["path"]
    original = git("show", f"{rev(a)}:{path}", cwd=a)
    hand_edit(a, path, original.replace("four minutes", "five minutes"))
    gm("add", "LEARNED: unrelated work on b", cwd=b)  # B diverges without touching the file
    for repo in (a, b):
        assert gm("sync", cwd=repo).returncode == 0
    listed = git("ls-tree", "-r", "--name-only", rev(b), cwd=b).split()
    assert not [p for p in listed if ".conflict-" in p]
    assert "five minutes" in git("show", f"{rev(b)}:{path}", cwd=b)


def test_record_deleted_by_hand_on_one_side_is_not_lost(world, gm) -> None:
    _, a, b = world
    gm("add", "FACT: keep me", cwd=a)
    assert gm("sync", cwd=a).returncode == 0 and gm("sync", cwd=b).returncode == 0
    path = entries(gm, a)[0]["path"]
    git("update-ref", "refs/heads/tmp", rev(a), cwd=a)
    wt = a.parent / "a-edit"
    git("worktree", "add", "-q", str(wt), "git-memory", cwd=a)
    git("rm", "-q", path, cwd=wt)
    git("commit", "-q", "-m", "oops", cwd=wt)
    gm("add", "LEARNED: b keeps going", cwd=b)
    for repo in (b, a):
        assert gm("sync", cwd=repo).returncode == 0
    assert path in git("ls-tree", "-r", "--name-only", rev(a), cwd=a)


def test_local_ref_moves_only_by_compare_and_swap(git_repo: Path, gm) -> None:
    gm("add", "LEARNED: one", cwd=git_repo)
    first = rev(git_repo)
    gm("add", "LEARNED: two", cwd=git_repo)
    second = rev(git_repo)
    branch = MemoryBranch(discover(git_repo))
    with pytest.raises(RefMoved):
        move_ref(branch, first, first, "stale expectation")
    assert rev(git_repo) == second
    move_ref(branch, second, first, "expected value matches")
    assert rev(git_repo) == first


def test_plan_kinds(git_repo: Path, gm) -> None:
    branch = MemoryBranch(discover(git_repo))
    assert plan(branch, None, None, "x").kind == "empty"
    gm("add", "LEARNED: one", cwd=git_repo)
    first = rev(git_repo)
    gm("add", "LEARNED: two", cwd=git_repo)
    second = rev(git_repo)
    assert plan(branch, None, first, "x").kind == "adopt"
    assert plan(branch, first, second, "x").kind == "fast-forward"
    assert plan(branch, second, first, "x").kind == "ahead"
    assert plan(branch, second, second, "x").kind == "up-to-date"
    assert plan(branch, second, None, "x").kind == "ahead"

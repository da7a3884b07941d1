"""Sync through a real bare remote: two clones converge, nothing lost, never forced."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest

from conftest import err, git, out
from git_memory.index.db import open_index
from git_memory.index.rank.search import search
from git_memory.store.locate import discover
from sync_world import (
    assert_never_forced,
    clone,
    entries,
    entry_ids,
    import_entries,
    is_ancestor,
    make_remote,
    remote_and_clones,
    rev,
    write_hook,
)


@pytest.fixture
def world(tmp_path: Path, built_once):
    return remote_and_clones(built_once, tmp_path)


@pytest.mark.parametrize("first", ["a", "b"])
def test_two_clones_converge_in_either_order(world, gm, first: str) -> None:
    bare, a, b = world
    import_entries(gm, a, "alpha", 50)
    import_entries(gm, b, "beta", 50)
    own = {"a": rev(a), "b": rev(b)}
    one, two = (a, b) if first == "a" else (b, a)
    reports = []
    for repo in (one, two, one):
        result = gm("sync", "--json", cwd=repo)
        assert result.returncode == 0, err(result)
        reports.append(json.loads(out(result)))
    assert [r["action"] for r in reports] == ["ahead", "merge", "fast-forward"]
    assert (reports[0]["created_remote"], reports[1]["received"], reports[1]["sent"]) == (
        True, 50, 50)
    assert reports[2]["received"] == 50
    ids_a, ids_b = entry_ids(gm, a), entry_ids(gm, b)
    assert len(ids_a) == 100
    assert ids_a == ids_b
    remote_tip = rev(bare)
    assert rev(a) == rev(b) == remote_tip
    for commit in own.values():
        assert is_ancestor(bare, commit, remote_tip)
    assert_never_forced(bare)


@pytest.mark.slow  # concurrent syncs: long on a busy machine
def test_syncs_started_at_the_same_time(world, gm) -> None:
    bare, a, b = world
    import_entries(gm, a, "alpha", 50)
    import_entries(gm, b, "beta", 50)
    own = [rev(a), rev(b)]
    procs = [
        subprocess.Popen(["git", "memory", "sync", "--json"], cwd=repo,
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        for repo in (a, b)
    ]
    results = [p.communicate(timeout=120) + (p.returncode,) for p in procs]
    for stdout, stderr, code in results:
        assert code == 0, stderr.decode()
        assert json.loads(stdout)["pushed"]
    # Whoever pushed first has not seen the other's entries yet: one more round settles it.
    for repo in (a, b):
        assert gm("sync", cwd=repo).returncode == 0
    assert len(entry_ids(gm, a)) == 100
    assert entry_ids(gm, a) == entry_ids(gm, b)
    for commit in own:
        assert is_ancestor(bare, commit, rev(bare))
    assert_never_forced(bare)


def test_remote_moving_during_sync_is_retried(world, gm) -> None:
    bare, a, b = world
    import_entries(gm, a, "alpha", 3)
    import_entries(gm, b, "beta", 3)
    # A real race: A's pre-push hook lets B sync first, once, so A's first push is refused.
    marker = a.parent / "raced"
    write_hook(
        a / ".git", "pre-push",
        f"if [ ! -e '{marker}' ]; then touch '{marker}';"
        f" cd '{b}' && env -u GIT_MEMORY_SYNC -u GIT_DIR git memory sync >/dev/null; fi",
    )
    result = gm("sync", "--json", cwd=a)
    assert result.returncode == 0, err(result)
    report = json.loads(out(result))
    assert report["attempts"] == 2
    assert report["action"] == "merge"
    assert len(entry_ids(gm, a)) == 6
    assert_never_forced(bare)


@pytest.mark.slow  # every retry runs for the whole budget: long
def test_gives_up_after_bounded_retries_with_a_clear_message(world, gm) -> None:
    bare, a, b = world
    import_entries(gm, a, "alpha", 2)
    assert gm("sync", cwd=b).returncode == 0  # B has a local memory branch
    git("config", "memory.syncTimeout", "3", cwd=a)  # retries for 3 s, not the default 60
    # Every time A is about to push, B adds and pushes something new.
    write_hook(
        a / ".git", "pre-push",
        f"cd '{b}' && unset GIT_MEMORY_SYNC GIT_DIR &&"
        " git memory add \"LEARNED: race $(date +%s%N)\" >/dev/null &&"
        " git memory sync >/dev/null",
    )
    before = rev(a)
    result = gm("sync", cwd=a)
    assert result.returncode == 1
    lines = err(result).strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: ")
    assert "gave up after " in lines[0] and "(memory.syncTimeout is 3 s)" in lines[0]
    assert rev(a) == before
    assert_never_forced(bare)


def test_fresh_clone_reads_memory_at_once(world, gm, tmp_path: Path) -> None:
    bare, a, _ = world
    added = gm("add", "LEARNED: the staging database resets every Sunday at 03:00", cwd=a)
    entry_id = out(added).strip()
    assert gm("sync", cwd=a).returncode == 0
    fresh = clone(bare, tmp_path / "fresh")
    # A plain clone's default refspec brings the memory branch as a remote-tracking ref.
    assert rev(fresh, "refs/remotes/origin/git-memory") == rev(a)
    assert rev(fresh) is None  # no local branch, no setup command
    found = entries(gm, fresh)
    assert [e["id"] for e in found] == [entry_id]
    shown = gm("show", entry_id[-8:], cwd=fresh)
    assert shown.returncode == 0 and b"Sunday at 03:00" in shown.stdout
    # The search engine `recall` runs on, from the same fresh clone.
    index = open_index(discover(fresh))
    try:
        hits = search(index, "staging database reset", limit=5)
    finally:
        index.close()
    assert [hit.row["id"] for hit in hits][:1] == [entry_id]


def test_fresh_clone_recalls_at_once(world, gm, tmp_path: Path) -> None:
    bare, a, _ = world
    gm("add", "LEARNED: the staging database resets every Sunday at 03:00", cwd=a)
    assert gm("sync", cwd=a).returncode == 0
    fresh = clone(bare, tmp_path / "fresh")
    result = gm("recall", "staging database reset", cwd=fresh)
    assert result.returncode == 0, err(result)
    assert b"Sunday at 03:00" in result.stdout


def test_first_sync_creates_the_remote_branch(world, gm) -> None:
    bare, a, _ = world
    gm("add", "DECISION: use one remote for memory", cwd=a)
    assert rev(bare) is None
    result = gm("sync", cwd=a)
    assert result.returncode == 0, err(result)
    assert "created the memory branch on origin" in out(result)
    assert rev(bare) == rev(a)
    again = gm("sync", cwd=a)
    assert "already up to date" in out(again)


def test_nothing_to_sync_anywhere(world, gm) -> None:
    _, a, _ = world
    result = gm("sync", cwd=a)
    assert result.returncode == 0
    assert "nothing to sync" in out(result)
    assert rev(a) is None


def test_pull_and_push_do_one_direction_each(world, gm) -> None:
    bare, a, b = world
    gm("add", "LEARNED: alpha fact", cwd=a)
    assert gm("push", cwd=a).returncode == 0
    gm("add", "LEARNED: beta fact", cwd=b)
    b_tip = rev(b)
    refused = gm("push", cwd=b)  # the remote has A's entry, which B lacks
    assert refused.returncode == 1
    assert err(refused).startswith("error: ") and "git memory sync" in err(refused)
    assert rev(b) == b_tip
    pulled = gm("pull", cwd=b)
    assert pulled.returncode == 0, err(pulled)
    assert "merged 1 record from origin" in out(pulled)
    assert len(entry_ids(gm, b)) == 2
    assert rev(bare) == rev(a)  # pull pushed nothing
    assert gm("push", cwd=b).returncode == 0
    assert rev(bare) == rev(b)
    assert_never_forced(bare)


def test_default_remote_is_the_branch_upstream(tmp_path: Path, gm) -> None:
    bare = make_remote(tmp_path)
    repo = tmp_path / "work"
    git("clone", "-q", "-o", "team", str(bare), str(repo), cwd=tmp_path)
    gm("add", "FACT: the upstream remote is called team", cwd=repo)
    result = gm("sync", cwd=repo)
    assert result.returncode == 0, err(result)
    assert rev(bare) == rev(repo)
    assert rev(repo, "refs/remotes/team/git-memory") == rev(repo)


def test_memory_ref_setting_is_respected(world, gm) -> None:
    bare, a, b = world
    for repo in (a, b):
        git("config", "memory.ref", "team-memory", cwd=repo)
    gm("add", "FACT: this lives on team-memory", cwd=a)
    assert gm("sync", cwd=a).returncode == 0
    assert rev(bare, "refs/heads/team-memory") == rev(a, "refs/heads/team-memory")
    assert rev(bare) is None
    assert gm("sync", cwd=b).returncode == 0
    assert [e["content"] for e in entries(gm, b)] == ["this lives on team-memory"]


def test_sync_from_a_linked_worktree_and_hook_environment(world, gm, tmp_path: Path) -> None:
    bare, a, _ = world
    gm("add", "LEARNED: worktrees share one memory", cwd=a)
    wt = tmp_path / "wt"
    git("worktree", "add", "-q", str(wt), "-b", "side", cwd=a)
    # Hooks run with GIT_DIR set; sync must still push the right repository.
    env = {"GIT_DIR": str(a / ".git"), "GIT_WORK_TREE": str(a)}
    result = gm("sync", cwd=wt, env=env)
    assert result.returncode == 0, err(result)
    assert rev(bare) == rev(a)
    assert os.path.isdir(a / ".git" / "worktrees")


def test_sync_in_a_fresh_clone_adopts_the_remote_branch(world, gm, tmp_path: Path) -> None:
    bare, a, _ = world
    gm("add", "LEARNED: adopted as is", cwd=a)
    assert gm("sync", cwd=a).returncode == 0
    fresh = clone(bare, tmp_path / "fresh")
    assert rev(fresh) is None
    result = gm("sync", cwd=fresh)
    assert result.returncode == 0, err(result)
    assert "took the memory branch of origin" in out(result)
    assert rev(fresh) == rev(a) == rev(bare)
    assert_never_forced(bare)


@pytest.mark.slow  # concurrency under load: long
def test_adds_during_a_sync_are_never_lost(world, gm) -> None:
    bare, a, b = world
    gm("add", "LEARNED: from b before", cwd=b)
    assert gm("sync", cwd=b).returncode == 0
    gm("add", "LEARNED: from a before", cwd=a)
    syncing = subprocess.Popen(["git", "memory", "sync"], cwd=a, stderr=subprocess.PIPE)
    added = [out(gm("add", f"LEARNED: written during sync {i}", cwd=a)).strip() for i in range(5)]
    assert syncing.wait(timeout=120) == 0, syncing.stderr.read() if syncing.stderr else ""
    ids = entry_ids(gm, a)
    assert set(added) <= ids and len(ids) == 7
    assert gm("sync", cwd=a).returncode == 0
    assert gm("sync", cwd=b).returncode == 0
    assert entry_ids(gm, b) == ids
    assert_never_forced(bare)

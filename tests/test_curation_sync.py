"""Two real clones curate the same pair differently, then merge with plain git.

Whichever side merges the other, and whether the index caught up incrementally
or was rebuilt, both end with the same fold.
"""

from __future__ import annotations

import json
from pathlib import Path

from conftest import err, git, make_repo, out

from git_memory.index.db import INDEX_NAME


def add(gm, text: str, cwd: Path) -> str:  # type: ignore[no-untyped-def]
    result = gm("add", text, cwd=cwd)
    assert result.returncode == 0, err(result)
    return out(result).strip()


def view(gm, cwd: Path) -> list[tuple]:  # type: ignore[no-untyped-def]
    result = gm("list", "--json", "--all", cwd=cwd)
    assert result.returncode == 0, err(result)
    return sorted((e["id"], e["status"], e["content"], e["confidence"], tuple(e["merged_from"]),
                   tuple(sorted(e["superseded_by"]))) for e in json.loads(out(result)))


def two_clones(tmp_path: Path, gm) -> tuple[Path, Path, str, str]:  # type: ignore[no-untyped-def]
    """A bare remote holding X and Y, and two clones of it."""
    seed = make_repo(tmp_path / "seed")
    x = add(gm, "DECISION: store sessions in redis", seed)
    y = add(gm, "DECISION: store sessions in postgres, not redis", seed)
    remote = tmp_path / "remote.git"
    git("init", "-q", "--bare", str(remote), cwd=tmp_path)
    git("push", "-q", str(remote), "main", "git-memory", cwd=seed)
    clones = []
    for name in ("alice", "bob"):
        clone = tmp_path / name
        git("clone", "-q", str(remote), str(clone), cwd=tmp_path)
        clones.append(clone)
    return clones[0], clones[1], x, y


def merge_from_remote(clone: Path, branch: str) -> None:
    """Plain git: fetch, check the memory branch out in a worktree, merge."""
    git("fetch", "-q", "origin", cwd=clone)
    checkout = clone.parent / f"{clone.name}-memory"
    if not checkout.exists():
        git("worktree", "add", "-q", str(checkout), "git-memory", cwd=clone)
    git("merge", "-q", "--no-edit", f"origin/{branch}", cwd=checkout)


def test_supersede_here_merge_there_same_fold_in_both_merge_orders(tmp_path: Path, gm) -> None:
    alice, bob, x, y = two_clones(tmp_path, gm)
    assert gm("supersede", x, y, "--reason", "postgres won", cwd=alice).returncode == 0
    merged = gm("merge", x, y, "--content", "Store sessions in postgres (redis was dropped)",
                "--reason", "one decision", cwd=bob)
    assert merged.returncode == 0, err(merged)
    z = out(merged).strip()
    view(gm, alice)  # each index has folded its own side first
    view(gm, bob)
    git("push", "-q", "origin", "git-memory", cwd=alice)
    git("push", "-q", "origin", "git-memory:bob-memory", cwd=bob)
    merge_from_remote(alice, "bob-memory")  # alice merges bob's into hers
    merge_from_remote(bob, "git-memory")  # bob merges alice's into his
    tips = {git("rev-parse", "git-memory", cwd=c).strip() for c in (alice, bob)}
    assert len(tips) == 2  # two different merge commits ...
    seen_alice, seen_bob = view(gm, alice), view(gm, bob)
    assert seen_alice == seen_bob  # ... one fold
    status = {e[0]: e[1] for e in seen_alice}
    assert status == {x: "superseded", y: "superseded", z: "canonical"}
    superseded_by = {e[0]: e[5] for e in seen_alice}
    assert superseded_by[x] == tuple(sorted([y, z]))
    for clone in (alice, bob):  # an index rebuilt from scratch agrees with the incremental one
        (clone / ".git" / "git-memory" / INDEX_NAME).unlink()
        assert view(gm, clone) == seen_alice


def test_opposite_supersedes_make_a_cycle_both_clones_break_it_the_same_way(
    tmp_path: Path, gm
) -> None:
    alice, bob, x, y = two_clones(tmp_path, gm)
    assert gm("supersede", x, y, "--reason", "y is newer", cwd=alice).returncode == 0
    assert gm("supersede", y, x, "--reason", "x is right", cwd=bob).returncode == 0
    git("push", "-q", "origin", "git-memory", cwd=alice)
    git("push", "-q", "origin", "git-memory:bob-memory", cwd=bob)
    merge_from_remote(alice, "bob-memory")
    merge_from_remote(bob, "git-memory")
    seen = view(gm, alice)
    assert seen == view(gm, bob)
    assert sorted(e[1] for e in seen) == ["active", "superseded"]  # the earlier record won
    assert {e[0]: e[1] for e in seen}[x] == "superseded"


def test_the_cycle_is_left_for_doctor_in_the_index(tmp_path: Path, gm) -> None:
    import sqlite3

    alice, bob, x, y = two_clones(tmp_path, gm)
    assert gm("supersede", x, y, "--reason", "y is newer", cwd=alice).returncode == 0
    assert gm("supersede", y, x, "--reason", "x is right", cwd=bob).returncode == 0
    git("push", "-q", "origin", "git-memory:bob-memory", cwd=bob)
    merge_from_remote(alice, "bob-memory")
    view(gm, alice)
    conn = sqlite3.connect(str(alice / ".git" / "git-memory" / INDEX_NAME))
    problems = json.loads(conn.execute("SELECT v FROM meta WHERE k = 'fold_problems'").fetchone()[0])
    conn.close()
    assert len(problems) == 1 and "would make a cycle" in problems[0]

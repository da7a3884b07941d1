"""A hostile memory branch (issue #12): `..`, absolute, `.git`, symlink and submodule
entries are kept out by sync, skipped by the index, and never written by export."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from conftest import err, git, out
from plumbing import commit_files, record
from sync_world import clone, copy_world, make_remote

DAY = ("entries", "2026", "11", "20")
SUBMODULE = "1" * 40
HOSTILE = {
    ("entries", "..", "..", "escape-up.md"): ("100644", record("01ESCAPEUP", body="escape up")),
    ("entries", "/tmp", "abs.md"): ("100644", record("01ABSOLUTE", body="absolute path")),
    ("entries", ".git", "config.md"): ("100644", record("01DOTGIT", body="dot git part")),
    ("records", ".GIT", "hooks.md"): ("100644", record("01DOTGITUP", body="upper dot git")),
    (*DAY, "learned-link-aaaa0001.md"): ("120000", b"/etc/passwd"),
    (*DAY, "learned-sub-aaaa0002.md"): ("160000", SUBMODULE.encode()),
    (*DAY, "learned-exec-aaaa0003.md"): ("100755", record("01EXECUTABLE", body="executable")),
    ("entries", "learned-flat-aaaa0004.md"): ("100644", record("01FLAT", body="outside layout")),
}
HOSTILE_PATHS = {"/".join(parts) for parts in HOSTILE}
# Sync names a hostile folder once (everything under it is left out with it).
REFUSED = {"entries/..", "entries//tmp", "entries/.git", "records/.GIT"} | {
    p for p in HOSTILE_PATHS if p.startswith(("entries/2026/", "entries/learned"))
}


def _make_world(root: Path, gm) -> None:
    bare = make_remote(root)
    a = clone(bare, root / "a")
    assert gm("add", "LEARNED: the good entry on a hostile branch", cwd=a).returncode == 0
    commit_files(a, dict(HOSTILE))
    git("push", "-q", "origin", "git-memory", cwd=a)
    clone(bare, root / "b")


@pytest.fixture
def world(tmp_path: Path, gm, built_once):
    """A remote whose memory branch holds one good entry and HOSTILE; clone b fresh.
    Made once for the run (built_once), copied into this test's folder (copy_world)."""
    made = built_once("integrity-incoming-world", lambda root: _make_world(root, gm))
    copy_world(made, tmp_path, ("remote.git", "seed", "a", "b"))
    for name in ("a", "b"):
        assert git("remote", "get-url", "origin", cwd=tmp_path / name).strip() == str(
            tmp_path / "remote.git")
    return tmp_path / "remote.git", tmp_path / "a", tmp_path / "b"


def _tree(repo: Path, ref: str = "git-memory") -> set[str]:
    return set(git("ls-tree", "-r", "--name-only", "-z", ref, cwd=repo).split("\0")) - {""}


def test_sync_leaves_hostile_files_out_says_so_and_cleans_the_remote(world, gm) -> None:
    bare, _, b = world
    assert gm("add", "LEARNED: b had its own entry first", cwd=b).returncode == 0
    result = gm("sync", cwd=b)
    assert result.returncode == 0, err(result)
    assert b"left out 8 unsafe files from origin" in result.stdout
    local = _tree(b)
    assert not local & HOSTILE_PATHS
    assert {p for p in local if p.startswith("entries/")} and len(local) == 4  # 2 entries + 2 base
    assert not _tree(bare) & HOSTILE_PATHS  # what sync pushed back is the screened tree
    report = json.loads(out(gm("doctor", "--json", cwd=b)))
    assert {item["path"] for item in report["refused"]} == REFUSED
    reasons = {item["path"]: item["reason"] for item in report["refused"]}
    assert "symbolic link" in reasons[f"{'/'.join(DAY)}/learned-link-aaaa0001.md"]
    assert "submodule" in reasons[f"{'/'.join(DAY)}/learned-sub-aaaa0002.md"]
    doctor = out(gm("doctor", cwd=b))
    assert "unsafe 'entries/.git' from origin: a .git path part" in doctor
    contents = {e["content"] for e in json.loads(out(gm("list", "--json", cwd=b)))}
    assert contents == {"the good entry on a hostile branch", "b had its own entry first"}


def test_a_second_clone_screens_the_same_commit(world, gm, tmp_path: Path) -> None:
    bare, _, b = world
    c = clone(bare, tmp_path / "c")
    assert gm("pull", cwd=b).returncode == 0 and gm("pull", cwd=c).returncode == 0
    # The screened commit is built from the fetched one alone: both clones agree.
    assert git("rev-parse", "git-memory", cwd=b) == git("rev-parse", "git-memory", cwd=c)


def test_a_plain_merge_is_indexed_without_them_and_export_stays_inside(world, gm, tmp_path) -> None:
    _, a, _ = world
    dest = tmp_path / "deep" / "out"
    result = gm("export", str(dest), cwd=a)  # a's own branch holds the hostile commit
    assert result.returncode == 0, err(result)
    assert b"exported 1 entry and" in result.stdout
    written = [Path(root, f) for root, _, files in os.walk(tmp_path / "deep") for f in files]
    assert written and all(p.resolve().is_relative_to(dest.resolve()) for p in written)
    assert not (tmp_path / "deep" / "escape-up.md").exists()
    assert not (tmp_path / "escape-up.md").exists()
    malformed = json.loads(out(gm("doctor", "--json", cwd=a)))["malformed"]
    assert {m["path"] for m in malformed} == HOSTILE_PATHS
    assert all(m["reason"].startswith("refused: ") for m in malformed)
    assert b"no entries found" in gm("recall", "escape", cwd=a).stdout


def test_export_refuses_to_follow_a_symlink_out_of_its_folder(gm, git_repo: Path, tmp_path) -> None:
    assert gm("add", "LEARNED: an entry to export", cwd=git_repo).returncode == 0
    dest, elsewhere = tmp_path / "out", tmp_path / "elsewhere"
    dest.mkdir()
    elsewhere.mkdir()
    (dest / "entries").symlink_to(elsewhere)
    result = gm("export", str(dest), cwd=git_repo)
    assert result.returncode == 0
    assert b"skipped 1 record whose path would leave" in result.stderr
    assert not any(elsewhere.rglob("*"))

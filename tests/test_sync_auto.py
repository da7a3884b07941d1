"""autoSync: a normal `git push` of code also syncs memory, only when asked, never recursing."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from conftest import err, git
from git_memory.store.locate import discover
from git_memory.sync.autosync import enabled, maybe_sync, remote_refs
from sync_world import clone, entry_ids, make_remote, remote_and_clones, rev, write_hook

# What the hooks area's pre-push shim will run (see docs/sync.md, "autoSync").
PRE_PUSH = 'git memory sync --auto "$1"'


@pytest.fixture
def world(tmp_path: Path, built_once):
    return remote_and_clones(built_once, tmp_path)


def test_auto_does_nothing_unless_enabled(world, gm) -> None:
    bare, a, _ = world
    gm("add", "LEARNED: not shared yet", cwd=a)
    result = gm("sync", "--auto", "origin", cwd=a)
    assert result.returncode == 0 and result.stderr == b""
    assert rev(bare) is None
    git("config", "memory.autoSync", "false", cwd=a)
    assert gm("sync", "--auto", "origin", cwd=a).returncode == 0
    assert rev(bare) is None


def test_auto_syncs_when_enabled(world, gm) -> None:
    bare, a, _ = world
    git("config", "memory.autoSync", "true", cwd=a)
    gm("add", "LEARNED: shared by auto sync", cwd=a)
    result = gm("sync", "--auto", "origin", cwd=a)
    assert result.returncode == 0
    assert "memory synced with origin" in err(result)
    assert rev(bare) == rev(a)


def test_auto_failure_warns_and_exits_zero(world, gm) -> None:
    bare, a, _ = world
    git("config", "memory.autoSync", "true", cwd=a)
    git("remote", "set-url", "origin", "/nonexistent/path", cwd=a)
    gm("add", "LEARNED: cannot go anywhere", cwd=a)
    before = rev(a)
    result = gm("sync", "--auto", "origin", cwd=a)
    assert result.returncode == 0
    assert err(result).startswith("git-memory: memory not synced: cannot fetch from origin")
    assert rev(a) == before


def test_code_push_carries_memory_through_a_real_pre_push_hook(world, gm) -> None:
    bare, a, b = world
    write_hook(a / ".git", "pre-push", PRE_PUSH)
    git("config", "memory.autoSync", "true", cwd=a)
    gm("add", "DECISION: memory rides along with code pushes", cwd=a)
    (a / "code.txt").write_text("x\n", encoding="utf-8")
    git("add", "code.txt", cwd=a)
    git("commit", "-q", "-m", "code", cwd=a)
    git("push", "-q", "origin", "main", cwd=a)
    assert rev(bare, "refs/heads/main") == rev(a, "refs/heads/main")
    assert rev(bare) == rev(a)
    assert gm("pull", cwd=b).returncode == 0
    assert len(entry_ids(gm, b)) == 1


def test_code_push_goes_through_when_memory_push_is_refused(world, gm) -> None:
    bare, a, _ = world
    write_hook(a / ".git", "pre-push", PRE_PUSH)
    write_hook(bare, "update", '[ "$1" = refs/heads/git-memory ] && exit 1; exit 0')
    git("config", "memory.autoSync", "true", cwd=a)
    gm("add", "LEARNED: the remote protects memory", cwd=a)
    (a / "code.txt").write_text("x\n", encoding="utf-8")
    git("add", "code.txt", cwd=a)
    git("commit", "-q", "-m", "code", cwd=a)
    result = subprocess.run(["git", "push", "origin", "main"], cwd=a, capture_output=True, text=True)
    assert result.returncode == 0
    assert "memory not synced" in result.stderr
    assert rev(bare, "refs/heads/main") == rev(a, "refs/heads/main")
    assert rev(bare) is None


def test_maybe_sync_guards(world, gm, monkeypatch: pytest.MonkeyPatch) -> None:
    bare, a, _ = world
    dirs = discover(a)
    git("config", "memory.autoSync", "true", cwd=a)
    assert enabled(dirs)
    assert maybe_sync(dirs, "origin") is None  # no local memory yet
    gm("add", "LEARNED: guarded", cwd=a)
    assert maybe_sync(dirs, "origin", ["refs/heads/git-memory"]) is None  # pushing it by hand
    monkeypatch.setenv("GIT_MEMORY_SYNC", "1")  # inside sync's own push
    assert maybe_sync(dirs, "origin") is None
    assert rev(bare) is None
    monkeypatch.delenv("GIT_MEMORY_SYNC")
    line = maybe_sync(dirs, "origin", ["refs/heads/main"])
    assert line is not None and "memory synced with origin" in line
    assert rev(bare) == rev(a)


def test_remote_refs_from_pre_push_input() -> None:
    zero = "0" * 40
    text = f"refs/heads/main {'a' * 40} refs/heads/main {zero}\n" \
        f"refs/heads/git-memory {'b' * 40} refs/heads/git-memory {zero}\n"
    assert remote_refs(text) == ["refs/heads/main", "refs/heads/git-memory"]
    assert remote_refs("") == []


def test_installed_hooks_with_auto_sync_carry_memory_on_git_push(world, gm) -> None:
    bare, a, b = world
    result = gm("install", "--auto-sync", cwd=a)
    assert result.returncode == 0, err(result)
    assert git("config", "--bool", "memory.autoSync", cwd=a).strip() == "true"
    gm("add", "DECISION: installed hooks push memory too", cwd=a)
    (a / "code2.txt").write_text("y\n", encoding="utf-8")
    git("add", "code2.txt", cwd=a)
    git("commit", "-q", "-m", "more code", cwd=a)
    git("push", "-q", "origin", "main", cwd=a)
    assert rev(bare, "refs/heads/main") == rev(a, "refs/heads/main")
    assert rev(bare) == rev(a)
    assert gm("pull", cwd=b).returncode == 0
    assert len(entry_ids(gm, b)) == 1
    # Off again: the next code push leaves memory alone.
    assert gm("install", "--no-auto-sync", cwd=a).returncode == 0
    gm("add", "LEARNED: stays local now", cwd=a)
    before_remote = rev(bare)
    (a / "code3.txt").write_text("z\n", encoding="utf-8")
    git("add", "code3.txt", cwd=a)
    git("commit", "-q", "-m", "even more code", cwd=a)
    git("push", "-q", "origin", "main", cwd=a)
    assert rev(bare) == before_remote


def test_auto_sync_needs_the_pre_push_hook(world, gm) -> None:
    _, a, _ = world
    result = gm("install", "--hooks", "post-commit", "--auto-sync", cwd=a)
    assert result.returncode == 2 and "pre-push" in err(result)

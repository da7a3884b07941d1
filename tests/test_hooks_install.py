"""Installing the hook shims: chaining, restoring, idempotence, upgrades, hooksPath, worktrees."""

from __future__ import annotations

import os
import stat
import subprocess
from pathlib import Path

from conftest import err, git, out, tip
from hooks_support import commit, entries

from git_memory.githooks import HOOK_NAMES
from git_memory.githooks.install import SHIM_VERSION, render

ROOT = Path(__file__).resolve().parents[1]
FOREIGN = "#!/bin/sh\n# a team's own hook\necho \"foreign $GIT_MEMORY_HOOK $*\" >> \"$(git rev-parse --git-dir)/foreign.log\"\n"


def _hooks(repo: Path) -> Path:
    """The hooks directory (the isolated template directory creates none)."""
    path = repo / ".git" / "hooks"
    path.mkdir(exist_ok=True)
    return path


def _snapshot(path: Path) -> tuple[bytes, int]:
    return path.read_bytes(), stat.S_IMODE(path.stat().st_mode)


def test_shim_template_is_shipped_identically() -> None:
    # hooks/ shows the shim at the top level; it is a link to the packaged copy, so the
    # two cannot drift apart.
    top = ROOT / "hooks" / "hook-shim.sh"
    assert top.is_symlink()
    assert top.resolve() == (ROOT / "git_memory" / "resources" / "hook-shim.sh").resolve()


def test_install_all_then_again_is_a_no_op(git_repo: Path, gm) -> None:
    first = gm("install")
    assert first.returncode == 0, err(first)
    hooks = git_repo / ".git" / "hooks"
    state = {name: (_snapshot(hooks / name), (hooks / name).stat().st_mtime_ns) for name in HOOK_NAMES}
    for name in HOOK_NAMES:
        assert os.access(hooks / name, os.X_OK)
        assert f"git-memory-shim-version: {SHIM_VERSION}" in (hooks / name).read_text()
    second = gm("install")
    assert second.returncode == 0
    assert out(second).count("already installed") == len(HOOK_NAMES)
    assert {n: (_snapshot(hooks / n), (hooks / n).stat().st_mtime_ns) for n in HOOK_NAMES} == state
    assert sorted(p.name for p in hooks.iterdir()) == sorted(HOOK_NAMES)


def test_existing_hook_is_chained_and_restored_byte_for_byte(git_repo: Path, gm) -> None:
    hooks = _hooks(git_repo)
    original = hooks / "post-commit"
    original.write_text(FOREIGN, encoding="utf-8")
    original.chmod(0o750)
    before = _snapshot(original)
    result = gm("install")
    assert "kept as post-commit.git-memory-chained" in out(result)
    assert gm("install").returncode == 0  # twice: the chained hook is not moved again
    commit(git_repo, "Work\n\nLEARNED: both hooks run", "a.py")
    log = (git_repo / ".git" / "foreign.log").read_text()
    assert log == "foreign post-commit \n"  # ran once, and saw GIT_MEMORY_HOOK
    assert [e["content"] for e in entries(git_repo)] == ["both hooks run"]
    result = gm("uninstall")
    assert result.returncode == 0 and "previous hook restored" in out(result)
    assert _snapshot(original) == before
    assert sorted(p.name for p in hooks.iterdir()) == ["post-commit"]


def test_chained_hook_exit_status_and_arguments_count(git_repo: Path, gm) -> None:
    hooks = _hooks(git_repo)
    (hooks / "commit-msg").write_text(
        "#!/bin/sh\ngrep -q 'JIRA-' \"$1\" || { echo 'needs a JIRA id' >&2; exit 1; }\n")
    (hooks / "commit-msg").chmod(0o755)
    assert gm("install", "--hooks", "commit-msg,post-commit").returncode == 0
    refused = commit(git_repo, "LEARNED: no ticket", "a.py", check=False)
    assert refused.returncode != 0 and "needs a JIRA id" in refused.stderr
    commit(git_repo, "JIRA-1\n\nLEARNED: with a ticket", "a.py")
    assert [e["content"] for e in entries(git_repo)] == ["with a ticket"]


def test_chained_pre_push_gets_the_ref_lines_on_stdin(git_repo: Path, gm, tmp_path: Path) -> None:
    remote = tmp_path / "remote.git"
    git("init", "-q", "--bare", str(remote), cwd=tmp_path)
    git("remote", "add", "origin", str(remote), cwd=git_repo)
    hooks = _hooks(git_repo)
    (hooks / "pre-push").write_text('#!/bin/sh\ncat > "$(git rev-parse --git-dir)/pushed.txt"\necho "$1" >> "$(git rev-parse --git-dir)/pushed.txt"\n')
    (hooks / "pre-push").chmod(0o755)
    assert gm("install", "--hooks", "pre-push").returncode == 0
    git("push", "-q", "origin", "main", cwd=git_repo)
    lines = (git_repo / ".git" / "pushed.txt").read_text().splitlines()
    assert lines[0].startswith("refs/heads/main ") and lines[0].endswith(" refs/heads/main " + "0" * 40)
    assert lines[1] == "origin"


def test_hooks_subset_and_unknown_name(git_repo: Path, gm) -> None:
    result = gm("install", "--hooks", "post-commit,pre-push")
    assert result.returncode == 0
    hooks = git_repo / ".git" / "hooks"
    assert sorted(p.name for p in hooks.iterdir()) == ["post-commit", "pre-push"]
    bad = gm("install", "--hooks", "post-commit,pre-commit")
    assert bad.returncode == 2 and "unknown hook pre-commit" in err(bad)
    assert sorted(p.name for p in hooks.iterdir()) == ["post-commit", "pre-push"]
    assert gm("uninstall", "--hooks", "pre-push").returncode == 0
    assert sorted(p.name for p in hooks.iterdir()) == ["post-commit"]


def test_older_shim_is_upgraded_newer_left_alone(git_repo: Path, gm) -> None:
    hooks = _hooks(git_repo)
    old = render("post-commit").replace(f"shim-version: {SHIM_VERSION}", "shim-version: 0")
    old = old.replace("git log -1", "git log  -1")  # an older body
    (hooks / "post-commit").write_text(old)
    newer = render("post-merge").replace(f"shim-version: {SHIM_VERSION}", f"shim-version: {SHIM_VERSION + 1}")
    (hooks / "post-merge").write_text(newer)
    result = gm("install")
    assert "post-commit: upgraded" in out(result) and "from version 0" in out(result)
    upgraded = (hooks / "post-commit").read_text()
    assert f"shim-version: {SHIM_VERSION}" in upgraded and "git log -1" in upgraded
    assert not (hooks / "post-commit.git-memory-chained").exists()  # ours: replaced, not chained
    assert "post-merge: left alone" in out(result)
    assert (hooks / "post-merge").read_text() == newer


def test_foreign_hook_with_a_chained_file_already_there_is_refused(git_repo: Path, gm) -> None:
    hooks = _hooks(git_repo)
    (hooks / "post-commit").write_text(FOREIGN)
    (hooks / "post-commit.git-memory-chained").write_text("#!/bin/sh\n")
    result = gm("install")
    assert result.returncode == 1 and err(result).startswith("error: ")
    assert sorted(p.name for p in hooks.iterdir()) == ["post-commit", "post-commit.git-memory-chained"]


def test_core_hooks_path_is_honoured(git_repo: Path, gm) -> None:
    git("config", "core.hooksPath", ".githooks", cwd=git_repo)
    result = gm("install")
    assert result.returncode == 0 and ".githooks/post-commit" in out(result)
    assert (git_repo / ".githooks" / "post-commit").is_file()
    assert not (git_repo / ".git" / "hooks" / "post-commit").exists()
    commit(git_repo, "LEARNED: hooksPath works", "a.py")
    assert [e["content"] for e in entries(git_repo)] == ["hooksPath works"]


def test_linked_worktree(git_repo: Path, gm, tmp_path: Path) -> None:
    linked = tmp_path / "linked"
    git("worktree", "add", "-q", "-b", "side", str(linked), cwd=git_repo)
    result = gm("install", cwd=linked)
    assert result.returncode == 0
    assert (git_repo / ".git" / "hooks" / "post-commit").is_file()  # the common dir
    commit(linked, "LEARNED: worktrees share hooks and memory", "w.py")
    (entry,) = entries(git_repo)
    assert entry["origin"]["branch"] == "side" and entry["origin"]["paths"] == ["w.py"]


def test_missing_tool_says_one_line_and_lets_git_proceed(git_repo: Path, gm, tmp_path: Path) -> None:
    hooks = _hooks(git_repo)
    for name in HOOK_NAMES:
        (hooks / name).write_text(render(name, python=str(tmp_path / "gone" / "python"),
                                         package=str(tmp_path / "gone" / "git_memory")))
        (hooks / name).chmod(0o755)
    env = {"PATH": "/usr/bin:/bin"}  # no git-memory on PATH either
    result = commit(git_repo, "LEARNED: nobody home at the caf\u00e9", "a.py", env=env)
    lines = [line for line in result.stderr.splitlines() if "git-memory" in line]
    assert len(lines) == 2  # commit-msg and post-commit: one line each
    assert all("not installed" in line for line in lines)
    assert tip(git_repo) is None


def test_no_marker_never_starts_python(git_repo: Path, tmp_path: Path) -> None:
    """The shim decides 'no marker' in sh: a stand-in interpreter records every start."""
    starts = tmp_path / "starts.log"
    spy = tmp_path / "python"
    spy.write_text(f'#!/bin/sh\necho "$*" >> "{starts}"\n')
    spy.chmod(0o755)
    package = ROOT / "git_memory"
    hooks = _hooks(git_repo)
    for name in ("commit-msg", "post-commit"):
        (hooks / name).write_text(render(name, python=str(spy), package=str(package)))
        (hooks / name).chmod(0o755)
    commit(git_repo, "no marker here\n\nlearned: lower case is prose", "a.py")
    assert not starts.exists()
    commit(git_repo, "one marker\n\nFACT: now Python starts", "b.py")
    # commit-msg still skips Python: nothing in the message can be a secret.
    assert starts.read_text().splitlines() == ["-m git_memory.commands.hook post-commit"]
    starts.unlink()
    commit(git_repo, "FACT: see https://user:hunter3@example.com/x", "c.py")
    commit(git_repo, "FACT: caf\u00e9 is non-ASCII, cleaning may change it", "d.py")
    assert starts.read_text().splitlines() == [
        "-m git_memory.commands.hook commit-msg .git/COMMIT_EDITMSG",
        "-m git_memory.commands.hook post-commit",
    ] * 2


def test_hook_failure_never_breaks_git(git_repo: Path, gm) -> None:
    assert gm("install").returncode == 0
    (git_repo / ".git" / "git-memory").write_text("not a directory")  # our state dir is broken
    result = commit(git_repo, "LEARNED: capture will fail", "a.py")
    assert result.returncode == 0
    ours = [line for line in result.stderr.splitlines() if line.startswith("git-memory:")]
    assert len(ours) == 1 and "post-commit hook failed" in ours[0] and "git continues" in ours[0]
    assert git("log", "-1", "--format=%s", cwd=git_repo).strip() == "LEARNED: capture will fail"


def test_uninstall_when_nothing_installed(git_repo: Path, gm) -> None:
    result = gm("uninstall")
    assert result.returncode == 0 and out(result).count("nothing to remove") == len(HOOK_NAMES)


def test_uninstall_leaves_a_foreign_hook_alone(git_repo: Path, gm) -> None:
    hooks = _hooks(git_repo)
    (hooks / "pre-push").write_text(FOREIGN)
    result = gm("uninstall", "--hooks", "pre-push")
    assert "left alone" in out(result) and (hooks / "pre-push").read_text() == FOREIGN


def test_install_outside_a_repository(tmp_path: Path, gm) -> None:
    result = gm("install", cwd=tmp_path)
    assert result.returncode == 1 and err(result).startswith("error: not a git repository")
    assert subprocess.run(["ls", str(tmp_path)], capture_output=True, text=True).stdout == ""


def test_falls_back_to_git_memory_on_path(git_repo: Path, tmp_path: Path) -> None:
    """The recorded interpreter is gone (a removed venv): the shim uses `git-memory` on PATH."""
    hooks = _hooks(git_repo)
    for name in ("commit-msg", "post-commit"):
        (hooks / name).write_text(render(name, python=str(tmp_path / "gone" / "python"),
                                         package=str(tmp_path / "gone" / "git_memory")))
        (hooks / name).chmod(0o755)
    commit(git_repo, "FACT: the PATH fallback captures too", "a.py")
    assert [e["content"] for e in entries(git_repo)] == ["the PATH fallback captures too"]

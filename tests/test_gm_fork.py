"""The `gm` fixture's warm fork (tests/forkserver.py, tests/gmfork.py) is invisible: a forked
call gives the bytes, exit code and effects a fresh `git memory` process gives, takes its
environment, stdin and working directory from each call, and runs the interpreter the console
script names. The rest of the suite relies on this to test the product through `gm`."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import gmfork
import pytest
from conftest import BIN, err, make_repo, out, tip


def _fresh(*args: str, cwd: Path, input: bytes | None = None,
           env: dict[str, str] | None = None) -> subprocess.CompletedProcess:
    return subprocess.run(["git", "memory", *args], cwd=cwd, capture_output=True, input=input,
                          env={**os.environ, **(env or {})})


def _same(a: subprocess.CompletedProcess, b: subprocess.CompletedProcess) -> None:
    assert (a.returncode, out(a), err(a)) == (b.returncode, out(b), err(b))


def test_forked_calls_print_and_exit_as_fresh_processes(git_repo: Path, gm) -> None:
    assert gm("add", "LEARNED: the wörld cache — keeps ten files").returncode == 0
    for args in (["list"], ["list", "--json"], ["--version"], ["-h"], ["help", "add"],
                 ["nosuch"], ["add"], ["recall", "cache"], ["recall", "--bogus"],
                 ["show", "no-such-id"], ["doctor"]):
        _same(_fresh(*args, cwd=git_repo), gm(*args))
    if os.environ.get("GM_TEST_FORK", "1") != "0":  # the switch that turns the fork off
        assert gmfork._server is not None  # the calls above were forked, not started afresh


def test_a_forked_call_reads_stdin_and_its_own_environment(git_repo: Path, gm, tmp_path: Path) -> None:
    added = gm("add", "-", input="LEARNED: read from standard input é\n",
               env={"GIT_AUTHOR_NAME": "Other Person", "GIT_COMMITTER_NAME": "Other Person"})
    assert added.returncode == 0, err(added)
    shown = json.loads(out(gm("show", out(added).strip(), "--json")))
    assert shown["content"] == "read from standard input é"
    assert "Other Person" in shown["author"]
    # cwd per call: another repository, without a memory branch yet
    other = make_repo(tmp_path / "other")
    _same(_fresh("list", "--json", cwd=other), gm("list", "--json", cwd=other))
    assert json.loads(out(gm("list", "--json", cwd=other))) == []


def test_forked_install_writes_the_interpreter_of_the_console_script(tmp_path: Path, gm) -> None:
    forked, fresh = make_repo(tmp_path / "forked"), make_repo(tmp_path / "fresh")
    assert gm("install", cwd=forked).returncode == 0
    assert _fresh("install", cwd=fresh).returncode == 0
    with open(os.path.join(BIN, "git-memory"), encoding="utf-8") as script:
        interpreter = script.readline()[2:].strip()
    hooks = sorted(p.name for p in (fresh / ".git" / "hooks").iterdir())
    assert hooks and hooks == sorted(p.name for p in (forked / ".git" / "hooks").iterdir())
    for name in hooks:
        text = (forked / ".git" / "hooks" / name).read_text(encoding="utf-8")
        assert text == (fresh / ".git" / "hooks" / name).read_text(encoding="utf-8")
    assert any(interpreter in (forked / ".git" / "hooks" / n).read_text(encoding="utf-8")
               for n in hooks)


def test_what_a_fork_cannot_reproduce_starts_a_fresh_process(git_repo: Path) -> None:
    env = dict(os.environ)
    assert gmfork.run(["--help"], str(git_repo), None, env) is None  # git runs `git help memory`
    assert gmfork.run(["list"], str(git_repo), None, {**env, "LC_ALL": "C"}) is None
    assert gmfork.run(["list"], str(git_repo), None, {**env, "PYTHONHASHSEED": "1"}) is None
    assert gmfork.run(["list"], str(git_repo / "missing"), None, env) is None
    no_venv = os.pathsep.join(p for p in env["PATH"].split(os.pathsep) if p != BIN)
    assert gmfork.run(["list"], str(git_repo), None, {**env, "PATH": no_venv}) is None
    done = gmfork.run(["list"], str(git_repo), None, env)
    assert done is not None and done.returncode == 0


@pytest.mark.fresh_process
def test_the_fresh_process_marker_starts_git_memory_afresh(
        git_repo: Path, gm, monkeypatch: pytest.MonkeyPatch) -> None:
    # `ps` would show a child of git; here the proof is that the fork server is never asked
    # (left running for the worker's next tests: starting another costs 0.4 s of CPU).
    asked: list[list[str]] = []
    monkeypatch.setattr(gmfork, "run", lambda args, *rest: asked.append(args))
    assert gm("list").returncode == 0
    assert asked == []
    assert gmfork.run(["list"], str(git_repo), None, dict(os.environ)) is None  # the trap works
    assert asked == [["list"]]



def test_a_call_through_git_options_gets_what_git_gives_its_external(git_repo: Path) -> None:
    # gmfork.run_through_git (the config matrix): git's own `-c` reaches the forked call
    pre = ["-c", "memory.ref=kb-through"]
    env = dict(os.environ)
    added = gmfork.run_through_git(pre, ["add", "FACT: through git's options"], str(git_repo),
                                   None, env)
    assert added is not None and added.returncode == 0, added and err(added)
    assert tip(git_repo, "refs/heads/kb-through") and tip(git_repo) is None
    forked = gmfork.run_through_git(pre, ["list", "--json"], str(git_repo), None, env)
    assert forked is not None and "through git's options" in out(forked)
    _same(subprocess.run(["git", *pre, "memory", "list", "--json"], cwd=git_repo,
                         capture_output=True), forked)
    assert gmfork.run_through_git(["-c", "=broken"], ["list"], str(git_repo), None, env) is None


def test_a_process_another_program_starts_is_forked_and_ends_as_a_fresh_one(git_repo: Path) -> None:
    # gmfork.launch_command (the MCP SDK's client starts `git memory mcp` through it)
    env = dict(os.environ)
    text = b"LEARNED: read by the launched process\n"
    for args, code in ((["add", "-"], 0), (["list", "--json"], 0), (["nosuch"], 2)):
        command = gmfork.launch_command(args, env, [])
        assert command is not None
        launched = subprocess.run(command, cwd=git_repo, capture_output=True, env=env, input=text)
        assert launched.returncode == code, err(launched)
        if args[0] != "add":  # an add again would be a duplicate
            _same(_fresh(*args, cwd=git_repo, env=env), launched)
    assert "read by the launched process" in out(_fresh("list", cwd=git_repo))
    assert gmfork.launch_command(["list"], {**env, "PYTHONHASHSEED": "1"}, []) is None

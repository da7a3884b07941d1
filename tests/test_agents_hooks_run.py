"""Agent hooks run anywhere: the installed commands work with only `PATH=/usr/bin:/bin`,
and `doctor` runs them that way and catches one whose interpreter is gone."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

from conftest import err, git, out
from agents_support import _payload
from agents_support import _session_entries, _with_two_learned

CLEAN = ["env", "-i", "PATH=/usr/bin:/bin", "sh", "-c"]
BIN = os.path.dirname(sys.executable)  # `git memory` runs this venv's python3


def _installed(repo: Path) -> dict[str, str]:
    data = json.loads((repo / ".claude" / "settings.json").read_text())
    return {event: groups[-1]["hooks"][-1]["command"] for event, groups in data["hooks"].items()}


def _as_the_agent(command: str, payload: str, cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run([*CLEAN, command], cwd=cwd, input=payload, capture_output=True,
                          text=True)


def test_installed_commands_run_with_a_bare_environment(git_repo: Path, gm, tmp_path: Path):
    # No HOME and no GIT_* variables under env -i: the identity comes from the repository.
    git("config", "user.name", "Test User", cwd=git_repo)
    git("config", "user.email", "test@example.com", cwd=git_repo)
    assert gm("add", "DECISION: deploys go out on Tuesdays only").returncode == 0
    assert gm("install", "--agent", "claude").returncode == 0
    commands = _installed(git_repo)
    assert commands["SessionStart"].startswith(BIN + "/python")
    assert commands["SessionStart"].endswith(" -m git_memory context --format claude")
    assert not shutil.which("git-memory", path="/usr/bin:/bin")  # PATH alone would not do

    start = _as_the_agent(commands["SessionStart"], json.dumps(
        {"session_id": "s1", "hook_event_name": "SessionStart", "source": "startup",
         "cwd": str(git_repo)}), git_repo)
    assert start.returncode == 0, start.stderr
    context = json.loads(start.stdout)["hookSpecificOutput"]["additionalContext"]
    assert "deploys go out on Tuesdays only" in context

    stop = _as_the_agent(commands["Stop"], _payload(_with_two_learned(tmp_path), git_repo),
                         git_repo)
    assert stop.returncode == 0, stop.stderr
    assert "2 new" in stop.stderr and stop.stdout == ""
    assert len(_session_entries(gm)) == 2


def test_doctor_runs_the_hooks_and_catches_a_removed_interpreter(git_repo: Path, gm,
                                                                 tmp_path: Path):
    assert gm("install", "--agent", "claude").returncode == 0
    healthy = gm("doctor")
    assert healthy.returncode == 0, out(healthy) + err(healthy)
    assert out(healthy).count("ok    agent hook") == 4 and "no problems found" in out(healthy)
    assert _session_entries(gm) == []  # the harmless payload captured nothing

    # An interpreter that is later deleted (a venv removed): install from it, then remove it.
    # Outside its venv the link needs our sys.path to find the package and its dependencies.
    venv = tmp_path / "gone"
    gone = venv / "bin" / "python"
    gone.parent.mkdir(parents=True)
    os.symlink(sys.executable, gone)
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(p for p in sys.path if p)}
    subprocess.run([str(gone), "-m", "git_memory", "agent", "install"], cwd=git_repo,
                   check=True, capture_output=True, env=env)
    assert _installed(git_repo)["SessionStart"].startswith(f"{gone} -m git_memory")
    shutil.rmtree(venv)
    broken = gm("doctor")
    assert broken.returncode == 1
    text = out(broken)
    assert text.count("fail  agent hook") == 4 and "exited 127" in text
    assert str(gone) in text and "4 problems found" in text
    report = json.loads(out(gm("doctor", "--json")))
    assert [h["event"] for h in report["agent_hooks"] if h["problem"]] == [
        "SessionStart", "PreCompact", "Stop", "SessionEnd"]
    # Installing again from a working interpreter replaces the stale commands.
    assert gm("install", "--agent", "claude").returncode == 0
    assert all(c.startswith(BIN + "/python") for c in _installed(git_repo).values())
    assert gm("doctor").returncode == 0

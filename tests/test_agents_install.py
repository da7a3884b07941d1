"""`git memory agent install|uninstall --agent claude`: merge into Claude Code settings."""

from __future__ import annotations

import json
import sys
from pathlib import Path

from conftest import err, out

# The interpreter `git memory` runs under: the one its script names.
PY = (Path(sys.executable).parent / "git-memory").read_text().splitlines()[0][2:]
CONTEXT = f"{PY} -m git_memory context --format claude"
SESSION = f"{PY} -m git_memory session hook"

EXISTING = {
    "model": "opus",
    "permissions": {"allow": ["Bash(npm test:*)"], "deny": []},
    "env": {"FOO": "bar"},
    "hooks": {
        "SessionStart": [
            {"matcher": "startup", "hooks": [{"type": "command", "command": "echo hello"}]}
        ],
        "Stop": [{"hooks": [{"type": "command", "command": "notify-send done", "timeout": 5}]}],
        "PreToolUse": [
            {"matcher": "Bash", "hooks": [{"type": "command", "command": "./guard.sh"}]}
        ],
    },
}


def _settings(repo: Path) -> Path:
    path = repo / ".claude" / "settings.json"
    path.parent.mkdir(exist_ok=True)
    path.write_text(json.dumps(EXISTING, indent=4) + "\n", encoding="utf-8")
    return path


def _commands(data: dict, event: str) -> list[str]:
    return [h["command"] for g in data.get("hooks", {}).get(event, []) for h in g["hooks"]]


def test_install_keeps_everything_twice_adds_nothing_uninstall_removes_only_ours(git_repo, gm):
    path = _settings(git_repo)
    result = gm("install", "--agent", "claude")
    assert result.returncode == 0, err(result)
    data = json.loads(path.read_text())
    for key in ("model", "permissions", "env"):
        assert data[key] == EXISTING[key]
    assert _commands(data, "SessionStart") == ["echo hello", CONTEXT]
    assert _commands(data, "Stop") == ["notify-send done", SESSION]
    assert _commands(data, "SessionEnd") == [SESSION]
    assert data["hooks"]["PreToolUse"] == EXISTING["hooks"]["PreToolUse"]
    assert not (git_repo / ".git" / "hooks" / "post-commit").exists()  # agent hooks only

    once = path.read_text()
    again = gm("install", "--agent", "claude")
    assert again.returncode == 0 and "already" in out(again)
    assert path.read_text() == once  # twice adds nothing

    result = gm("uninstall", "--agent", "claude")
    assert result.returncode == 0, err(result)
    assert json.loads(path.read_text()) == EXISTING  # exactly what the user had


def test_uninstall_keeps_a_user_hook_sharing_our_group(git_repo, gm):
    path = git_repo / ".claude" / "settings.json"
    assert gm("agent", "install").returncode == 0
    data = json.loads(path.read_text())
    data["hooks"]["Stop"][0]["hooks"].append({"type": "command", "command": "say bye"})
    path.write_text(json.dumps(data))
    assert gm("agent", "uninstall").returncode == 0
    after = json.loads(path.read_text())
    assert after == {"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "say bye"}]}]}}


def test_install_creates_the_file_and_user_scope(git_repo, gm, isolated_git):
    assert gm("agent", "install").returncode == 0
    data = json.loads((git_repo / ".claude" / "settings.json").read_text())
    assert set(data["hooks"]) == {"SessionStart", "PreCompact", "Stop", "SessionEnd"}
    assert gm("agent", "install", "--scope", "user").returncode == 0
    user = json.loads((isolated_git / ".claude" / "settings.json").read_text())
    assert _commands(user, "SessionStart") == [CONTEXT]
    assert gm("agent", "uninstall", "--scope", "user").returncode == 0
    # The file did not exist before install, so it does not after.
    assert not (isolated_git / ".claude" / "settings.json").exists()


def test_malformed_settings_one_error_line_nothing_changed(git_repo, gm):
    path = git_repo / ".claude" / "settings.json"
    path.parent.mkdir()
    bad = '{"model": "opus",, }\n'
    path.write_text(bad)
    result = gm("agent", "install")
    assert result.returncode == 1
    lines = err(result).strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error:")
    assert path.read_text() == bad
    assert sorted(p.name for p in path.parent.iterdir()) == ["settings.json"]  # no temp left
    path.write_text('{"hooks": []}')
    assert gm("agent", "install").returncode == 1
    assert path.read_text() == '{"hooks": []}'


def test_unknown_agent_is_a_usage_error(git_repo, gm):
    result = gm("agent", "install", "--agent", "emacs")
    assert result.returncode == 2
    assert not (git_repo / ".claude").exists()


def test_install_replaces_the_bare_command_of_older_versions(git_repo, gm):
    path = git_repo / ".claude" / "settings.json"
    path.parent.mkdir()
    old = {"hooks": {"SessionStart": [{"hooks": [
        {"type": "command", "command": "git memory context --format claude"}]}]}}
    path.write_text(json.dumps(old))
    result = gm("install", "--agent", "claude")
    assert result.returncode == 0, err(result)
    data = json.loads(path.read_text())
    assert _commands(data, "SessionStart") == [CONTEXT]  # replaced, not doubled
    assert _commands(data, "Stop") == [SESSION]
    assert gm("uninstall", "--agent", "claude").returncode == 0
    assert json.loads(path.read_text()) == {}

"""Session-start hooks for Cursor, VS Code and Codex (issue 14): merged into the user's own
hooks file and undone byte for byte, run under `env -i` with a bare PATH printing the JSON
each agent documents, Codex's file checked against its published schema, and `doctor`
running them and catching a broken one."""

from __future__ import annotations

import json
import os
import shlex
import subprocess
from pathlib import Path

import pytest
import jsonschema

from conftest import err, out

SCHEMAS = Path(__file__).resolve().parent / "data" / "schemas"
BARE = ["env", "-i", "PATH=/usr/bin:/bin", "sh", "-c"]

# Each agent's user-scope hooks file as a user might have it (their formatting, their
# hooks), relative to HOME; Codex's under CODEX_HOME.
USER_HOOKS = {
    "cursor": (".cursor/hooks.json",
               '{\n  "version": 1,\n  "hooks": {\n    "afterFileEdit": [{"command": "./fmt.sh"}],\n'
               '    "sessionStart": [{"command": "echo \'{}\'"}]\n  }\n}'),
    "vscode": (".copilot/hooks/git-memory.json",
               '{"hooks": {"PostToolUse": [{"type": "command", "command": "npx prettier -w .",'
               ' "timeout": 30}],\n "SessionStart": [{"type": "command", "command": "date"}]}}\n'),
    "codex": ("codex-home/hooks.json",
              '{\n\t"hooks": {\n\t\t"SessionStart": [{"matcher": "startup", "hooks": [{"type": '
              '"command", "command": "python3 ~/.codex/start.py", "timeout": 5}]}],\n\t\t"Stop": '
              '[{"hooks": [{"type": "command", "command": "notify-send done"}]}]\n\t}\n}'),
}


def _env(home: Path) -> dict[str, str]:
    return {"CODEX_HOME": str(home / "codex-home")}


def _our_commands(agent: str, data: dict) -> list[str]:
    event = {"cursor": "sessionStart"}.get(agent, "SessionStart")
    entries = data["hooks"][event]
    if agent == "codex":
        entries = [h for g in entries for h in g["hooks"]]
    return [e["command"] for e in entries if "git_memory" in e["command"]]


def _session_start(agent: str, repo: Path) -> str:
    """A SessionStart input as each agent documents it."""
    if agent == "cursor":
        data = {"conversation_id": "c-1", "generation_id": "g-1", "session_id": "c-1",
                "hook_event_name": "sessionStart", "workspace_roots": [str(repo)],
                "is_background_agent": False, "composer_mode": "agent"}
    elif agent == "vscode":
        data = {"timestamp": "2026-11-26T10:00:00.000Z", "cwd": str(repo), "sessionId": "s-1",
                "hookEventName": "SessionStart", "transcript_path": "/tmp/none.json",
                "source": "new"}
    else:
        data = {"session_id": "s-1", "transcript_path": None, "cwd": str(repo),
                "hook_event_name": "SessionStart", "model": "gpt-5-codex", "source": "startup"}
    return json.dumps(data)


@pytest.mark.parametrize("agent", ["cursor", "vscode", "codex"])
def test_user_hooks_file_merged_kept_and_restored_byte_for_byte(git_repo, gm, isolated_git,
                                                                agent):
    rel, original = USER_HOOKS[agent]
    path = isolated_git / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(original.encode("utf-8"))
    env = _env(isolated_git)
    result = gm("install", "--agent", agent, "--scope", "user", env=env)
    assert result.returncode == 0, err(result)
    assert f"{path}: added git-memory for {agent}" in out(result)
    data = json.loads(path.read_text(encoding="utf-8"))
    before = json.loads(original)
    for event, entries in before["hooks"].items():  # every hook of theirs is still there
        assert data["hooks"][event][:len(entries)] == entries
    (command,) = _our_commands(agent, data)
    words = shlex.split(command)
    assert os.path.isabs(words[0]) and words[1:] == ["-m", "git_memory", "context",
                                                       "--format", agent]
    text = path.read_text(encoding="utf-8")
    again = gm("install", "--agent", agent, "--scope", "user", env=env)
    assert again.returncode == 0 and f"{path}: already has" in out(again)
    assert path.read_text(encoding="utf-8") == text
    removed = gm("install", "--agent", agent, "--scope", "user", "--remove", env=env)
    assert removed.returncode == 0, err(removed)
    assert f"{path}: restored as it was before install" in out(removed)
    assert path.read_bytes() == original.encode("utf-8")


@pytest.mark.parametrize("agent", ["cursor", "vscode", "codex"])
def test_context_hook_runs_bare_and_prints_the_agents_shape(git_repo, gm, agent):
    assert gm("add", "DECISION: releases are cut from the train branch on Thursdays").returncode == 0
    assert gm("install", "--agent", agent).returncode == 0
    hooks = {"cursor": ".cursor/hooks.json", "vscode": ".github/hooks/git-memory.json",
             "codex": ".codex/hooks.json"}[agent]
    (command,) = _our_commands(agent, json.loads((git_repo / hooks).read_text()))
    result = subprocess.run([*BARE, command], cwd=git_repo, input=_session_start(agent, git_repo),
                            capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    printed = json.loads(result.stdout)
    if agent == "cursor":  # Cursor's sessionStart output: additional_context
        assert set(printed) == {"additional_context"}
        context = printed["additional_context"]
    else:  # VS Code and Codex: hookSpecificOutput, as Claude Code
        assert set(printed) == {"hookSpecificOutput"}
        assert printed["hookSpecificOutput"]["hookEventName"] == "SessionStart"
        assert set(printed["hookSpecificOutput"]) == {"hookEventName", "additionalContext"}
        context = printed["hookSpecificOutput"]["additionalContext"]
    assert "releases are cut from the train branch on Thursdays" in context
    assert "<untrusted-knowledge" in context  # wrapped like every context block


def test_codex_hooks_file_validates_against_the_published_schema(git_repo, gm, isolated_git):
    schema = json.loads((SCHEMAS / "codex-hooks.schema.json").read_text(encoding="utf-8"))
    rel, original = USER_HOOKS["codex"]
    path = isolated_git / rel
    path.parent.mkdir(parents=True)
    path.write_text(original, encoding="utf-8")
    jsonschema.validate(json.loads(original), schema)  # theirs is valid
    env = _env(isolated_git)
    assert gm("install", "--agent", "codex", "--scope", "user", env=env).returncode == 0
    written = json.loads(path.read_text())
    jsonschema.validate(written, schema)
    # Into nothing: the file we create on our own is valid too.
    assert gm("install", "--agent", "codex").returncode == 0
    jsonschema.validate(json.loads((git_repo / ".codex" / "hooks.json").read_text()), schema)
    # The check can fail: a hook without its command is rejected by the same schema.
    broken = json.loads(json.dumps(written))
    del broken["hooks"]["SessionStart"][-1]["hooks"][0]["command"]
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(broken, schema)


def test_installing_into_nothing_and_removing_leaves_nothing(git_repo, gm):
    for agent in ("cursor", "vscode", "codex"):
        assert gm("install", "--agent", agent).returncode == 0
    assert (git_repo / ".github" / "hooks" / "git-memory.json").is_file()
    for agent in ("cursor", "vscode", "codex"):
        result = gm("install", "--agent", agent, "--remove")
        assert result.returncode == 0 and out(result).count("restored") == 2
    for folder in (".cursor", ".github", ".vscode", ".codex"):
        assert not (git_repo / folder).exists(), folder


def test_a_hooks_file_we_cannot_read_is_refused_and_left_alone(git_repo, gm):
    path = git_repo / ".cursor" / "hooks.json"
    path.parent.mkdir()
    path.write_text('{"version": 1, "hooks": {"sessionStart": {"command": "x"}}}')
    result = gm("install", "--agent", "cursor")
    assert result.returncode == 1
    assert "hooks.sessionStart' is not a list" in err(result)
    assert path.read_text() == '{"version": 1, "hooks": {"sessionStart": {"command": "x"}}}'


def test_doctor_runs_each_agents_hook_and_catches_a_broken_one(git_repo, gm):
    for agent in ("cursor", "vscode", "codex"):
        assert gm("install", "--agent", agent).returncode == 0
    healthy = gm("doctor")
    assert healthy.returncode == 0, out(healthy) + err(healthy)
    for agent in ("cursor", "vscode", "codex"):
        assert f"-m git_memory context --format {agent}" in out(healthy)
    assert out(healthy).count("ok    agent hook") == 3
    # The interpreter of Cursor's hook is gone (a deleted venv): still ours, now broken.
    path = git_repo / ".cursor" / "hooks.json"
    data = json.loads(path.read_text())
    data["hooks"]["sessionStart"][0]["command"] = (
        "/nonexistent/venv/bin/python -m git_memory context --format cursor")
    path.write_text(json.dumps(data))
    broken = gm("doctor")
    assert broken.returncode == 1
    text = out(broken)
    assert "fail  agent hook sessionStart (project): /nonexistent/venv/bin/python" in text
    assert "exited 127" in text and "reinstall: git memory install --agent cursor" in text
    report = json.loads(out(gm("doctor", "--json")))
    assert [(h["agent"], h["event"]) for h in report["agent_hooks"] if h["problem"]] == [
        ("cursor", "sessionStart")]


def test_a_user_scope_hook_run_outside_the_repository_reads_the_payloads_folder(
        git_repo, gm, isolated_git, tmp_path):
    # Cursor starts user hooks in ~/.cursor, not in the project: the payload names it.
    assert gm("add", "LEARNED: the cache key includes the locale").returncode == 0
    assert gm("install", "--agent", "cursor", "--scope", "user").returncode == 0
    (command,) = _our_commands("cursor", json.loads(
        (isolated_git / ".cursor" / "hooks.json").read_text()))
    elsewhere = tmp_path / "not-a-repo"
    elsewhere.mkdir()
    run = subprocess.run([*BARE, command], cwd=elsewhere, input=_session_start("cursor", git_repo),
                         capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stderr
    assert "cache key includes the locale" in json.loads(run.stdout)["additional_context"]
    # A payload naming no repository: nothing printed, the session is not disturbed.
    none = subprocess.run([*BARE, command], cwd=elsewhere, input='{"workspace_roots": []}',
                          capture_output=True, text=True, timeout=120)
    assert none.returncode == 0 and none.stdout == "" and none.stderr == ""


def test_remove_after_the_user_edited_the_hooks_file_takes_out_only_ours(git_repo, gm):
    assert gm("install", "--agent", "codex").returncode == 0
    path = git_repo / ".codex" / "hooks.json"
    data = json.loads(path.read_text())
    data["hooks"]["Stop"] = [{"hooks": [{"type": "command", "command": "say done"}]}]
    path.write_text(json.dumps(data))
    result = gm("install", "--agent", "codex", "--remove")
    assert result.returncode == 0 and "formatting may differ" in out(result)
    assert json.loads(path.read_text()) == {
        "hooks": {"Stop": [{"hooks": [{"type": "command", "command": "say done"}]}]}}

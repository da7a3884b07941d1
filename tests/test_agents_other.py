"""`install --agent NAME` for cursor, gemini, codex and vscode (and claude): each agent's
documented files, merged into what the user has, undone byte for byte (issue 14)."""

from __future__ import annotations

import json
import os
import shlex
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest
import jsonschema

from conftest import err, out

SCHEMAS = Path(__file__).resolve().parent / "data" / "schemas"
BARE_PATH = "/usr/bin:/bin"

# The user's own files, in their own formatting (tabs, no final newline, unicode), which
# --remove must give back byte for byte.
USER_FILES = {
    "cursor": (".cursor/mcp.json",
               '{\n\t"mcpServers": {\n\t\t"docs": {"command": "npx", "args": ["-y", "docs-mcp"]}\n\t}\n}'),
    "gemini": (".gemini/settings.json",
               '{\n    "ui": {"theme": "GitHub"},\n    "mcpServers": {"café": {"command": "node",'
               ' "args": ["s.js"]}},\n    "hooks": {"SessionStart": [{"hooks": [{"type": "command",'
               ' "command": "echo hi", "timeout": 500}]}]}\n}'),
    "codex": (".codex/config.toml",
              'model = "o4-mini"   # mine\n\n[mcp_servers.docs]\ncommand = "npx"\nargs = ["-y", "docs-mcp"]'),
    "vscode": (".vscode/mcp.json",
               '{"servers": {"docs": {"type": "stdio", "command": "npx", "args": ["docs-mcp"]}},'
               ' "inputs": []}\n'),
    "claude": (".claude/settings.json", '{"model": "opus",\n "hooks": {"Stop": []}}'),
}


def _ours(agent: str, text: str) -> list[list[str]]:
    """The commands of ours the file holds, as argument lists."""
    if agent == "codex":
        server = tomllib.loads(text)["mcp_servers"]["git-memory"]
        return [[server["command"], *server["args"]]]
    data = json.loads(text)
    if agent == "claude":
        return [shlex.split(h["command"]) for groups in data["hooks"].values() for g in groups
                for h in g["hooks"] if "git_memory" in h["command"] or "git memory" in h["command"]]
    key = "servers" if agent == "vscode" else "mcpServers"
    found = [[data[key]["git-memory"]["command"], *data[key]["git-memory"]["args"]]]
    if agent == "gemini":
        found += [shlex.split(h["command"]) for g in data["hooks"]["SessionStart"]
                  for h in g["hooks"] if h.get("name") == "git-memory-context"]
    return found


@pytest.mark.parametrize("agent", ["cursor", "gemini", "codex", "vscode", "claude"])
def test_install_merges_twice_adds_nothing_and_remove_restores_bytes(git_repo, gm, agent):
    rel, original = USER_FILES[agent]
    path = git_repo / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(original.encode("utf-8"))
    os.chmod(path, 0o640)
    result = gm("install", "--agent", agent)
    assert result.returncode == 0, err(result)
    assert "added git-memory" in out(result)
    text = path.read_text(encoding="utf-8")
    commands = _ours(agent, text)
    assert commands
    assert all(os.path.dirname(c[0]) == os.path.dirname(sys.executable)  # this venv's, absolute
               and c[1:3] == ["-m", "git_memory"] for c in commands)
    if agent == "codex":
        assert tomllib.loads(text)["mcp_servers"]["docs"]["command"] == "npx"  # theirs kept
        assert tomllib.loads(text)["model"] == "o4-mini"
    else:
        before = json.loads(original)
        after = json.loads(text)
        for key, value in before.items():
            if key not in ("mcpServers", "servers", "hooks"):
                assert after[key] == value
    again = gm("install", "--agent", agent)
    assert again.returncode == 0 and "already" in out(again)
    assert path.read_text(encoding="utf-8") == text
    removed = gm("install", "--agent", agent, "--remove")
    assert removed.returncode == 0, err(removed)
    assert "restored" in out(removed)
    assert path.read_bytes() == original.encode("utf-8")
    assert (path.stat().st_mode & 0o777) == 0o640
    assert sorted(p.name for p in path.parent.iterdir()) == [path.name]  # no temp files left


@pytest.mark.parametrize("agent", ["cursor", "gemini", "codex", "vscode"])
def test_install_into_nothing_and_remove_leaves_nothing(git_repo, gm, agent):
    rel = USER_FILES[agent][0]
    assert gm("install", "--agent", agent).returncode == 0
    assert (git_repo / rel).is_file()
    assert gm("install", "--agent", agent, "--remove").returncode == 0
    assert not (git_repo / rel.split("/")[0]).exists()  # the folder we made is gone too


def test_remove_after_the_user_edited_takes_out_only_ours(git_repo, gm):
    path = git_repo / ".cursor" / "mcp.json"
    assert gm("install", "--agent", "cursor").returncode == 0
    data = json.loads(path.read_text())
    data["mcpServers"]["mine"] = {"command": "my-server"}
    path.write_text(json.dumps(data))
    result = gm("install", "--agent", "cursor", "--remove")
    assert result.returncode == 0 and "formatting may differ" in out(result)
    assert json.loads(path.read_text()) == {"mcpServers": {"mine": {"command": "my-server"}}}


def test_user_scope_and_codex_home(git_repo, gm, isolated_git, tmp_path):
    codex_home = tmp_path / "codex-home"
    env = {"CODEX_HOME": str(codex_home)}
    assert gm("install", "--agent", "codex", "--scope", "user", env=env).returncode == 0
    assert "git-memory" in tomllib.loads((codex_home / "config.toml").read_text())["mcp_servers"]
    assert gm("install", "--agent", "gemini", "--scope", "user").returncode == 0
    assert (isolated_git / ".gemini" / "settings.json").is_file()
    assert gm("install", "--agent", "vscode", "--scope", "user").returncode == 0
    assert (isolated_git / ".config" / "Code" / "User" / "mcp.json").is_file()
    for agent in ("codex", "gemini", "vscode"):
        assert gm("install", "--agent", agent, "--scope", "user", "--remove", env=env).returncode == 0
    assert not (codex_home / "config.toml").exists()
    assert not (isolated_git / ".gemini").exists()


def test_unparsable_files_are_refused_and_left_alone(git_repo, gm):
    cases = {"vscode": (".vscode/mcp.json", '{// a comment\n "servers": {}}\n'),
             "codex": (".codex/config.toml", "model = \n"),
             "gemini": (".gemini/settings.json", '{"mcpServers": []}')}
    for agent, (rel, text) in cases.items():
        path = git_repo / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
        result = gm("install", "--agent", agent)
        assert result.returncode == 1, agent
        lines = err(result).strip().splitlines()
        assert len(lines) == 1 and lines[0].startswith("error:") and rel.split("/")[1] in lines[0]
        assert path.read_text() == text


def test_gemini_settings_validate_against_gemini_cli_published_schema(git_repo, gm):
    schema = json.loads((SCHEMAS / "gemini-cli-settings.schema.json").read_text(encoding="utf-8"))
    path = git_repo / ".gemini" / "settings.json"
    path.parent.mkdir()
    path.write_text(USER_FILES["gemini"][1], encoding="utf-8")
    jsonschema.validate(json.loads(path.read_text()), schema)  # the user's file is valid
    assert gm("install", "--agent", "gemini").returncode == 0
    written = json.loads(path.read_text())
    jsonschema.validate(written, schema)
    # And the check can fail: a key Gemini does not know is rejected by the same schema.
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate({**written, "mcpServers": {"x": {"cmd": "y"}}}, schema)


def test_documented_shapes_of_cursor_vscode_and_codex(git_repo, gm):
    for agent in ("cursor", "vscode", "codex"):
        assert gm("install", "--agent", agent).returncode == 0
    cursor = json.loads((git_repo / ".cursor" / "mcp.json").read_text())["mcpServers"]["git-memory"]
    assert set(cursor) == {"command", "args"}
    vscode = json.loads((git_repo / ".vscode" / "mcp.json").read_text())["servers"]["git-memory"]
    assert vscode["type"] == "stdio" and set(vscode) == {"type", "command", "args"}
    codex = tomllib.loads((git_repo / ".codex" / "config.toml").read_text())
    assert set(codex["mcp_servers"]["git-memory"]) == {"command", "args"}


OTHERS = ("cursor", "gemini", "codex", "vscode", "claude")


def _bare(command: list[str], cwd: Path, stdin: str) -> subprocess.CompletedProcess:
    return subprocess.run(["env", "-i", f"PATH={BARE_PATH}", *command], cwd=cwd,
                          input=stdin, capture_output=True, text=True, timeout=120)


def test_every_installed_command_runs_with_env_i_and_a_bare_path(git_repo, gm):
    assert gm("add", "DECISION: deploys go through the staging queue").returncode == 0
    for agent in OTHERS:
        assert gm("install", "--agent", agent).returncode == 0
    initialize = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {},
        "clientInfo": {"name": "bare", "version": "0"}}}) + "\n"
    payload = json.dumps({"session_id": "s", "transcript_path": "/nonexistent.jsonl",
                          "cwd": str(git_repo), "hook_event_name": "SessionStart"})
    seen = set()
    for agent in OTHERS:
        text = (git_repo / USER_FILES[agent][0]).read_text()
        for command in _ours(agent, text):
            if tuple(command) in seen:
                continue
            seen.add(tuple(command))
            if command[-1] == "mcp":
                result = _bare(command, git_repo, initialize)
                assert result.returncode == 0, result.stderr
                reply = json.loads(result.stdout.splitlines()[0])
                assert reply["result"]["serverInfo"]["name"] == "git-memory"
            elif command[-2:] == ["--format", "claude"]:
                result = _bare(command, git_repo, payload)
                assert result.returncode == 0, result.stderr
                context = json.loads(result.stdout)["hookSpecificOutput"]["additionalContext"]
                assert "staging queue" in context
            else:  # the session hook: never fails the session, says why on stderr
                result = _bare(command, git_repo, payload)
                assert result.returncode == 0 and result.stdout == ""
                assert "git-memory: session hook" in result.stderr
    assert len(seen) == 3  # the MCP server, the context hook and the session hook were run

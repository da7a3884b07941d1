"""The agent integrations' registry is the one list of agents: the CLI's choices, the docs
and `doctor` read it, and an integration added to it installs, undoes and is checked with no
other module touched (tests/test_agents_*.py drive each real agent's files end to end)."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import click
import pytest

from git_memory.agents import integrations
from git_memory.agents.integrations import AgentHook, FileChange, FoundHook, McpEntry, shared
from git_memory.agents.integrations import check as agent_check
from git_memory.cli.main import cli
from git_memory.commands import agent_install
from git_memory.errors import UsageProblem

DOCS = Path(__file__).resolve().parents[1] / "docs" / "agents.md"


def _choices(*path: str, option: str) -> list[str]:
    command: Any = cli
    for name in path:
        command = command.get_command(click.Context(command), name)
    (param,) = [p for p in command.params if p.name == option]
    assert isinstance(param.type, click.Choice)
    return list(param.type.choices)


def test_the_cli_the_docs_and_the_registry_name_the_same_agents() -> None:
    names = list(integrations.names())
    assert set(names) == {"claude", "cursor", "gemini", "codex", "vscode"}
    for path in (("install",), ("uninstall",), ("agent", "install"), ("agent", "uninstall")):
        assert _choices(*path, option="agent") == names, path
    assert _choices("context", option="fmt") == ["text", "json", *integrations.context_formats()]
    docs = DOCS.read_text("utf-8")
    (documented,) = re.findall(r"install --agent ([a-z]+(?:\|[a-z]+)+) ", docs)
    assert documented.split("|") == names
    for name in names:  # each one a module of the package, meeting the Protocol
        integration = integrations.get(name)
        assert isinstance(integration, integrations.Integration) and integration.name == name
        assert f"\n| {integration.title} " in docs  # its row in docs/agents.md's table of files
        assert integration.hooks and all(hook.args for hook in integration.hooks)
    # Every session-start hook prints a shape some agent's `context --format` names.
    assert set(integrations.context_formats()) < set(names)


def test_an_unknown_agent_is_one_usage_line_and_writes_nothing(git_repo: Path) -> None:
    before = sorted(git_repo.rglob("*"))
    with pytest.raises(UsageProblem, match="^unknown agent 'emacs'; supported: claude, cursor,"
                       " gemini, codex, vscode$"):
        agent_install.run(scope="project", remove=False, agent="emacs")
    assert sorted(git_repo.rglob("*")) == before


class Notebook:
    """A made-up agent reading `.notebook/agent.json`: one MCP entry and one hook, which
    fails (`exit 3`) so that doctor's verdict on it shows."""
    name = "notebook"
    title = "Notebook"
    hooks = (AgentHook("OnOpen", ("session", "hook")),)

    def mcp(self, scope: str, base: Path) -> McpEntry | None:
        return McpEntry(base / ".notebook" / "agent.json", "servers", shared.mcp_server())

    def files(self, scope: str, base: Path) -> list[FileChange]:
        entry = self.mcp(scope, base)
        assert entry is not None
        return [shared.mcp_file(entry)]

    def found(self, scope: str, base: Path) -> list[FoundHook]:
        path = self.files(scope, base)[0].path
        return [FoundHook("OnOpen", "exit 3", self.hooks[0].args)] if path.is_file() else []

    def hook_output(self, text: str) -> dict[str, Any]:
        return {"context": text}


@pytest.fixture
def notebook(monkeypatch: pytest.MonkeyPatch) -> Notebook:
    fake = Notebook()
    monkeypatch.setattr(integrations, "REGISTRY", dict(integrations.REGISTRY))
    monkeypatch.setattr(integrations, "_LOADED", dict(integrations._LOADED))
    integrations.register(fake)
    return fake


def test_an_integration_added_to_the_registry_installs_undoes_and_is_checked(
        git_repo: Path, notebook: Notebook, capsys: pytest.CaptureFixture[str]) -> None:
    assert isinstance(notebook, integrations.Integration)
    path = git_repo / ".notebook" / "agent.json"
    assert agent_install.run(scope="project", remove=False, agent="notebook") == 0
    assert json.loads(path.read_text()) == {"servers": {"git-memory": shared.mcp_server()}}
    assert f"{path}: added git-memory for notebook" in capsys.readouterr().out
    written = path.read_bytes()
    assert agent_install.run(scope="project", remove=False, agent="notebook") == 0
    assert "already has git-memory for notebook" in capsys.readouterr().out
    assert path.read_bytes() == written  # twice adds nothing

    (checked,) = [c for c in agent_check.check_all(git_repo, git_repo) if c.agent == "notebook"]
    assert (checked.scope, checked.event, checked.command) == ("project", "OnOpen", "exit 3")
    assert checked.problem == "exited 3"

    assert agent_install.run(scope="project", remove=True, agent="notebook") == 0
    assert "restored as it was before install" in capsys.readouterr().out
    assert not path.exists() and not path.parent.exists()  # the folder it made goes too
    assert not list((git_repo / ".git" / "git-memory" / "agent-installs").iterdir())

"""Click commands of the agent area: context, handoff, session, agent install/uninstall.

Each command imports its module in `commands/` when it runs and exits with its code.
"""

from __future__ import annotations

import sys

import click

from git_memory.agents import integrations
from git_memory.cli import options
from git_memory.limits import MAX_COUNT


@click.command("context")
@click.option("--budget", default=3000, show_default=True, type=click.IntRange(200, MAX_COUNT),
              help="Most characters to print (the whole block, wrapper included).")
@click.option("--format", "fmt", type=click.Choice(["text", "json", *integrations.context_formats()]),
              default="text", show_default=True,
              help="An agent's name: the JSON that agent's SessionStart hook prints.")
def context_cmd(budget: int, fmt: str) -> None:
    """What an agent should know at session start: this branch's handoff, preventions
    from recent failures, and entries relevant to the branch, its changes and recent
    commits, wrapped as untrusted knowledge."""
    from git_memory.commands import context

    sys.exit(context.run(budget=budget, fmt=fmt))


@click.command("handoff")
@click.argument("text", required=False)
@click.option("--clear", is_flag=True, help="Clear this branch's handoff.")
@click.option("--branch", metavar="NAME", help="Another branch than the checked-out one.")
def handoff_cmd(text: str | None, clear: bool, branch: str | None) -> None:
    """Record open items for the next session on this branch (newest wins); TEXT may be '-'."""
    from git_memory.commands import handoff

    sys.exit(handoff.run(text, clear=clear, branch=branch))


@click.group("session")
def session_group() -> None:
    """Capture knowledge from agent transcripts (Claude Code) and search archived sessions."""


@session_group.command("import")
@click.argument("paths", metavar="PATH...", nargs=-1, required=True)
@options.as_json()
def session_import_cmd(paths: tuple[str, ...], as_json: bool) -> None:
    """Capture markers from transcript files (or every *.jsonl under a directory, such as
    ~/.claude/projects/NAME) and archive the sessions; importing again adds only what is new."""
    from git_memory.commands import session

    sys.exit(session.run_import(list(paths), as_json=as_json))


@session_group.command("hook")
def session_hook_cmd() -> None:
    """Run from a Claude Code Stop/SessionEnd hook: reads the hook's JSON on stdin."""
    from git_memory.commands import session

    sys.exit(session.run_hook())


@session_group.command("search")
@click.argument("query")
@options.limit("At most this many.", default=10)
@options.as_json()
def session_search_cmd(query: str, limit: int, as_json: bool) -> None:
    """Search the archived sessions (refs/memory/sessions)."""
    from git_memory.commands import session

    sys.exit(session.run_search(query, limit=limit, as_json=as_json))


@session_group.command("worker", hidden=True)
def session_worker_cmd() -> None:
    """Drain the distillation queue (started detached by the session hook)."""
    from git_memory.commands import session

    sys.exit(session.run_worker())


@click.command("mcp")
@click.option("--repo", metavar="DIR", help="Serve this repository (default: the working"
              " directory, else the client's first root that is one).")
def mcp_cmd(repo: str | None) -> None:
    """Serve memory to agents over the Model Context Protocol (stdio): recall, context,
    show, related, add, handoff, propose. Needs the [mcp] extra."""
    from git_memory.commands import mcp

    sys.exit(mcp.run(repo=repo))


@click.group("agent")
def agent_group() -> None:
    """Hooks for coding agents (Claude Code)."""


@agent_group.command("install")
@options.agent("claude", "Which agent.")
@options.scope()
def agent_install_cmd(agent: str, scope: str) -> None:
    """Merge our hooks into Claude Code settings (keeps every other key and hook)."""
    from git_memory.commands import agent_install

    sys.exit(agent_install.run(scope=scope, remove=False, agent=agent))


@agent_group.command("uninstall")
@options.agent("claude", "Which agent.")
@options.scope()
def agent_uninstall_cmd(agent: str, scope: str) -> None:
    """Remove only our hooks from Claude Code settings."""
    from git_memory.commands import agent_install

    sys.exit(agent_install.run(scope=scope, remove=True, agent=agent))


COMMANDS = (context_cmd, handoff_cmd, session_group, mcp_cmd, agent_group)


def register(group: click.Group) -> None:
    for command in COMMANDS:
        group.add_command(command)

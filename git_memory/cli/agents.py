"""Click commands of the agent area: context, session, handoff, agent install/uninstall.

Each command lazily imports its module in `commands/` and exits with its code.
"""

from __future__ import annotations

import sys

import click

from git_memory.cli.main import cli


@cli.command("context")
@click.option("--budget", default=3000, show_default=True, type=click.IntRange(min=200),
              help="Most characters to print (the whole block, wrapper included).")
@click.option("--format", "fmt", type=click.Choice(["text", "json", "claude"]), default="text",
              show_default=True, help="claude: the JSON a Claude Code SessionStart hook prints.")
def context_cmd(budget: int, fmt: str) -> None:
    """What an agent should know at session start: this branch's handoff, preventions
    from recent failures, and entries relevant to the branch, its changes and recent
    commits, wrapped as untrusted knowledge."""
    from git_memory.commands import context

    sys.exit(context.run(budget, fmt))


@cli.command("handoff")
@click.argument("text", required=False)
@click.option("--clear", is_flag=True, help="Clear this branch's handoff.")
@click.option("--branch", metavar="NAME", help="Another branch than the checked-out one.")
def handoff_cmd(text: str | None, clear: bool, branch: str | None) -> None:
    """Record open items for the next session on this branch (newest wins); TEXT may be '-'."""
    from git_memory.commands import handoff

    sys.exit(handoff.run(text, clear, branch))


@cli.group("session")
def session_group() -> None:
    """Capture knowledge from agent transcripts (Claude Code) and search archived sessions."""


@session_group.command("import")
@click.argument("paths", metavar="PATH...", nargs=-1, required=True)
@click.option("--json", "as_json", is_flag=True, help="Print a JSON summary.")
def session_import_cmd(paths: tuple[str, ...], as_json: bool) -> None:
    """Capture markers from transcript files (or every *.jsonl under a directory, such as
    ~/.claude/projects/NAME) and archive the sessions; importing again adds only what is new."""
    from git_memory.commands import session

    sys.exit(session.run_import(list(paths), as_json))


@session_group.command("hook")
def session_hook_cmd() -> None:
    """Run from a Claude Code Stop/SessionEnd hook: reads the hook's JSON on stdin."""
    from git_memory.commands import session

    sys.exit(session.run_hook())


@session_group.command("search")
@click.argument("query")
@click.option("--limit", default=10, show_default=True, type=click.IntRange(min=1))
@click.option("--json", "as_json", is_flag=True, help="Print a JSON list.")
def session_search_cmd(query: str, limit: int, as_json: bool) -> None:
    """Search the archived sessions (refs/memory/sessions)."""
    from git_memory.commands import session

    sys.exit(session.run_search(query, limit, as_json))


@session_group.command("worker", hidden=True)
def session_worker_cmd() -> None:
    """Drain the distillation queue (started detached by the session hook)."""
    from git_memory.commands import session

    sys.exit(session.run_worker())


@cli.group("agent")
def agent_group() -> None:
    """Hooks for coding agents (Claude Code)."""


_AGENT = click.option("--agent", type=click.Choice(["claude"]), default="claude",
                      show_default=True, help="Which agent.")
_SCOPE = click.option("--scope", type=click.Choice(["project", "user"]), default="project",
                      show_default=True,
                      help="project: .claude/settings.json here; user: ~/.claude/settings.json.")


@agent_group.command("install")
@_AGENT
@_SCOPE
def agent_install_cmd(agent: str, scope: str) -> None:
    """Merge our hooks into Claude Code settings (keeps every other key and hook)."""
    from git_memory.commands import agent_install

    sys.exit(agent_install.run(scope, False, agent))


@agent_group.command("uninstall")
@_AGENT
@_SCOPE
def agent_uninstall_cmd(agent: str, scope: str) -> None:
    """Remove only our hooks from Claude Code settings."""
    from git_memory.commands import agent_install

    sys.exit(agent_install.run(scope, True, agent))

"""Click commands of the hooks area: install, uninstall, hook, audit.

Each one parses its options and hands them to its module in `commands/`.
"""

from __future__ import annotations

import sys

import click

from git_memory.cli.main import cli

HOOKS_HELP = ("Comma-separated subset of: commit-msg, post-commit, post-checkout, post-merge,"
              " pre-push (default: all).")


_AGENT = click.option("--agent", type=click.Choice(["claude"]),
                      help="Agent hooks instead of git hooks (Claude Code settings).")
_SCOPE = click.option("--scope", type=click.Choice(["project", "user"]), default="project",
                      show_default=True, help="With --agent: project (.claude/settings.json"
                      " here) or user (~/.claude/settings.json).")


@cli.command("install")
@click.option("--hooks", metavar="A,B", help=HOOKS_HELP)
@click.option("--auto-sync/--no-auto-sync", "auto_sync", default=None,
              help="Also set memory.autoSync, so a plain `git push` syncs the memory branch"
              " (off unless asked).")
@_AGENT
@_SCOPE
def install_cmd(hooks: str | None, auto_sync: bool | None, agent: str | None, scope: str) -> None:
    """Install the git hook shims (idempotent; an existing hook is kept and chained).

    With --agent claude, merge our hooks into Claude Code's settings instead."""
    if agent:
        from git_memory.commands import agent_install

        sys.exit(agent_install.run(scope, False, agent))
    from git_memory.commands import install

    sys.exit(install.run(hooks, auto_sync))


@cli.command("uninstall")
@click.option("--hooks", metavar="A,B", help=HOOKS_HELP)
@_AGENT
@_SCOPE
def uninstall_cmd(hooks: str | None, agent: str | None, scope: str) -> None:
    """Remove the git hook shims and put back any hook they chained.

    With --agent claude, remove only our hooks from Claude Code's settings."""
    if agent:
        from git_memory.commands import agent_install

        sys.exit(agent_install.run(scope, True, agent))
    from git_memory.commands import uninstall

    sys.exit(uninstall.run(hooks))


@cli.command("hook", context_settings={"ignore_unknown_options": True})
@click.argument("name", metavar="NAME")
@click.argument("args", nargs=-1, type=click.UNPROCESSED)
def hook_cmd(name: str, args: tuple[str, ...]) -> None:
    """Run one git hook's work (what the installed shims and pre-commit call)."""
    from git_memory.commands import hook

    sys.exit(hook.run(name, list(args)))


@cli.command("audit")
@click.option("--limit", "-n", type=click.IntRange(min=1), help="Only the last N actions.")
@click.option("--rule", metavar="RULE", help="Only actions of this rule (e.g. shell-debris).")
@click.option("--json", "as_json", is_flag=True, help="Print a JSON list.")
def audit_cmd(limit: int | None, rule: str | None, as_json: bool) -> None:
    """Show the local audit log: every sanitizer and hook action, with its rule."""
    from git_memory.commands import audit

    sys.exit(audit.run(limit, rule, as_json))

"""Options and arguments that several commands share, each with one wording in every
`--help`; `confirm` is the one yes/no question (curate --apply, purge)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

import click

from git_memory.agents import integrations
from git_memory.limits import MAX_COUNT

F = TypeVar("F", bound=Callable[..., Any])

JSON_HELP = "Print the result as JSON."
REMOTE_EPILOG = "REMOTE defaults to the current branch's remote, else origin."
HOOKS_HELP = ("Comma-separated subset of: commit-msg, post-commit, post-checkout, post-merge,"
              " pre-push (default: all).")
AGENT_HOOKS_HELP = "An agent's hooks and MCP server instead of git hooks."
SCOPE_HELP = ("project: the agent's files in this work tree (.claude/, .cursor/, .gemini/, .codex/,"
              " .vscode/, .github/hooks/); user: those in your home directory.")
PERSONAL_HELP = ("Your personal memory (one for all your repositories, outside any project;"
                 " `memory.personal` to move it) instead of this repository's.")


def as_json() -> Callable[[F], F]:
    return click.option("--json", "as_json", is_flag=True, help=JSON_HELP)


def personal() -> Callable[[F], F]:
    return click.option("--personal", is_flag=True, help=PERSONAL_HELP)


def remote() -> Callable[[F], F]:
    """The optional REMOTE argument of sync, pull and push (see REMOTE_EPILOG)."""
    return click.argument("remote", required=False)


def reason(required: bool = True) -> Callable[[F], F]:
    """`--reason TEXT`: why a curation record was written (kept on the record)."""
    if required:
        return click.option("--reason", metavar="TEXT", required=True, help="Why (required; kept"
                            " on the record and as a Review-Reason trailer).")
    return click.option("--reason", metavar="TEXT", help="Why (optional here).")


def limit(help: str, default: int | None = None, minimum: int = 1) -> Callable[[F], F]:
    """`-n/--limit N`; `help` says what is counted, `default` None means no limit."""
    return click.option("-n", "--limit", default=default, show_default=default is not None,
                        type=click.IntRange(minimum, MAX_COUNT), help=help)


def types() -> Callable[[F], F]:
    return click.option("--type", "types", multiple=True, metavar="TYPE",
                        help="Only this type (repeatable).")


def tags() -> Callable[[F], F]:
    return click.option("--tag", "tags", multiple=True, metavar="TAG",
                        help="Only entries with this tag (repeatable: all of them).")


def include_all() -> Callable[[F], F]:
    return click.option("--all", "include_all", is_flag=True,
                        help="Include superseded and redacted entries.")


def yes() -> Callable[[F], F]:
    return click.option("-y", "--yes", is_flag=True,
                        help="Do not ask for confirmation (scripts).")


def agent(default: str | None, help: str) -> Callable[[F], F]:
    """`--agent NAME`: one of the agent integrations' registry."""
    return click.option("--agent", type=click.Choice(integrations.names()), default=default,
                        show_default=default is not None, help=help)


def scope(prefix: str = "") -> Callable[[F], F]:
    """`--scope project|user`: which agent settings file."""
    return click.option("--scope", type=click.Choice(["project", "user"]), default="project",
                        show_default=True, help=prefix + SCOPE_HELP)


def confirm(question: str) -> bool:
    """Ask on the terminal (stderr, so --json output stays clean); no answer means no."""
    try:
        return click.confirm(question, default=False, err=True)
    except click.exceptions.Abort:
        return False

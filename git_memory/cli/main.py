"""The click command group; every command is loaded from its module only when it runs.

`COMMANDS` is the one table of names -> modules (each module defines `<name>_cmd`), in the
order the top-level help lists them. Errors map to exit codes in `exits.py`.
"""

from __future__ import annotations

import importlib
import sys
from typing import Any

import click

from git_memory import __version__, terminal
from git_memory.exits import guarded

CONTEXT = {"help_option_names": ["-h", "--help"], "max_content_width": 100}

COMMANDS = {
    # entries themselves
    "init": "init", "add": "add", "list": "list_", "show": "show", "log": "log",
    "import": "import_", "export": "export", "serve": "serve",
    # git hooks
    "install": "install", "uninstall": "install", "hook": "hook", "capture": "capture",
    "audit": "audit", "scan": "scan",
    # agents
    "context": "context", "handoff": "handoff", "session": "session", "mcp": "mcp",
    "agent": "agent_install",
    # sharing
    "sync": "sync", "pull": "sync", "push": "sync",
    # curation
    "supersede": "curate_manual", "merge": "curate_manual", "flag": "curate_manual",
    "redact": "curate_manual", "reinforce": "curate_manual", "contradict": "curate_manual",
    "curate": "curate", "diff": "diff", "purge": "purge", "review": "review",
    "promote": "promote", "demote": "promote",
    # recall and the index
    "recall": "recall", "reindex": "reindex", "doctor": "doctor",
    "embed": "embed",
    # the knowledge graph
    "graph": "graph", "related": "related",
}


class Group(click.Group):
    """The top-level group: `help` held here, every other command loaded on demand."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        return [*self.commands, *COMMANDS]  # help, then by topic

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        if cmd_name not in COMMANDS:
            return super().get_command(ctx, cmd_name)
        module = importlib.import_module(f"git_memory.commands.{COMMANDS[cmd_name]}")
        command: click.Command = getattr(module, cmd_name.replace("-", "_") + "_cmd")
        return command


@click.group(cls=Group, context_settings=CONTEXT)
@click.version_option(__version__, "-V", "--version", prog_name="git-memory")
@click.option("-P", "--no-pager", is_flag=True, help="Do not send long output (list, log, "
              "show, diff) through the pager on a terminal.")
def cli(no_pager: bool) -> None:
    """Typed, reviewable memory for a git repository, kept on its own branch.

    Entries ("LEARNED: ...", "DECISION: ...") live as files on the branch
    refs/heads/git-memory (git config memory.ref), travel with push and pull,
    and are recalled from a local index. `git memory help COMMAND` for details.
    On a terminal, long output goes through git's pager (GIT_PAGER, core.pager,
    PAGER) and is coloured as color.memory or color.ui say (NO_COLOR turns it off).
    """
    if no_pager:
        terminal.NO_PAGER = True


@cli.command("help")
@click.argument("command", required=False)
@click.pass_context
def help_cmd(ctx: click.Context, command: str | None) -> None:
    """Show help for git-memory or one of its commands."""
    parent = ctx.parent
    assert parent is not None
    group = parent.command
    assert isinstance(group, click.Group)
    if not command:
        click.echo(group.get_help(parent))
        return
    sub = group.get_command(parent, command)
    if sub is None:
        raise click.UsageError(f"no such command {command!r}")
    with click.Context(sub, info_name=command, parent=parent) as sub_ctx:
        click.echo(sub.get_help(sub_ctx))


def _click_main(argv: list[str] | None) -> Any:
    try:
        code = cli.main(args=argv, prog_name="git memory", standalone_mode=False)
    except click.exceptions.Exit as exc:
        return exc.exit_code
    except click.exceptions.Abort:
        sys.stderr.write("interrupted\n")
        return 130
    except click.ClickException as exc:
        exc.show()
        return exc.exit_code
    return code if isinstance(code, int) else 0  # a command returns its exit code


def main(argv: list[str] | None = None) -> Any:
    return guarded(_click_main, argv)

"""The click command group: built from the area modules, run with one error boundary.

Each area module (core, hooks, agents, sync, curation, recall) defines its commands
and a `register(group)` that adds them; this module calls those in the order the
top-level help lists them (by topic). Adding a command means defining it in its
area module and listing it there. The mapping of errors to exit codes lives in
`exits.py`, shared with the click-free recall path (`entry.py`), which hands
everything it does not run itself to `main` here. May import click, `cli.*`,
`exits` and the package version.
"""

from __future__ import annotations

import sys
from typing import Any

import click

from git_memory import __version__
from git_memory.cli import agents, core, curation, graph, hooks, recall, sync
from git_memory.exits import guarded

CONTEXT = {"help_option_names": ["-h", "--help"], "max_content_width": 100}
AREAS = (core, hooks, agents, sync, curation, recall, graph)


class Group(click.Group):
    def list_commands(self, ctx: click.Context) -> list[str]:
        return list(self.commands)  # in the order they were added, which is by topic


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
        from git_memory import terminal

        terminal.NO_PAGER = True


@click.command("help")
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


cli.add_command(help_cmd)
for _area in AREAS:
    _area.register(cli)


def _click_main(argv: list[str] | None) -> Any:
    try:
        cli.main(args=argv, prog_name="git memory", standalone_mode=False)
    except click.exceptions.Exit as exc:
        return exc.exit_code
    except click.exceptions.Abort:
        sys.stderr.write("interrupted\n")
        return 130
    except click.ClickException as exc:
        exc.show()
        return exc.exit_code
    return 0


def main(argv: list[str] | None = None) -> Any:
    return guarded(_click_main, argv)

"""The command line: parse arguments, call a command module, map errors to exit codes.

The mapping itself lives in `exits.py`, shared with the click-free recall path
(`entry.py`). Nothing else lives here.
"""

from __future__ import annotations

import sys
from typing import Any

import click

from git_memory import __version__
from git_memory.exits import guarded

CONTEXT = {"help_option_names": ["-h", "--help"], "max_content_width": 100}


class Group(click.Group):
    def list_commands(self, ctx: click.Context) -> list[str]:
        return list(self.commands)  # in the order they were added, which is by topic


@click.group(cls=Group, context_settings=CONTEXT)
@click.version_option(__version__, "-V", "--version", prog_name="git-memory")
def cli() -> None:
    """Typed, reviewable memory for a git repository, kept on its own branch.

    Entries ("LEARNED: ...", "DECISION: ...") live as files on the branch
    refs/heads/git-memory (git config memory.ref), travel with push and pull,
    and are recalled from a local index. `git memory help COMMAND` for details.
    """


@cli.command("help")
@click.argument("command", required=False)
@click.pass_context
def help_cmd(ctx: click.Context, command: str | None) -> None:
    """Show help for git-memory or one of its commands."""
    parent = ctx.parent
    assert parent is not None
    if not command:
        click.echo(cli.get_help(parent))
        return
    sub = cli.get_command(parent, command)
    if sub is None:
        raise click.UsageError(f"no such command {command!r}")
    with click.Context(sub, info_name=command, parent=parent) as sub_ctx:
        click.echo(sub.get_help(sub_ctx))


@cli.command("init")
def init_cmd() -> None:
    """Create the memory branch if it is missing (writing commands do it themselves)."""
    from git_memory.commands import init

    sys.exit(init.run())


@cli.command("add")
@click.argument("text")
@click.option("--type", "type_", metavar="TYPE", help="learned, decision, fact, pattern, "
              "investigation, deviation, failure or handoff (or start TEXT with 'LEARNED:').")
@click.option("--tag", "tags", multiple=True, metavar="TAG", help="A tag; repeat for more.")
def add_cmd(text: str, type_: str | None, tags: tuple[str, ...]) -> None:
    """Add one entry and print its id. TEXT may be '-' to read standard input."""
    from git_memory.commands import add

    sys.exit(add.run(text, type_, list(tags)))


@cli.command("list")
@click.option("--type", "types", multiple=True, metavar="TYPE", help="Only this type (repeatable).")
@click.option("--tag", "tags", multiple=True, metavar="TAG", help="Only entries with this tag.")
@click.option("--all", "include_all", is_flag=True, help="Include superseded and redacted entries.")
@click.option("--limit", type=click.IntRange(min=1), help="At most this many (newest first).")
@click.option("--json", "as_json", is_flag=True, help="Print a JSON list.")
def list_cmd(
    types: tuple[str, ...], tags: tuple[str, ...], include_all: bool, limit: int | None, as_json: bool
) -> None:
    """List entries, newest first."""
    from git_memory.commands import list_

    sys.exit(list_.run(types, tags, include_all, limit, as_json))


@cli.command("show")
@click.argument("entry_id", metavar="ID")
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
def show_cmd(entry_id: str, as_json: bool) -> None:
    """Show one entry (by id, its last 8 characters, or key) with its provenance."""
    from git_memory.commands import show

    sys.exit(show.run(entry_id, as_json))


@cli.command("log")
@click.option("-n", "--limit", default=20, show_default=True, type=click.IntRange(min=0),
              help="How many commits (0 for all).")
def log_cmd(limit: int) -> None:
    """History of the memory branch, with the records each commit added."""
    from git_memory.commands import log

    sys.exit(log.run(limit))


@cli.command("import")
@click.argument("path", metavar="FILE")
@click.option("--format", "fmt", type=click.Choice(["jsonl", "lavra", "markdown"]),
              default="jsonl", show_default=True, help="jsonl: our fields; lavra: a Lavra "
              "knowledge.jsonl; markdown: a notes file such as CLAUDE.md (each bullet or "
              "paragraph an entry, its heading a tag).")
@click.option("--type", "type_", metavar="TYPE", help="With --format markdown: the type of "
              "entries that start without a marker (default fact).")
@click.option("--skip-bad", is_flag=True, help="Report lines that are not JSON objects instead "
              "of stopping at the first one.")
@click.option("--redact-secrets", is_flag=True, help="Replace a secret with [REDACTED:rule] "
              "and import the entry, instead of rejecting it.")
@click.option("--json", "as_json", is_flag=True, help="Print the summary as JSON.")
def import_cmd(
    path: str, fmt: str, type_: str | None, skip_bad: bool, redact_secrets: bool, as_json: bool
) -> None:
    """Import many entries in one commit; FILE may be '-' for standard input."""
    from git_memory.commands import import_

    sys.exit(import_.run(path, fmt, skip_bad, as_json, redact_secrets, type_))


@cli.command("export")
@click.argument("directory", metavar="DIR", required=False)
@click.option("--format", "fmt", type=click.Choice(["markdown", "jsonl"]), default="markdown",
              show_default=True, help="markdown: a file tree in DIR; jsonl: standard output.")
@click.option("--all", "include_all", is_flag=True, help="Include superseded entries.")
def export_cmd(directory: str | None, fmt: str, include_all: bool) -> None:
    """Export entries as a Markdown tree (for grep and editors) or JSON lines."""
    from git_memory.commands import export

    sys.exit(export.run(directory, fmt, include_all))


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


import git_memory.cli.hooks  # noqa: E402,F401  (registers commands)
import git_memory.cli.agents  # noqa: E402,F401  (registers commands)
import git_memory.cli.sync  # noqa: E402,F401  (registers commands)
import git_memory.cli.curation  # noqa: E402,F401  (registers commands)
import git_memory.cli.recall  # noqa: E402,F401  (registers commands)

"""Click commands for entries themselves: init, add, list, show, log, import, export, serve.

Each parses its options and hands them to its module in `commands/` (imported
when the command runs, so `--help` stays fast). May import click, `cli.options`
and `commands`.
"""

from __future__ import annotations

import sys

import click

from git_memory.cli import options


@click.command("init")
def init_cmd() -> None:
    """Create the memory branch if it is missing (writing commands do it themselves)."""
    from git_memory.commands import init

    sys.exit(init.run())


@click.command("add")
@click.argument("words", metavar="TEXT...", nargs=-1, required=True)
@click.option("--type", "type_", metavar="TYPE", help="learned, decision, fact, pattern, "
              "investigation, deviation, failure or handoff (or start TEXT with 'LEARNED:').")
@click.option("--tag", "tags", multiple=True, metavar="TAG", help="A tag; repeat for more.")
@click.option("--redact-secrets", is_flag=True, help="Replace a secret (in the text or a tag) "
              "with [REDACTED:rule] and add the entry, instead of refusing it.")
@click.option("--truncate", is_flag=True,
              help="Keep the first 8000 characters of a longer text instead of refusing it.")
@click.option("--propose", metavar="NAME", help="Write the entry on branch "
              "git-memory-proposals/NAME for review (created, or appended to), not on the "
              "memory branch.")
@click.option("--supersedes", metavar="ID", help="With --propose: the entry the new one "
              "would replace (a supersede record goes on the proposal too).")
@click.option("--reason", metavar="TEXT", help="With --supersedes: why (kept on the record).")
@options.personal()
def add_cmd(words: tuple[str, ...], type_: str | None, tags: tuple[str, ...],
            redact_secrets: bool, truncate: bool, propose: str | None,
            supersedes: str | None, reason: str | None, personal: bool) -> None:
    """Add one entry and print its id. The words need no quotes (git memory add LEARNED:
    pip caches wheels); TEXT '-' reads standard input."""
    from git_memory.commands import add

    sys.exit(add.run(" ".join(words), type_=type_, tags=list(tags),
                     redact_secrets=redact_secrets, truncate=truncate, propose=propose,
                     supersedes=supersedes, reason=reason,
                     personal=personal))


@click.command("list")
@options.types()
@options.tags()
@options.include_all()
@click.option("--status", "statuses", multiple=True, metavar="STATUS",
              help="Only entries with this status: active, canonical, needs_review, "
              "superseded or redacted (repeatable: any of them).")
@options.limit("At most this many (newest first).")
@options.as_json()
@options.personal()
def list_cmd(
    types: tuple[str, ...], tags: tuple[str, ...], include_all: bool, statuses: tuple[str, ...],
    limit: int | None, as_json: bool, personal: bool,
) -> None:
    """List entries, newest first (teammates' entries that a fetch brought are marked
    with their remote, personal ones with `personal`)."""
    from git_memory.commands import list_

    sys.exit(list_.run(types=types, tags=tags, include_all=include_all, limit=limit,
                       as_json=as_json, statuses=statuses, personal=personal))


@click.command("show")
@click.argument("entry_id", metavar="ID")
@options.as_json()
def show_cmd(entry_id: str, as_json: bool) -> None:
    """Show one entry (by id, its last 8 characters, or key) with its provenance."""
    from git_memory.commands import show

    sys.exit(show.run(entry_id, as_json=as_json))


@click.command("log")
@options.limit("How many commits (0 for all).", default=20, minimum=0)
def log_cmd(limit: int) -> None:
    """History of the memory branch, with the records each commit added."""
    from git_memory.commands import log

    sys.exit(log.run(limit=limit))


@click.command("import")
@click.argument("path", metavar="FILE|DIR")
@click.option("--format", "fmt", type=click.Choice(["jsonl", "lavra", "markdown"]),
              default="jsonl", show_default=True, help="jsonl: our fields; lavra: a Lavra "
              "knowledge.jsonl; markdown: a notes file such as CLAUDE.md (each bullet or "
              "paragraph an entry, its heading a tag).")
@click.option("--type", "type_", metavar="TYPE", help="With --format markdown: the type of "
              "entries that start without a marker (default fact).")
@click.option("--skip-bad", is_flag=True, help="Report lines that are not JSON objects instead "
              "of stopping at the first one.")
@click.option("--redact-secrets/--skip-secrets", default=True, show_default=True,
              help="A text holding a secret is imported with the secret replaced by "
              "[REDACTED:rule] (the default; nothing else of the line is lost), or skipped and "
              "reported with --skip-secrets.")
@options.as_json()
def import_cmd(
    path: str, fmt: str, type_: str | None, skip_bad: bool, redact_secrets: bool, as_json: bool
) -> None:
    """Import many entries in one commit; FILE may be '-' for standard input. An export
    (`git memory export`, a file or a folder) is restored record for record."""
    from git_memory.commands import import_

    sys.exit(import_.run(path, fmt=fmt, skip_bad=skip_bad, as_json=as_json,
                         redact_secrets=redact_secrets, default_type=type_))


@click.command("export")
@click.argument("target", metavar="DIR|FILE", required=False)
@click.option("--format", "fmt", type=click.Choice(["markdown", "jsonl", "html"]),
              default="markdown", show_default=True, help="markdown: every record's file in the "
              "folder DIR; jsonl: one line per record, to FILE or standard output; html: the web "
              "view's pages as a static site in DIR (no secrets, no redacted entries).")
@click.option("--all", "include_all", is_flag=True, hidden=True,
              help="Accepted for compatibility: every record is always exported.")
def export_cmd(target: str | None, fmt: str, include_all: bool) -> None:
    """Export the whole memory (every entry and curation record, with ids, authors and
    links); `git memory import` of the export rebuilds the same memory."""
    from git_memory.commands import export

    sys.exit(export.run(target, fmt=fmt))


@click.command("serve")
@click.option("--port", type=click.IntRange(0, 65535), default=0, show_default=True,
              help="Port on 127.0.0.1 to listen on; 0 picks a free one.")
@click.option("--write", is_flag=True, help="Allow the review page to accept and reject entries.")
@click.option("--no-open", "no_open", is_flag=True, help="Do not open a browser; only print the address.")
def serve_cmd(port: int, write: bool, no_open: bool) -> None:
    """A local web view of the memory (search, entries, graph, timeline, review) on
    127.0.0.1, behind a random access token in the address it prints; read only unless
    --write. Needs the web extra (pip install 'git-memory-cli[web]')."""
    from git_memory.commands import serve

    sys.exit(serve.run(port=port, write=write, open_browser=not no_open))


COMMANDS = (init_cmd, add_cmd, list_cmd, show_cmd, log_cmd, import_cmd, export_cmd, serve_cmd)


def register(group: click.Group) -> None:
    for command in COMMANDS:
        group.add_command(command)

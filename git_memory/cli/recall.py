"""Click commands of the recall area: `recall`, `reindex`, `doctor`.

`recall` usually runs without click through git_memory.entry (a fast path);
this definition is the reference for its options, its help, and its usage
errors, and it runs whenever the fast path hands over. May import click,
`cli.options` and `commands`.
"""

from __future__ import annotations

import sys

import click

from git_memory.limits import MAX_COUNT

from git_memory.cli import options


@click.command("recall")
@click.argument("query", nargs=-1)
@options.types()
@options.tags()
@click.option("--path", "paths", multiple=True, metavar="P",
              help="Rank entries anchored at or under P higher (repeatable); alone, list them.")
@click.option("--since", metavar="WHEN", help="Only entries created since a date (2026-01-31) or an age (7d, 2w, 3mo).")
@options.limit("At most this many.", default=10)
@options.include_all()
@click.option("--recent", type=click.IntRange(1, MAX_COUNT), metavar="N",
              help="The N newest entries; with QUERY, rank only among them.")
@click.option("--stats", is_flag=True, help="Counts by type, status and tag, and the index's health.")
@options.as_json()
@click.option("--format", "fmt", type=click.Choice(["text", "json", "agent"]), default="text",
              show_default=True, help="agent: cleaned and wrapped as untrusted knowledge, as"
              " `context` prints it (for agents that shell out).")
@click.option("--sessions", is_flag=True, help="Search the archived agent sessions instead of the entries.")
def recall_cmd(
    query: tuple[str, ...], types: tuple[str, ...], tags: tuple[str, ...], paths: tuple[str, ...],
    since: str | None, limit: int, include_all: bool, recent: int | None, stats: bool, as_json: bool,
    sessions: bool, fmt: str,
) -> None:
    """Entries ranked for QUERY (words; quote it or not), best first."""
    from git_memory.commands import recall

    args = recall.RecallArgs(
        query=" ".join(query), types=list(types), tags=list(tags), paths=list(paths), since=since,
        limit=limit, include_all=include_all, recent=recent, stats=stats, as_json=as_json,
        sessions=sessions, fmt=fmt,
    )
    sys.exit(recall.run(args))


@click.command("reindex")
@click.option("--background", is_flag=True, hidden=True,
              help="Build or resume the index quietly unless a build is running (agent hooks).")
def reindex_cmd(background: bool) -> None:
    """Rebuild the local index from the memory branch (progress on a terminal)."""
    from git_memory.commands import reindex

    sys.exit(reindex.run(background=background))


@click.command("doctor")
@options.as_json()
def doctor_cmd(as_json: bool) -> None:
    """Check the memory branch, the index and the agent hooks; list malformed records and
    other problems. Exits 1 when it finds any."""
    from git_memory.commands import doctor

    sys.exit(doctor.run(as_json=as_json))


COMMANDS = (recall_cmd, reindex_cmd, doctor_cmd)


def register(group: click.Group) -> None:
    for command in COMMANDS:
        group.add_command(command)

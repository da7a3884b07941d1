"""Click commands of the graph area: `graph` and `related` (docs/graph.md).

May import click, `cli.options` and `commands`.
"""

from __future__ import annotations

import sys

import click

from git_memory.cli import options

# The bounds of graph.query (MAX_DEPTH, MAX_LIMIT, RELATED_MAX), repeated so that the
# help is built without importing the graph layer.
MAX_DEPTH, MAX_LIMIT, RELATED_MAX = 10, 20000, 1000


@click.command("graph")
@click.argument("ref", metavar="[ID]", required=False)
@click.option("--path", metavar="P", help="Around a path (and the paths under it, for a folder).")
@click.option("--tag", metavar="T", help="Around a tag.")
@click.option("--depth", default=1, show_default=True, type=click.IntRange(1, MAX_DEPTH),
              help="Steps out from ID, P or T.")
@click.option("-n", "--limit", default=500, show_default=True, type=click.IntRange(1, MAX_LIMIT),
              help="At most this many nodes (a cut is noted on stderr).")
@click.option("--provenance", "chain", is_flag=True,
              help="Only ID's supersede and merge chain, both ways.")
@click.option("--format", "fmt", type=click.Choice(["json", "dot", "mermaid"]), default="json",
              show_default=True, help="dot: Graphviz; mermaid: a `graph LR` diagram.")
def graph_cmd(ref: str | None, path: str | None, tag: str | None, depth: int, limit: int,
              chain: bool, fmt: str) -> None:
    """The knowledge graph around entry ID, a path or a tag, or all of it (newest first).

    Nodes are entries and what they are about (anchored and named paths, identifiers,
    tags); edges are supersedes, merged_from, reinforces, contradicts and about.
    Redacted entries are never shown.
    """
    from git_memory.commands import graph

    if sum(x is not None for x in (ref, path, tag)) > 1:
        raise click.UsageError("give one of ID, --path and --tag")
    sys.exit(graph.run(ref, path=path, tag=tag, depth=depth, limit=limit, fmt=fmt, chain=chain))


@click.command("related")
@click.argument("ref", metavar="ID")
@options.limit("At most this many.", default=10)
@options.as_json()
def related_cmd(ref: str, limit: int, as_json: bool) -> None:
    """Entries nearest to ID in the graph: shared paths, identifiers, tags, provenance."""
    from git_memory.commands import related

    if limit > RELATED_MAX:
        raise click.UsageError(f"-n must be at most {RELATED_MAX}")
    sys.exit(related.run(ref, limit=limit, as_json=as_json))


COMMANDS = (graph_cmd, related_cmd)


def register(group: click.Group) -> None:
    for command in COMMANDS:
        group.add_command(command)

"""`git memory graph [ID|--path P|--tag T]`: a neighbourhood of the knowledge graph, or the
whole graph (bounded), as JSON, Graphviz DOT or Mermaid."""

from __future__ import annotations

import click

from git_memory import ui
from git_memory.api.memory import Memory
from git_memory.errors import UsageProblem
from git_memory.graph import render
from git_memory.graph.query import MAX_DEPTH, MAX_LIMIT

FORMATS = ("json", "dot", "mermaid")


@click.command("graph")
@click.argument("ref", metavar="[ID]", required=False)
@click.option("--path", metavar="P", help="Around a path (and the paths under it, for a folder).")
@click.option("--tag", metavar="T", help="Around a tag.")
@click.option("--depth", default=1, show_default=True, type=click.IntRange(1, MAX_DEPTH), metavar="N",
              help="Steps out from ID, P or T.")
@click.option("-n", "--limit", default=500, show_default=True, type=click.IntRange(1, MAX_LIMIT),
              metavar="N",
              help="At most this many nodes (a cut is noted on stderr).")
@click.option("--provenance", "chain", is_flag=True,
              help="Only ID's supersede and merge chain, both ways.")
@click.option("--format", "fmt", type=click.Choice(FORMATS), default="json",
              show_default=True, help="dot: Graphviz; mermaid: a `graph LR` diagram.")
def graph_cmd(ref: str | None, path: str | None, tag: str | None, depth: int, limit: int,
              chain: bool, fmt: str) -> int:
    """The knowledge graph around entry ID, a path or a tag, or all of it (newest first).

    Nodes are entries and what they are about (anchored and named paths, identifiers,
    tags); edges are supersedes, merged_from, reinforces, contradicts and about.
    Redacted entries are never shown.
    """
    if sum(x is not None for x in (ref, path, tag)) > 1:
        raise click.UsageError("give one of ID, --path and --tag")
    if chain and ref is None:
        raise UsageProblem("--provenance needs an entry ID")
    with Memory() as memory:
        if chain and ref is not None:
            graph = memory.provenance(ref)
        else:
            graph = memory.graph(ref, path=path, tag=tag, depth=depth, limit=limit)
    if fmt == "json":
        ui.out_json(render.to_json(graph))
    elif fmt == "dot":
        ui.out(render.to_dot(graph).rstrip("\n"))
    else:
        ui.out(render.to_mermaid(graph).rstrip("\n"))
    if graph.note:
        ui.warn(f"note: {graph.note}")
    return 0

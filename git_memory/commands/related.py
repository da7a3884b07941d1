"""`git memory related ID`: the entries nearest to one entry in the knowledge graph
(shared paths, identifiers and tags, provenance neighbours), with scores and reasons."""

from __future__ import annotations

from typing import Any

import click

from git_memory import ui
from git_memory.api.memory import Memory
from git_memory.graph.values import Near
from git_memory.cli import options
from git_memory.graph.query import RELATED_MAX


@click.command("related")
@click.argument("ref", metavar="ID")
@options.limit("At most this many.", default=10)
@options.as_json()
def related_cmd(ref: str, limit: int, as_json: bool) -> int:
    """Entries nearest to ID in the graph: shared paths, identifiers, tags, provenance."""
    if limit > RELATED_MAX:
        raise click.UsageError(f"-n must be at most {RELATED_MAX}")
    with Memory() as memory:
        found = memory.related(ref, limit=limit)
    if as_json:
        ui.out_json([to_dict(item) for item in found])
        return 0
    if not found:
        ui.warn("no related entries: nothing else shares a path, identifier, tag or provenance")
        return 0
    for item in found:
        status = "" if item.status == "active" else f" [{item.status}]"
        ui.out(f"{item.id[-8:].lower()}  {item.score:6.2f}  {item.type:<13} "
               f"{ui.first_line(item.content, 70)}{status}")
        ui.out(f"{'':10}        {'; '.join(item.reasons)}")
    return 0


def to_dict(item: Near) -> dict[str, Any]:
    """The JSON shape of one related entry (`related --json`, the MCP tool)."""
    return {"id": item.id, "score": item.score, "reasons": item.reasons,
            "type": item.type, "status": item.status,
            "content": ui.first_line(item.content, 200)}

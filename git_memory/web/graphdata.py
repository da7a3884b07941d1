"""The graphs the pages draw, in `graph.render.to_json`'s shape, and the entries related to one
entry. The graph layer leaves out redacted entries and masks secrets (`graph.query`)."""

from __future__ import annotations

from typing import Any

from git_memory.api.memory import Memory
from git_memory.errors import NotFound
from git_memory.graph.render import to_json
from git_memory.web.data import clean

# Nodes on the graph page: entries, newest first, each with all it is about (paths,
# symbols, tags). 1,000 entries and their things fit with room to spare; the page says
# when a larger memory was cut (the graph layer's note).
GRAPH_NODES = 4000
RELATED = 8


def whole(memory: Memory, limit: int = GRAPH_NODES) -> dict[str, Any]:
    drawn = to_json(memory.graph(limit=limit))
    if drawn["truncated"]:  # the graph layer's note speaks of command options
        entries = sum(1 for n in drawn["nodes"] if n["kind"] == "entry")
        drawn["note"] = (f"The newest {entries} entries with what they are about (the page draws"
                         f" at most {limit} nodes); filter by tag or path to narrow.")
    return drawn


def provenance(memory: Memory, entry_id: str) -> dict[str, Any]:
    """The entry's provenance drawing; none for an entry the graph does not hold (one from
    personal memory, a remote's copy or `memory.sources`: the graph draws the local branch)."""
    try:
        return to_json(memory.provenance(entry_id))
    except NotFound:
        return {"nodes": [], "edges": [], "truncated": False, "note": None}


def related(memory: Memory, entry_id: str, limit: int = RELATED) -> list[dict[str, Any]]:
    """`{"id", "label", "type", "score", "reasons"}` of the nearest entries, best first
    (none for an entry the graph does not hold, as for `provenance`)."""
    try:
        nearest = memory.related(entry_id, limit=limit)
    except NotFound:
        return []
    return [{"id": near.id, "label": clean(near.content).strip().split("\n", 1)[0][:120],
             "type": near.type, "score": near.score, "reasons": [clean(r) for r in near.reasons]}
            for near in nearest]

"""The graphs the pages draw, from the graph layer (`graph.query`), in its JSON shape
(`graph.render.to_json`): `{"nodes": [{"id", "kind", "label", "type", "status",
"confidence", "created"}], "edges": [{"source", "target", "kind", "count"}], "truncated",
"note"}`, and the entries related to one entry.

`whole`: the graph page's drawing (the newest entries and what they are about, bounded in
nodes); `provenance`: one entry's chain of supersedes and merges, both ways, transitively,
with its feedback loops; `related`: the graph's nearest entries with the reasons. The graph
layer never answers with a redacted entry; every label still goes through the secret mask
(`data.clean`). Read through `Memory`; never prints.
"""

from __future__ import annotations

from typing import Any

from git_memory.api.memory import Memory
from git_memory.errors import NotFound
from git_memory.graph.values import Graph
from git_memory.graph.render import to_json
from git_memory.web.data import clean

# Nodes on the graph page: entries, newest first, each with all it is about (paths,
# symbols, tags). 1,000 entries and their things fit with room to spare; the page says
# when a larger memory was cut (the graph layer's note).
GRAPH_NODES = 4000
RELATED = 8


def _shown(graph: Graph) -> dict[str, Any]:
    """The graph as JSON, entry labels masked, and any path, symbol or tag that holds a
    secret left out with its edges (its name is its id: masking the label is not enough;
    the graph layer takes identifiers from the text, and a token is one to it)."""
    drawn = to_json(graph)
    dropped = set()
    for node in drawn["nodes"]:
        masked = clean(node["label"])
        if node["kind"] != "entry" and (masked != node["label"] or clean(node["id"]) != node["id"]):
            dropped.add(node["id"])
        node["label"] = masked
    if dropped:
        drawn["nodes"] = [n for n in drawn["nodes"] if n["id"] not in dropped]
        drawn["edges"] = [e for e in drawn["edges"]
                          if e["source"] not in dropped and e["target"] not in dropped]
    return drawn


def whole(memory: Memory, limit: int = GRAPH_NODES) -> dict[str, Any]:
    drawn = _shown(memory.graph(limit=limit))
    if drawn["truncated"]:  # the graph layer's note speaks of command options
        entries = sum(1 for n in drawn["nodes"] if n["kind"] == "entry")
        drawn["note"] = (f"The newest {entries} entries with what they are about (the page draws"
                         f" at most {limit} nodes); filter by tag or path to narrow.")
    return drawn


def provenance(memory: Memory, entry_id: str) -> dict[str, Any]:
    """The entry's provenance drawing; none for an entry the graph does not hold (one
    read from personal memory, a remote's copy or `memory.sources`: the graph draws the
    local branch only)."""
    try:
        return _shown(memory.provenance(entry_id))
    except NotFound:
        return {"nodes": [], "edges": [], "truncated": False, "note": None}


def related(memory: Memory, entry_id: str, limit: int = RELATED) -> list[dict[str, Any]]:
    """`{"id", "label", "type", "score", "reasons"}` of the nearest entries, best first
    (none for an entry the graph does not hold, as for `provenance`)."""
    try:
        nearest = memory.related(entry_id, limit=limit)
    except NotFound:
        return []
    found = []
    for near in nearest:
        first = clean(near.content).strip().split("\n", 1)[0]
        found.append({"id": near.id, "label": first[:120], "type": near.type,
                      "score": near.score, "reasons": [clean(r) for r in near.reasons]})
    return found

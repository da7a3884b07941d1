"""The graphs the pages draw, in the graph layer's JSON shape (`graph.render.to_json`):
`{"nodes": [{"id", "kind", "label", "type", "status", "confidence", "created"}],
"edges": [{"source", "target", "kind", "count"}], "truncated", "note"}`.

`whole`: the newest entries (redacted never) with their provenance links and "about" links
to the tags and paths they name; `provenance`: one entry's chain of supersedes and merges,
both ways, transitively (a merge's supersedes links are drawn once, as merged_from). Labels go through the secret scan (`data.clean`). Imports
`index`, `web.data`; never prints.
"""

from __future__ import annotations

import json
from typing import Any

from git_memory.index.db import Index
from git_memory.index.entries import by_id
from git_memory.web.data import GRAPH_LIMIT, HIDDEN, REDACTED, clean, iter_visible

PROVENANCE_LIMIT = 60
# state field -> (edge kind, the edge points from this entry to the other)
_LINKS = {"supersedes": ("supersedes", True), "superseded_by": ("supersedes", False),
          "merged_from": ("merged_from", True), "merged_into": ("merged_from", False)}


def entry_node(entry: dict[str, Any]) -> dict[str, Any]:
    return {"id": "entry:" + entry["id"], "kind": "entry", "label": _label(entry["content"]),
            "type": entry["type"], "status": entry["status"],
            "confidence": entry["confidence"], "created": entry["created"]}


def _label(text: str) -> str:
    line = clean(text).strip().split("\n", 1)[0]
    return line if len(line) <= 80 else line[:79] + "…"


def _about(kind: str, name: str) -> dict[str, Any]:
    return {"id": f"{kind}:{name}", "kind": kind, "label": name, "type": None, "status": None,
            "confidence": None, "created": None}


def whole(index: Index, limit: int = GRAPH_LIMIT) -> dict[str, Any]:
    """The newest `limit` entries, their links among themselves and to their tags and paths."""
    nodes: dict[str, dict[str, Any]] = {}
    links: list[tuple[str, str, str]] = []
    entries = list(iter_visible(index, limit + 1))
    truncated = len(entries) > limit
    for entry in entries[:limit]:
        node = entry_node(entry)
        nodes[node["id"]] = node
        for tag in entry["tags"]:
            links.append((node["id"], "tag:" + tag, "about"))
        for path in entry["anchors"]:
            links.append((node["id"], "path:" + path, "about"))
        for other in entry["supersedes"]:
            links.append((node["id"], "entry:" + other, "supersedes"))
        for other in entry["merged_from"]:
            links.append((node["id"], "entry:" + other, "merged_from"))
    edges = []
    for source, target, kind in dict.fromkeys(links):
        if target not in nodes:
            if kind != "about":
                continue  # an entry outside the drawing (older, or redacted)
            name = target.split(":", 1)[1]
            nodes[target] = _about(target.split(":", 1)[0], name)
        edges.append({"source": source, "target": target, "kind": kind, "count": 1})
    note = f"the newest {limit} entries only" if truncated else None
    return {"nodes": list(nodes.values()), "edges": edges, "truncated": truncated, "note": note}


def provenance(index: Index, entry_id: str, limit: int = PROVENANCE_LIMIT) -> dict[str, Any]:
    """The entries linked to `entry_id` by supersedes and merges, either way, transitively
    (breadth first, at most `limit`); a redacted one is a node labelled (redacted)."""
    nodes: dict[str, dict[str, Any]] = {}
    edges: dict[tuple[str, str, str], dict[str, Any]] = {}
    todo, truncated = [entry_id], False
    while todo:
        current = todo.pop(0)
        if "entry:" + current in nodes:
            continue
        if len(nodes) >= limit:
            truncated = True
            break
        row = by_id(index, current)
        if row is None:
            continue
        nodes["entry:" + current] = _row_node(row)
        state = json.loads(row["state"]) if row["state"] else {}
        for field, (kind, outward) in _LINKS.items():
            for other in state.get(field, []):
                pair = (current, other) if outward else (other, current)
                key = ("entry:" + pair[0], "entry:" + pair[1], kind)
                edges[key] = {"source": key[0], "target": key[1], "kind": kind, "count": 1}
                todo.append(other)
    merged = {(e["source"], e["target"]) for e in edges.values() if e["kind"] == "merged_from"}
    kept = [e for e in edges.values() if e["source"] in nodes and e["target"] in nodes
            and not (e["kind"] == "supersedes" and (e["source"], e["target"]) in merged)]
    note = f"cut at {limit} entries" if truncated else None
    return {"nodes": list(nodes.values()), "edges": kept, "truncated": truncated, "note": note}


def _row_node(row: Any) -> dict[str, Any]:
    hidden = row["status"] in HIDDEN
    return {"id": "entry:" + row["id"], "kind": "entry",
            "label": REDACTED if hidden else _label(row["content"]),
            "type": row["type"], "status": row["status"],
            "confidence": None if hidden else row["confidence"], "created": row["created"]}


def related(index: Index, entry_id: str, limit: int = 8) -> list[dict[str, Any]]:
    """The entries nearest `entry_id` in the graph: `{"id", "label", "reasons"}`, best first."""
    return []

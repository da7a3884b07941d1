"""The geometry of the two SVG drawings made on the server (so they work with scripts off):
an entry's provenance chain and the timeline's weekly bars; the templates draw them."""

from __future__ import annotations

from typing import Any

NODE_W, NODE_H, GAP_X, GAP_Y = 220, 44, 70, 18
BAR_AREA_W, BAR_AREA_H = 760, 180


def _layers(nodes: list[str], edges: list[dict[str, Any]]) -> dict[str, int]:
    """Each node's column: 0 for an entry that replaces nothing, else one more than the
    furthest entry it replaces (edges point from the newer entry to the older one)."""
    older: dict[str, list[str]] = {n: [] for n in nodes}
    for edge in edges:
        older[edge["source"]].append(edge["target"])
    layer = {n: 0 for n in nodes}
    for _ in range(len(nodes)):  # longest path by relaxation; bounded, so a cycle cannot hang
        changed = False
        for node, below in older.items():
            best = max((layer[b] + 1 for b in below), default=0)
            if best != layer[node] and best <= len(nodes):
                layer[node], changed = best, True
        if not changed:
            break
    return layer


def provenance(prov: dict[str, Any], current: str) -> dict[str, Any] | None:
    """The chain as columns, oldest on the left: `{"width", "height", "node_w", "node_h",
    "edges": [{kind, x1, y1, x2, y2}], "nodes": [{id, here, status, short, sub, label, x, y}],
    "note"}`; None for an entry that stands alone."""
    nodes = prov["nodes"]
    if len(nodes) <= 1:
        return None
    links = [e for e in prov["edges"] if e["source"] != e["target"]]
    loops = _loops(prov["edges"])
    layer = _layers([n["id"] for n in nodes], links)
    rows: dict[int, int] = {}
    place: dict[str, tuple[int, int]] = {}
    for node in sorted(nodes, key=lambda n: (layer[n["id"]], n.get("created") or "")):
        col = layer[node["id"]]
        row = rows.get(col, 0)
        rows[col] = row + 1
        place[node["id"]] = (10 + col * (NODE_W + GAP_X), 10 + row * (NODE_H + GAP_Y))
    return {
        "width": 20 + (max(layer.values()) + 1) * (NODE_W + GAP_X) - GAP_X,
        "height": 20 + max(rows.values()) * (NODE_H + GAP_Y) - GAP_Y,
        "node_w": NODE_W, "node_h": NODE_H,
        "edges": [_edge(place, e) for e in links],
        "nodes": [_node(n, place[n["id"]], n["id"] == "entry:" + current, loops.get(n["id"], ""))
                  for n in nodes],
        "note": prov.get("note"),
    }


def _edge(place: dict[str, tuple[int, int]], edge: dict[str, Any]) -> dict[str, Any]:
    """From the newer entry (right) to the older one (left), arrow at the older end."""
    (sx, sy), (tx, ty) = place[edge["source"]], place[edge["target"]]
    return {"kind": edge["kind"], "x1": sx, "y1": sy + NODE_H // 2,
            "x2": tx + NODE_W, "y2": ty + NODE_H // 2}


def _loops(edges: list[dict[str, Any]]) -> dict[str, str]:
    """The feedback an entry got (reinforces, contradicts: edges from it to itself), as
    `+2 −1` beside its status."""
    marks: dict[str, list[str]] = {}
    for edge in edges:
        if edge["source"] == edge["target"]:
            sign = "+" if edge["kind"] == "reinforces" else "−"
            marks.setdefault(edge["source"], []).append(f"{sign}{edge['count']}")
    return {k: " " + " ".join(v) for k, v in marks.items()}


def _node(node: dict[str, Any], at: tuple[int, int], here: bool, feedback: str) -> dict[str, Any]:
    entry_id = node["id"].split(":", 1)[1]
    status = node.get("status") or ""
    return {"id": entry_id, "here": here, "status": status, "x": at[0], "y": at[1],
            "short": node["label"] if len(node["label"]) <= 30 else node["label"][:29] + "…",
            "label": node["label"],
            "sub": f"{entry_id[-8:].lower()} {node.get('type') or ''} · {status}{feedback}"}


def bars(timeline: dict[str, Any]) -> dict[str, Any] | None:
    """Stacked bars, one per week, a colour per entry type: `{"width", "height", "top",
    "base", "label", "right", "bars": [{type, week, count, x, y, w, h}]}`; None with no weeks."""
    weeks, types = timeline["weeks"], timeline["types"]
    if not weeks:
        return None
    top = max(sum(timeline["entries"].get(w, {}).values()) for w in weeks) or 1
    step = BAR_AREA_W / len(weeks)
    width = max(step * 0.8, 1.0)
    drawn = []
    for i, week in enumerate(weeks):
        y = BAR_AREA_H + 10.0
        for name in types:
            count = timeline["entries"].get(week, {}).get(name, 0)
            if count:
                h = count / top * BAR_AREA_H
                y -= h
                drawn.append({"type": name, "week": week, "count": count,
                              "x": 40 + i * step, "y": y, "w": width, "h": h})
    return {"width": BAR_AREA_W + 50, "height": BAR_AREA_H + 36, "top": top,
            "base": BAR_AREA_H + 10, "label": BAR_AREA_H + 28, "right": 40 + BAR_AREA_W,
            "bars": drawn}

"""Drawings made on the server as SVG (no script needed, so they work in the static site and
with scripts off): an entry's provenance chain, and the timeline's stacked weekly bars.
Every text is escaped; colours come from the stylesheet's classes. Imports nothing of ours
but the JSON shapes `web.graphdata` and `web.data` make; never prints.
"""

from __future__ import annotations

from html import escape
from typing import Any, Callable

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


def _short(text: str, size: int = 30) -> str:
    return text if len(text) <= size else text[: size - 1] + "…"


def provenance_svg(entry_href: Callable[[str], str], prov: dict[str, Any], current: str) -> str:
    """The chain as columns, oldest on the left; each entry a link to its page."""
    nodes = prov["nodes"]
    if len(nodes) <= 1:
        return '<p class="prov-none">No supersedes or merges: this entry stands alone.</p>'
    ids = [n["id"] for n in nodes]
    links = [e for e in prov["edges"] if e["source"] != e["target"]]
    loops = _loops(prov["edges"])
    layer = _layers(ids, links)
    rows: dict[int, int] = {}
    place: dict[str, tuple[int, int]] = {}
    for node in sorted(nodes, key=lambda n: (layer[n["id"]], n.get("created") or "")):
        col = layer[node["id"]]
        row = rows.get(col, 0)
        rows[col] = row + 1
        place[node["id"]] = (10 + col * (NODE_W + GAP_X), 10 + row * (NODE_H + GAP_Y))
    width = 20 + (max(layer.values()) + 1) * (NODE_W + GAP_X) - GAP_X
    height = 20 + max(rows.values()) * (NODE_H + GAP_Y) - GAP_Y
    parts = [_edge(place, e) for e in links]
    parts += [_node(entry_href, n, place[n["id"]], n["id"] == "entry:" + current, loops.get(n["id"], ""))
              for n in nodes]
    note = f'<p class="note">{escape(prov["note"])}</p>' if prov.get("note") else ""
    return (
        f'<div class="scroll"><svg class="prov" role="img" width="{width}" height="{height}"'
        f' viewBox="0 0 {width} {height}" aria-label="provenance: {len(nodes)} entries,'
        f' oldest on the left">'
        '<defs><marker id="arrow" viewBox="0 0 10 10" refX="10" refY="5" markerWidth="7"'
        ' markerHeight="7" orient="auto-start-reverse"><path d="M0,0 L10,5 L0,10 z"/></marker></defs>'
        + "".join(parts) + "</svg></div>" + note
    )


def _edge(place: dict[str, tuple[int, int]], edge: dict[str, Any]) -> str:
    """From the newer entry (right) to the older one (left), arrow at the older end."""
    (sx, sy), (tx, ty) = place[edge["source"]], place[edge["target"]]
    kind = edge["kind"]
    return (f'<line class="prov-edge e-{escape(kind)}" x1="{sx}" y1="{sy + NODE_H // 2}"'
            f' x2="{tx + NODE_W}" y2="{ty + NODE_H // 2}" marker-end="url(#arrow)">'
            f"<title>{escape(kind.replace('_', ' '))}</title></line>")


def _loops(edges: list[dict[str, Any]]) -> dict[str, str]:
    """The feedback an entry got (reinforces, contradicts: edges from it to itself), as
    `+2 −1` beside its status."""
    marks: dict[str, list[str]] = {}
    for edge in edges:
        if edge["source"] == edge["target"]:
            sign = "+" if edge["kind"] == "reinforces" else "−"
            marks.setdefault(edge["source"], []).append(f"{sign}{edge['count']}")
    return {k: " " + " ".join(v) for k, v in marks.items()}


def _node(entry_href: Callable[[str], str], node: dict[str, Any], at: tuple[int, int], here: bool,
          feedback: str = "") -> str:
    x, y = at
    entry_id = node["id"].split(":", 1)[1]
    status = node.get("status") or ""
    cls = "prov-node" + (" current" if here else "") + f" s-{escape(status)}"
    label = f"{node.get('type') or ''} · {status}{feedback}"
    box = (f'<rect x="{x}" y="{y}" width="{NODE_W}" height="{NODE_H}" rx="6"/>'
           f'<text x="{x + 8}" y="{y + 17}">{escape(_short(node["label"]))}</text>'
           f'<text class="sub" x="{x + 8}" y="{y + 34}">{escape(entry_id[-8:].lower())} {escape(label)}</text>'
           f"<title>{escape(node['label'])}</title>")
    if here:
        return f'<g class="{cls}" data-id="{escape(entry_id)}">{box}</g>'
    return f'<a class="{cls}" data-id="{escape(entry_id)}" href="{escape(entry_href(entry_id))}">{box}</a>'


def timeline_svg(timeline: dict[str, Any]) -> str:
    """Stacked bars, one per week, a colour per entry type, with a legend."""
    weeks, types = timeline["weeks"], timeline["types"]
    if not weeks:
        return "<p>No entries yet.</p>"
    totals = [sum(timeline["entries"].get(w, {}).values()) for w in weeks]
    top = max(totals) or 1
    step = BAR_AREA_W / len(weeks)
    bar = max(step * 0.8, 1.0)
    parts = []
    for i, week in enumerate(weeks):
        y = BAR_AREA_H + 10.0
        for name in types:
            count = timeline["entries"].get(week, {}).get(name, 0)
            if not count:
                continue
            h = count / top * BAR_AREA_H
            y -= h
            parts.append(f'<rect class="t-{escape(name)}" x="{40 + i * step:.1f}" y="{y:.1f}"'
                         f' width="{bar:.1f}" height="{h:.1f}"><title>{escape(week)}: {count}'
                         f" {escape(name)}</title></rect>")
    axis = (f'<text x="36" y="16" text-anchor="end">{top}</text><text x="36" y="{BAR_AREA_H + 10}"'
            f' text-anchor="end">0</text><text x="40" y="{BAR_AREA_H + 28}">{escape(weeks[0])}</text>'
            f'<text x="{40 + BAR_AREA_W}" y="{BAR_AREA_H + 28}" text-anchor="end">{escape(weeks[-1])}</text>')
    legend = " ".join(f'<span class="sw t-{escape(t)}"></span> {escape(t)}' for t in types)
    return (f'<div class="scroll"><svg class="bars" role="img" viewBox="0 0 {BAR_AREA_W + 50}'
            f' {BAR_AREA_H + 36}" aria-label="entries per week by type, {len(weeks)} weeks">'
            + "".join(parts) + axis + f'</svg></div><p class="legend">{legend}</p>')

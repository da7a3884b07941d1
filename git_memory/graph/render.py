"""A graph as JSON (the shape the web view and `graph --format json` share), Graphviz DOT and
Mermaid. Any id or label is safe in each output (escaped; Mermaid gets generated node ids)."""

from __future__ import annotations

import re
from typing import Any

from git_memory.graph.values import Graph, Node

LABEL_MAX = 60  # characters of an entry's text in a DOT or Mermaid label


def to_json(g: Graph) -> dict[str, Any]:
    return {
        "nodes": [{"id": n.id, "kind": n.kind, "label": n.label, "type": n.entry_type,
                   "status": n.status, "confidence": n.confidence, "created": n.created}
                  for n in g.nodes],
        "edges": [{"source": e.source, "target": e.target, "kind": e.kind, "count": e.count}
                  for e in g.edges],
        "truncated": g.truncated,
        "note": g.note,
    }


def short_label(node: Node) -> str:
    """One line of at most LABEL_MAX characters: entries read `[type] text`."""
    text = " ".join(node.label.split())
    if len(text) > LABEL_MAX:
        text = text[: LABEL_MAX - 1] + "…"
    if node.kind == "entry":
        return f"[{node.entry_type or 'entry'}] {text}"
    return text if node.kind != "tag" else "#" + text


# ---- Graphviz DOT

_DOT_SHAPES = {"entry": "box", "path": "folder", "symbol": "hexagon", "tag": "ellipse"}
_DOT_EDGES = {
    "supersedes": 'color="#555555"',
    "merged_from": 'color="#1f6feb"',
    "contradicts": 'color="#cf222e" style=dashed',
    "reinforces": 'color="#1a7f37" style=dashed',
    "about": 'color="#aaaaaa" arrowhead=none',
}


# Every character Python's str.splitlines() breaks a line at: a reader splitting the
# output into lines must never find one inside a quoted string.
_LINE_BREAKS = re.compile(r"\r\n|[\n\r\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029]")


def dot_string(text: str) -> str:
    """A DOT double-quoted string: backslashes and quotes escaped, any line break as the
    escape `\\n`, other control characters left out."""
    cleaned = text.replace("\\", "\\\\").replace('"', '\\"')
    cleaned = _LINE_BREAKS.sub("\\\\n", cleaned)
    return '"' + "".join(ch for ch in cleaned if ch == "\t" or not _control(ch)) + '"'


def _control(ch: str) -> bool:
    return ch < " " or "\x7f" <= ch <= "\x9f"


def to_dot(g: Graph) -> str:
    lines = ["digraph memory {", "  rankdir=LR;", '  node [fontname="Helvetica" fontsize=10];',
             '  edge [fontname="Helvetica" fontsize=9];']
    if g.note:
        # One comment line, with no control character (Graphviz refuses a NUL anywhere).
        note = "".join(ch for ch in " ".join(g.note.split()) if not _control(ch))
        lines.append(f"  // {note}")
    for node in g.nodes:
        attrs = [f"label={dot_string(short_label(node))}", f"shape={_DOT_SHAPES.get(node.kind, 'box')}"]
        if node.status in ("superseded", "needs_review"):
            attrs.append("style=dashed")
        elif node.status == "canonical":
            attrs.append("style=bold")
        lines.append(f"  {dot_string(node.id)} [{' '.join(attrs)}];")
    for edge in g.edges:
        attrs = [_DOT_EDGES.get(edge.kind, "")]
        if edge.kind != "about":
            name = edge.kind if edge.count == 1 else f"{edge.kind} x{edge.count}"
            attrs.append(f"label={dot_string(name)}")
        lines.append(f"  {dot_string(edge.source)} -> {dot_string(edge.target)} [{' '.join(a for a in attrs if a)}];")
    lines.append("}")
    return "\n".join(lines) + "\n"


# ---- Mermaid

# Characters Mermaid would read as syntax or markup inside a quoted label, as its
# numeric entity codes (`#34;` for a quote); a line break becomes a space.
_MERMAID_ESCAPES = {'"': "#34;", "#": "#35;", "&": "#38;", "<": "#60;", ">": "#62;",
                    "`": "#96;", "\\": "#92;"}
_MERMAID_SHAPES = {"entry": ('["', '"]'), "path": ('[/"', '"/]'), "symbol": ('{{"', '"}}'),
                   "tag": ('(("', '"))')}
_MERMAID_ARROWS = {"supersedes": "-->", "merged_from": "==>", "contradicts": "-.->",
                   "reinforces": "-.->", "about": "---"}


def mermaid_label(text: str) -> str:
    """Label text safe inside Mermaid's double quotes (one line, markup as entity codes)."""
    flat = " ".join(text.split())
    return "".join(_MERMAID_ESCAPES.get(ch, ch) for ch in flat if ch.isprintable())


def to_mermaid(g: Graph) -> str:
    """Valid Mermaid `graph LR`: nodes get generated ids n0, n1, ... in the order of
    `g.nodes` (a real id may hold any character), labels are escaped, statuses are classes."""
    names = {node.id: f"n{i}" for i, node in enumerate(g.nodes)}
    lines = ["graph LR"]
    if g.note:
        lines.append(f"  %% {mermaid_label(g.note)}")
    for node in g.nodes:
        left, right = _MERMAID_SHAPES.get(node.kind, ('["', '"]'))
        lines.append(f"  {names[node.id]}{left}{mermaid_label(short_label(node))}{right}")
    for edge in g.edges:
        if edge.source not in names or edge.target not in names:
            continue
        arrow = _MERMAID_ARROWS.get(edge.kind, "-->")
        text = edge.kind if edge.count == 1 else f"{edge.kind} x{edge.count}"
        link = f"{arrow}|{text}|" if edge.kind != "about" else arrow
        lines.append(f"  {names[edge.source]} {link} {names[edge.target]}")
    classes: dict[str, list[str]] = {}
    for node in g.nodes:
        if node.status in ("superseded", "canonical", "needs_review"):
            classes.setdefault(node.status, []).append(names[node.id])
    styles = {"superseded": "stroke-dasharray: 5 5,color:#666",
              "canonical": "stroke-width:3px", "needs_review": "stroke:#bf8700"}
    for status, members in classes.items():
        lines.append(f"  classDef {status} {styles[status]}")
        lines.append(f"  class {','.join(members)} {status}")
    return "\n".join(lines) + "\n"

"""Questions asked of the graph: a neighbourhood (or the whole graph, bounded), the entries
related to one entry, one entry's provenance. Each brings the graph tables level with the index
first. No answer holds a redacted entry or names a secret: an entry's label is its masked text,
and a path, symbol or tag taken from a secret is left out with its edges (`_guarded`)."""

from __future__ import annotations

import json
import math
from collections import deque
from typing import Any, Callable, Iterator

from git_memory.errors import NotFound, UsageProblem
from git_memory.graph.extract import about, clean_path
from git_memory.graph.values import Edge, Graph, Near, Node, node_id, split_node_id
from git_memory.index import graph as tables
from git_memory.index.db import Index
from git_memory.index.entries import find_entry
from git_memory.index.schema import Row
from git_memory.sanitize.scan import redact_string

MAX_LIMIT = 20000  # nodes in one answer: beyond this a picture says nothing more
MAX_DEPTH = 10
RELATED_MAX = 1000
LABEL_CHARS = 200  # characters of an entry's first line kept as its label
# A node more than this many entries are about (a tag on half the memory) links too much
# to say anything about a pair; `related` leaves it out and says so.
COMMON_NODE = 2000
# What each shared thing is worth to `related`, before the rarity weight.
WEIGHTS = {"path": 3.0, "symbol": 2.0, "tag": 1.0}
PROVENANCE_WEIGHT = 5.0


def ensure(index: Index) -> None:
    if not tables.is_current(index):
        tables.catch_up(index, about)


def check_bounds(depth: int, limit: int) -> None:
    if not 1 <= depth <= MAX_DEPTH:
        raise UsageProblem(f"--depth must be between 1 and {MAX_DEPTH}, not {depth}")
    if not 1 <= limit <= MAX_LIMIT:
        raise UsageProblem(f"--limit must be between 1 and {MAX_LIMIT}, not {limit}")


def resolve(index: Index, ref: str) -> Row:
    """The entry a user names; NotFound when there is none or it is redacted."""
    row = find_entry(index, ref)
    if row is None or row["src"]:  # the graph holds this branch's entries only
        raise NotFound(f"no entry {ref!r}")
    if row["status"] == "redacted":
        raise NotFound(f"entry {ref!r} is redacted")
    return row


def entry_node(row: Row) -> Node:
    text = masked(row).strip().splitlines()
    label = text[0][:LABEL_CHARS] if text else ""
    return Node(id=node_id("entry", row["id"]), kind="entry", label=label,
                entry_type=row["type"], status=row["status"],
                confidence=float(row["confidence"]), created=row["created"])


def masked(row: Row) -> str:
    """An entry's text with any secret masked. The writer refuses secrets, but a record
    committed by hand with plain git was never scanned, so the graph masks it when read."""
    return redact_string(str(row["content"] or ""))[0]


def secret_names(rows: list[Row]) -> set[tuple[str, str]]:
    """The (kind, name) pairs extracted from an entry's text that its masked text no longer
    yields: `password: "s3cr3t_v4lue"` makes a name of the value, which alone scans clean."""
    found: set[tuple[str, str]] = set()
    for row in rows:
        text = str(row["content"] or "")
        clean = masked(row)
        if clean != text:
            found.update(set(about(text, [], [])) - set(about(clean, [], [])))
    return found


def _guarded(graph: Graph, rows: list[Row]) -> Graph:
    """`graph` less any path, symbol or tag that holds or came from a secret, with its
    edges (its name is its id: masking a label would not be enough)."""
    tainted = {node_id(kind, name) for kind, name in secret_names(rows)}
    dropped = {n.id for n in graph.nodes
               if n.kind != "entry" and (n.id in tainted or redact_string(n.label)[0] != n.label)}
    if not dropped:
        return graph
    return Graph(nodes=[n for n in graph.nodes if n.id not in dropped],
                 edges=[e for e in graph.edges
                        if e.source not in dropped and e.target not in dropped],
                 truncated=graph.truncated, note=graph.note)


def _state(row: Row) -> dict[str, Any]:
    return json.loads(row["state"]) if row["state"] else {}


def provenance_edges(rows: dict[str, Row]) -> list[Edge]:
    """supersedes / merged_from between these entries (newer -> older), and the
    reinforces / contradicts loops with their counts, from the fold's state."""
    edges: list[Edge] = []
    for eid, row in rows.items():
        state = _state(row)
        merged = set(state.get("merged_from", []))
        for old in state.get("supersedes", []):
            if old in rows:
                kind = "merged_from" if old in merged else "supersedes"
                edges.append(Edge(node_id("entry", eid), node_id("entry", old), kind))
        me = node_id("entry", eid)
        if state.get("reinforcements"):
            edges.append(Edge(me, me, "reinforces", int(state["reinforcements"])))
        if state.get("contradictions"):
            edges.append(Edge(me, me, "contradicts", int(state["contradictions"])))
    return edges


def _linked(row: Row) -> list[str]:
    """Entries one provenance step from this one, either way."""
    state = _state(row)
    return list(dict.fromkeys([*state.get("supersedes", []), *state.get("superseded_by", [])]))


class _Builder:
    """Nodes and edges gathered in order, at most `limit` nodes."""

    def __init__(self, index: Index, limit: int) -> None:
        self.index = index
        self.limit = limit
        self.nodes: dict[str, Node] = {}
        self.entries: dict[str, Row] = {}  # entry id -> row, for the provenance edges
        self.rowids: dict[int, str] = {}  # entry rowid -> entry id
        self.things: dict[str, int] = {}  # node id -> its nid in the graph tables
        self.cut = 0

    def room(self) -> bool:
        return len(self.nodes) < self.limit

    def add_entry(self, row: Row) -> bool:
        if not self._add(node_id("entry", row["id"]), lambda: entry_node(row)):
            return False
        self.entries[row["id"]] = row
        self.rowids[int(row["rowid"])] = row["id"]
        return True

    def add_thing(self, nid: int, kind: str, name: str) -> bool:
        key = node_id(kind, name)
        if not self._add(key, lambda: Node(id=key, kind=kind, label=name)):
            return False
        self.things[key] = nid
        return True

    def _add(self, key: str, node: Callable[[], Node]) -> bool:
        """Whether the node is new and fits (one left out is counted in `cut`)."""
        if key in self.nodes:
            return False
        if not self.room():
            self.cut += 1
            return False
        self.nodes[key] = node()
        return True

    def graph(self, note: str | None) -> Graph:
        edges: list[Edge] = []
        for rowid, _nid, kind, name in tables.about_of(self.index, list(self.rowids)):
            target = node_id(kind, name)
            if target in self.nodes:
                edges.append(Edge(node_id("entry", self.rowids[rowid]), target, "about"))
        edges = provenance_edges(self.entries) + edges
        return _guarded(Graph(nodes=list(self.nodes.values()), edges=edges,
                              truncated=self.cut > 0 or note is not None, note=note),
                        list(self.entries.values()))


def neighbourhood(
    index: Index, *, entry_id: str | None = None, path: str | None = None,
    tag: str | None = None, depth: int = 1, limit: int = 500,
) -> Graph:
    """The nodes within `depth` steps of an entry, a path (and the paths under it, when it
    names a folder) or a tag; with no selector, the whole graph, newest entries first.
    At most `limit` nodes: `truncated` and `note` say what was left out."""
    check_bounds(depth, limit)
    if sum(x is not None for x in (entry_id, path, tag)) > 1:
        raise UsageProblem("give one of ID, --path and --tag")
    ensure(index)
    if entry_id is None and path is None and tag is None:
        return _whole(index, limit)
    build = _Builder(index, limit)
    start: list[str] = []
    if entry_id is not None:
        for row in _chain(index, resolve(index, entry_id)):  # the entry, then its provenance
            if build.add_entry(row):
                start.append(node_id("entry", row["id"]))
    else:
        kind = "path" if path is not None else "tag"
        name = clean_path(path) if path is not None else (tag or "").strip().lstrip("#").lower()
        if not name:
            raise UsageProblem(f"--{kind} needs a {kind}")
        found = tables.find_nodes(index, kind, name, prefix=kind == "path")
        if not found:
            raise NotFound(f"no entry is about {kind} {name!r}")
        for nid, found_name in found:
            build.add_thing(nid, kind, found_name)
            start.append(node_id(kind, found_name))
    _walk(build, start, depth)
    note = None
    if build.cut:
        note = (f"graph cut at {limit} nodes: {build.cut} more within depth {depth} left out;"
                " raise --limit or lower --depth")
    return build.graph(note)


def _walk(build: _Builder, start: list[str], depth: int) -> None:
    """Breadth first from `start`: an entry leads to what it is about and to its
    provenance neighbours; a path, symbol or tag leads to the entries about it."""
    index = build.index
    frontier = deque((n, 0) for n in start)
    while frontier:
        current, level = frontier.popleft()
        if level >= depth:
            continue
        kind, name = split_node_id(current)
        found: list[str] = []
        if kind == "entry":
            row = build.entries[name]
            for _rowid, nid, k, n in tables.about_of(index, [int(row["rowid"])]):
                if build.add_thing(nid, k, n):
                    found.append(node_id(k, n))
            linked = tables.entries_by_ids(index, _linked(row))
            for other in linked.values():
                if build.add_entry(other):
                    found.append(node_id("entry", other["id"]))
        else:
            room = max(build.limit - len(build.nodes), 0) + 1
            rowids = tables.entries_about(index, build.things[current], room)
            rows = tables.entries_by_rowids(index, rowids)
            for rowid in rowids:
                if rowid in rows and build.add_entry(rows[rowid]):
                    found.append(node_id("entry", rows[rowid]["id"]))
        frontier.extend((n, level + 1) for n in found)


def _whole(index: Index, limit: int) -> Graph:
    """Every shown entry and what it is about, newest entries first, until `limit` nodes."""
    build = _Builder(index, limit)
    taken = 0
    for row, things in _newest(index):
        wanted = [t for t in things if node_id(t[1], t[2]) not in build.nodes]
        if len(build.nodes) + 1 + len(wanted) > limit:
            break  # the entry and all it is about fit, or neither is shown
        build.add_entry(row)
        taken += 1
        for nid, kind, name in wanted:
            build.add_thing(nid, kind, name)
    total = tables.count_entries(index)
    note = None
    if taken < total:
        note = (f"graph cut at {limit} nodes: {taken} of {total} entries shown (newest first)"
                " with what they are about; raise --limit or pick ID, --path or --tag")
    return build.graph(note)


def _newest(index: Index) -> Iterator[tuple[Row, list[tuple[int, str, str]]]]:
    """Shown entries newest first, each with the (nid, kind, name) of what it is about."""
    offset = 0
    while rows := tables.newest_entries(index, 200, offset):
        offset += len(rows)
        things: dict[int, list[tuple[int, str, str]]] = {}
        for rowid, nid, kind, name in tables.about_of(index, [int(r["rowid"]) for r in rows]):
            things.setdefault(rowid, []).append((nid, kind, name))
        for row in rows:
            yield row, things.get(int(row["rowid"]), [])


def provenance(index: Index, *, entry_id: str) -> Graph:
    """One entry and the entries it replaces and that replaced it, transitively both ways,
    oldest first, with the edges between them and their feedback loops."""
    ensure(index)
    rows = _chain(index, resolve(index, entry_id))
    ordered = sorted(rows, key=lambda r: (r["created"], r["id"]))
    return Graph(nodes=[entry_node(r) for r in ordered],
                 edges=provenance_edges({r["id"]: r for r in ordered}), truncated=False,
                 note=None)


def _chain(index: Index, row: Row, limit: int = MAX_LIMIT) -> list[Row]:
    """The entry and every entry linked to it by supersedes or merges, either way and
    transitively (so a merge shows all it merged), nearest first."""
    rows: dict[str, Row] = {row["id"]: row}
    todo = deque([row])
    while todo and len(rows) < limit:
        ids = [i for i in _linked(todo.popleft()) if i not in rows]
        for found in tables.entries_by_ids(index, ids).values():
            rows[found["id"]] = found
            todo.append(found)
    return list(rows.values())


def _provenance_reason(state: dict[str, Any], other: str) -> str:
    """How `other` is linked to the entry whose fold state is `state`."""
    if other in state.get("merged_into", []):
        return "merged this entry in"
    if other in state.get("superseded_by", []):
        return "replaces this entry"
    if other in state.get("merged_from", []):
        return "merged into this entry"
    return "replaced by this entry"


def related(index: Index, *, entry_id: str, limit: int = 10) -> list[Near]:
    """Entries nearest to one entry, best first, with scores and reasons: shared paths,
    identifiers and tags (a rarer one counts more) and provenance neighbours."""
    if not 1 <= limit <= RELATED_MAX:
        raise UsageProblem(f"-n must be between 1 and {RELATED_MAX}, not {limit}")
    ensure(index)
    row = resolve(index, entry_id)
    me = int(row["rowid"])
    mine = tables.about_of(index, [me])
    counts = tables.degree(index, [nid for _, nid, _, _ in mine])
    scores: dict[int, float] = {}
    reasons: dict[int, list[str]] = {}
    tainted = secret_names([row])
    for _, nid, kind, name in mine:
        df = counts.get(nid, 1)
        if df <= 1 or df > COMMON_NODE or (kind, name) in tainted \
                or redact_string(name)[0] != name:
            continue
        weight = WEIGHTS[kind] / math.log2(1 + df)
        for other in tables.entries_about(index, nid, COMMON_NODE):
            if other == me:
                continue
            scores[other] = scores.get(other, 0.0) + weight
            reasons.setdefault(other, []).append(f"shares {kind} {name}")
    state = _state(row)
    for other_id, linked in tables.entries_by_ids(index, _linked(row)).items():
        rowid = int(linked["rowid"])
        scores[rowid] = scores.get(rowid, 0.0) + PROVENANCE_WEIGHT
        reasons.setdefault(rowid, []).insert(0, _provenance_reason(state, other_id))
    best = sorted(scores, key=lambda r: -scores[r])[: limit * 2]
    rows = tables.entries_by_rowids(index, best)
    ranked = sorted((r for r in best if r in rows),
                    key=lambda r: (-round(scores[r], 6), rows[r]["created"], rows[r]["id"]))
    return [Near(rows[r]["id"], round(scores[r], 3), reasons[r], rows[r]["type"],
                 rows[r]["status"], str(rows[r]["content"])) for r in ranked[:limit]]

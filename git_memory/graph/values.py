"""The graph's values: `Node`, `Edge`, `Graph` and `Near` (an entry related to another).
A node id says what it is: `entry:<entry id>`, `path:<path>`, `symbol:<identifier>`, `tag:<tag>`."""

from __future__ import annotations

from dataclasses import dataclass

NODE_KINDS = ("entry", "path", "symbol", "tag")
# supersedes/merged_from: newer entry -> the older one it replaces. reinforces/contradicts:
# a curation record names only the entry it confirms or disputes, never a second entry,
# so these edges are loops on that entry carrying how many records said so.
# about: entry -> path/symbol/tag node.
EDGE_KINDS = ("supersedes", "merged_from", "contradicts", "reinforces", "about")


@dataclass(frozen=True)
class Node:
    id: str
    kind: str
    label: str
    entry_type: str | None = None
    status: str | None = None
    confidence: float | None = None
    created: str | None = None


@dataclass(frozen=True)
class Edge:
    source: str
    target: str
    kind: str
    count: int = 1


@dataclass(frozen=True)
class Graph:
    nodes: list[Node]
    edges: list[Edge]
    truncated: bool = False
    note: str | None = None


@dataclass(frozen=True)
class Near:
    """An entry near another in the graph (`related`), best first."""

    id: str
    score: float
    reasons: list[str]
    type: str
    status: str
    content: str


def node_id(kind: str, name: str) -> str:
    return f"{kind}:{name}"


def split_node_id(value: str) -> tuple[str, str]:
    """("entry", "01J...") from "entry:01J..."; the name may itself hold colons."""
    kind, _, name = value.partition(":")
    return kind, name

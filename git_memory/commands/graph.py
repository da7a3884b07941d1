"""`git memory graph [ID|--path P|--tag T]`: a neighbourhood of the knowledge graph, or the
whole graph (bounded), as JSON (the default), Graphviz DOT or Mermaid; what a bound cut
is said on stderr. With an ID and `--provenance`, only its supersede and merge chain.
"""

from __future__ import annotations

from git_memory import ui
from git_memory.errors import UsageProblem
from git_memory.graph import render
from git_memory.graph.query import neighbourhood, provenance
from git_memory.index.db import open_index
from git_memory.store.locate import discover

FORMATS = ("json", "dot", "mermaid")


def run(
    ref: str | None, *, path: str | None, tag: str | None, depth: int, limit: int, fmt: str,
    chain: bool = False,
) -> int:
    if fmt not in FORMATS:
        raise UsageProblem(f"unknown format {fmt!r}; expected one of: {', '.join(FORMATS)}")
    if chain and ref is None:
        raise UsageProblem("--provenance needs an entry ID")
    index = open_index(discover())
    try:
        if chain and ref is not None:
            graph = provenance(index, entry_id=ref)
        else:
            graph = neighbourhood(index, entry_id=ref, path=path, tag=tag, depth=depth,
                                  limit=limit)
    finally:
        index.close()
    if fmt == "json":
        ui.out_json(render.to_json(graph))
    elif fmt == "dot":
        ui.out(render.to_dot(graph).rstrip("\n"))
    else:
        ui.out(render.to_mermaid(graph).rstrip("\n"))
    if graph.note:
        ui.warn(f"note: {graph.note}")
    return 0

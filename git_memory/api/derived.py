"""The views `Memory` derives on demand (the knowledge graph, an agent's session-start
context), in one namespace that `Memory` imports on first use: with their modules at the top of
`api/memory.py`, `git memory add` took 1.25x its CPU time."""

from __future__ import annotations

from git_memory.agents import context
from git_memory.graph import query


class Derived:
    graph = staticmethod(query.neighbourhood)
    related = staticmethod(query.related)
    provenance = staticmethod(query.provenance)
    context = staticmethod(context.build)

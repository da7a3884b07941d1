"""The knowledge graph: entries and what they are about (paths, symbols, tags), linked by
provenance (supersedes, merged_from) and feedback (reinforces, contradicts). Derived like
the index, on demand, into tables of the index file (`index.graph`). See docs/graph.md."""

"""The knowledge graph: entries and what they are about (paths, symbols, tags), linked by
provenance and feedback; derived on demand into tables of the index file. See docs/graph.md."""

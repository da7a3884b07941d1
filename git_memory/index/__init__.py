"""Index layer: the derived SQLite (FTS5) index of the memory branch, and the only SQL.

Read side in `rank/` (recall's ranking), build side in `build/` (rows in and out), the shared
files, locks and schema here; modules and what they may import: docs/architecture.md.
"""

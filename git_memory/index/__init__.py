"""The derived SQLite (FTS5) index of the memory branch, and the only SQL: files, locks and
schema here, ranking in `rank/`, building in `build/`."""

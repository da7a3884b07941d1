"""Index layer: a derived SQLite (FTS5) database of the memory branch.

`db` opens it and keeps it current (stamp, incremental tree diff, full rebuild);
`text` turns record text into search text; `search` ranks. The index may always be
deleted: it is rebuilt from the branch. Never prints; may import `store`, `fold`,
`model`, `errors`. pygit2 is imported only when the index is behind the branch.
"""

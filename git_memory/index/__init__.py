"""Index layer: a derived SQLite (FTS5) database of the memory branch, and the only SQL.

`schema` holds the tables; `db` opens the index and keeps it current (stamp,
incremental tree diff, full rebuild: `build`) with `write` and `store.loose`; `entries`, `flags`
and `stats` answer every question the rest of the code asks; `search` and
`rerank` rank (over `hits`), `text` turns text into search text, `semantic` adds
semantic ranking (with the extra); `sessions` is the session archive's own FTS file. The index may
always be deleted: it is rebuilt from the branch. Never prints; may import `store`,
`fold`, `model`, `errors`. pygit2 is imported only when the index is behind the branch.
Nothing outside this package runs SQL (tests/test_index_boundary.py).
"""

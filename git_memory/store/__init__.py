"""Storage layer: the memory branch, its record files, finding the repository, and git itself.

Modules: `locate` (pure-Python discovery of git dirs and ref tips, for the hot path),
`record_format` (record file <-> Record), `branch` (the one git writer, for every ref we
write, and the pygit2 reads of those refs), `commits` (pygit2 reads of the code history
for the hooks), `packwrite` (bulk blobs as one pack), `loose` (the one reader of git
objects without pygit2), `gitrun` (the one runner of `git`
processes). pygit2 is imported here and nowhere else. Never prints, never exits; may
import `model` and `errors`.
"""

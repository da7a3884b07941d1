"""Storage layer: the memory branch, its record files, and finding the repository.

Modules: `locate` (pure-Python discovery of git dirs and ref tips, for the hot path),
`record_format` (record file <-> Record), `branch` (pygit2 reads and compare-and-swap
writes). Never prints, never exits; may import `model` and `errors`.
"""

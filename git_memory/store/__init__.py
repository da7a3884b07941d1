"""Storage layer: the memory branch, its record files, finding the repository, and git itself.

pygit2 is imported here and nowhere else; modules and what they may import:
docs/architecture.md.
"""

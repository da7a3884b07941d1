"""git-memory: typed knowledge entries kept on a dedicated git branch.

This package root holds only the version; import nothing heavy here, because
`recall` and the hook shims rely on a fast start.
"""

__version__ = "0.1.0"

"""git-memory: typed knowledge entries kept on a dedicated git branch.

`from git_memory import Memory` is the library (docs/api.md). This root is imported by
`recall` and the hook shims, which rely on a fast start: `Memory` is imported only when
asked for (PEP 562), never by `import git_memory`.
"""

TYPE_CHECKING = False
if TYPE_CHECKING:
    from git_memory.api.memory import Memory

__version__ = "0.1.0"
__all__ = ["Memory", "__version__"]


def __getattr__(name: str) -> object:
    if name == "Memory":
        from git_memory.api.memory import Memory  # lazy: hot path; the whole library

        return Memory
    raise AttributeError(f"module 'git_memory' has no attribute {name!r}")

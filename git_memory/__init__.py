"""git-memory: typed knowledge entries kept on a dedicated git branch.

`Memory` (docs/api.md) is imported when first asked for (PEP 562): recall and the hook
shims import this root and rely on a fast start."""

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

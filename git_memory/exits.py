"""Error → exit code, shared by the click CLI and the click-free recall path.

Exit codes: 0 success, 1 an error the user can fix (`error: ...` on stderr,
nothing written), 2 usage error, 130 interrupted, 3 an unexpected failure (with
a log file to attach to a report). Imports nothing heavy: recall starts here.
"""

from __future__ import annotations

import sys

from git_memory import __version__
from git_memory.errors import GitMemoryError

# `typing` costs recall ~2 ms to import and is only needed by the type checker here.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, Callable


def crash_log(exc: BaseException) -> str:
    import os  # only on a crash: recall starts through this module and counts milliseconds
    import tempfile
    import traceback

    fd, path = tempfile.mkstemp(prefix="git-memory-crash-", suffix=".log")
    with os.fdopen(fd, "w") as handle:
        handle.write(f"git-memory {__version__}\nargv: {sys.argv!r}\n\n")
        handle.write("".join(traceback.format_exception(exc)))
    return path


def guarded(func: Callable[..., Any], *params: Any) -> Any:
    """Run a command; map our errors, interrupts and our own bugs to exit codes."""
    try:
        return func(*params)
    except GitMemoryError as exc:
        sys.stderr.write(f"error: {exc}\n")
        return exc.exit_code
    except KeyboardInterrupt:
        sys.stderr.write("interrupted\n")
        return 130
    except BrokenPipeError:
        return 0
    except SystemExit as exc:
        return exc.code
    except Exception as exc:  # the last resort: a bug of ours, not the user's
        path = crash_log(exc)
        sys.stderr.write(f"error: unexpected failure ({exc.__class__.__name__}); details in {path}\n")
        return 3

"""Error → exit code: 0 success, 1 an error the user can fix (`error: ...`, nothing
written), 2 usage error, 130 interrupted, 3 an unexpected failure (with a crash log)."""

from __future__ import annotations

import os
import sys
from collections.abc import Callable

from git_memory import __version__, ui
from git_memory.errors import GitMemoryError
from git_memory.index import db

# `typing` is off the hot path (docs/architecture.md): for the type checker only.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any


def crash_log(exc: BaseException) -> str:
    import tempfile  # lazy: hot path; a crash only
    import traceback  # lazy: hot path; a crash only

    fd, path = tempfile.mkstemp(prefix="git-memory-crash-", suffix=".log")
    text = (f"git-memory {__version__}\nargv: {sys.argv!r}\n\n"
            + "".join(traceback.format_exception(exc)))
    with os.fdopen(fd, "w") as handle:
        handle.write(_masked(text))  # argv and the traceback may quote a secret
    return path


def _masked(text: str) -> str:
    """`text` through the scan's mask: what a failure writes may end up in a log (a
    detached worker's stderr is its log file, a crash log is attached to a report)."""
    try:
        from git_memory.sanitize.scan import mask  # lazy: hot path; brings the model

        return mask(text)
    except Exception:  # noqa: BLE001 - reporting the failure comes first
        return "(a message that could not be checked for secrets)"


def _damaged_index(exc: BaseException) -> bool:
    """A sqlite3.DatabaseError (corrupt pages, a file that is not a database), told
    without importing sqlite3 here: a command that failed on it has loaded it already."""
    sqlite3 = sys.modules.get("sqlite3")
    return sqlite3 is not None and isinstance(exc, sqlite3.DatabaseError)


def _rebuild_index(exc: BaseException) -> bool:
    """Rebuild the derived index after a read hit damage; False when that fails too."""
    try:
        db.rebuild_damaged()
    except Exception:  # noqa: BLE001 - the original failure is the one to report
        return False
    sys.stderr.write(f"note: the local index was damaged ({exc}); rebuilt it from the branch\n")
    return True


def guarded(func: Callable[..., Any], *params: Any, retry: bool = True) -> Any:
    """Run a command; map our errors, interrupts and our own bugs to exit codes. The index
    is derived, so damage found while reading it is repaired (one rebuild, one line on
    stderr) and the command runs again once, not reported as a crash."""
    if sys.stderr.isatty():
        db.default_progress = ui.progress("indexing")
    try:
        return func(*params)
    except Exception as exc:
        if retry and _damaged_index(exc) and _rebuild_index(exc):
            return guarded(func, *params, retry=False)
        return _failed(exc)
    except BaseException as exc:
        return _failed(exc)


def _failed(exc: BaseException) -> Any:
    try:
        raise exc
    except GitMemoryError as exc:
        sys.stderr.write(f"error: {_masked(str(exc))}\n")
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
        sys.stderr.write(f"error: unexpected failure ({exc.__class__.__name__}); details in"
                         f" {path}\n")
        return 3

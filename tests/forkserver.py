"""A warm `git-memory` interpreter for the test suite: imports once, forks one child per call.

The suite starts thousands of `git memory` processes, and most of each one's CPU is the
interpreter starting and importing pygit2, click and the command modules. This server (run
as a script by tests/conftest.py, one per pytest worker, with the console script's own
interpreter) imports them once; for each call it forks a child that takes the caller's
stdin/stdout/stderr (passed over a Unix socket with SCM_RIGHTS), working directory,
environment (replacing os.environ wholesale) and argv, then runs `git_memory.entry.main`
exactly as the `git-memory` console script does and exits the way any interpreter exits
(atexit, thread joins, flush of stdio, the exit code of SystemExit). Each call is therefore
its own process running real git in a real repository; only the start-up is shared. The
parent never runs a command, so nothing the CLI caches at module level leaks between calls;
the one cache it fills beforehand is what every new index reads from the semantic model's
files, which the run never changes (`warm`).
The server replies with the child's exit code (negative for a signal, as subprocess does)
and exits when its stdin (a pipe from the pytest worker) closes.

Protocol per connection: 4-byte big-endian length, that many bytes of JSON
({"args", "cwd", "env", "script"}, and optionally "preload": see `more`), then one byte
carrying three fds (stdin, stdout, stderr); the reply is a 4-byte big-endian signed exit
code. Imports only the standard library and, to preload them, git_memory's modules (and
the modules a call names in "preload").
"""

from __future__ import annotations

import atexit
import gc
import importlib
import json
import os
import pkgutil
import select
import signal
import socket
import struct
import sys
import time
from typing import Any


def preload() -> None:
    """Import what a `git memory` command imports: the entry point, the click layer and every
    module of the package but `__main__` (a module that needs an absent optional package is skipped)."""
    import git_memory

    for info in pkgutil.walk_packages(git_memory.__path__, "git_memory."):
        if info.name.endswith(".__main__"):  # runs the CLI when imported
            continue
        try:
            importlib.import_module(info.name)
        except Exception:  # an optional dependency missing: the child imports it as it would
            continue


def warm() -> None:
    """Fill the per-process caches a command fills from files the run never changes: the
    semantic model's tokenizer table and hash (git_memory.index.rank.semantic), which every new
    index needs (about 0.2 s of CPU each time). A forked child finds them read, as the
    second index a long-lived process makes does; the caches are keyed by the files' size
    and modification time, so a changed model is read again. A fresh process still reads
    them itself (the `fresh_process` tests, the hooks)."""
    from git_memory.index.rank import semantic

    folder = semantic.model_dir()
    if folder:
        semantic.vocab_rows(folder)
        semantic.files_hash(folder)


def more(names: list[str]) -> None:
    """Import, here in the server, modules a call asks to find imported (`preload` in its
    request: `git memory mcp` imports the MCP SDK, about 0.9 s of CPU, in every server a
    test starts): the first such call pays for the import, and every later child of
    this server inherits it. Frozen like the first preload (see main)."""
    new = [name for name in names if name not in sys.modules]
    for name in new:
        try:
            importlib.import_module(name)
        except Exception:  # not installed: the child imports it, or fails, as it would
            continue
    if new:
        gc.freeze()


def _read_exact(conn: socket.socket, size: int) -> bytes:
    data = b""
    while len(data) < size:
        chunk = conn.recv(size - len(data))
        if not chunk:
            raise EOFError("the caller went away")
        data += chunk
    return data


def _receive(conn: socket.socket) -> tuple[dict[str, Any], list[int]]:
    (size,) = struct.unpack("!I", _read_exact(conn, 4))
    request = json.loads(_read_exact(conn, size))
    _, fds, _, _ = socket.recv_fds(conn, 1, 3)
    if len(fds) != 3:
        for fd in fds:
            os.close(fd)
        raise EOFError("three descriptors expected")
    return request, list(fds)


def serve(path: str) -> dict[str, Any]:
    """Accept calls until stdin closes; returns only in a forked child, with its request."""
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    listener.bind(path)
    listener.listen(64)
    wake_r, wake_w = os.pipe()
    os.set_blocking(wake_w, False)
    os.set_blocking(wake_r, False)
    # SIGCHLD wakes select through the wakeup fd; the handler itself has nothing to do.
    signal.set_wakeup_fd(wake_w)
    signal.signal(signal.SIGCHLD, lambda signum, frame: None)
    children: dict[int, socket.socket] = {}
    os.write(1, b"ready\n")
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, 1)
    os.close(devnull)
    while True:
        ready, _, _ = select.select([listener, wake_r, 0], [], [])
        if wake_r in ready:
            try:
                while os.read(wake_r, 512):
                    pass
            except BlockingIOError:
                pass
            _reap(children)
        if 0 in ready and not os.read(0, 512):
            sys.exit(0)  # the pytest worker ended; running children finish on their own
        if listener not in ready:
            continue
        conn, _ = listener.accept()
        try:
            request, fds = _receive(conn)
        except (EOFError, OSError, ValueError):
            conn.close()
            continue
        more(request.get("preload") or [])
        pid = os.fork()
        if pid == 0:
            signal.set_wakeup_fd(-1)
            signal.signal(signal.SIGCHLD, signal.SIG_DFL)
            for other in [listener, conn, *children.values()]:
                other.close()
            os.close(wake_r)
            os.close(wake_w)
            for number, fd in enumerate(fds):
                os.dup2(fd, number)
            for fd in fds:
                os.close(fd)
            return request
        for fd in fds:
            os.close(fd)
        children[pid] = conn
        _reap(children)


def _reap(children: dict[int, socket.socket]) -> None:
    while children:
        try:
            pid, status = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return
        if pid == 0:
            return
        conn = children.pop(pid, None)
        if conn is None:
            continue
        try:
            conn.sendall(struct.pack("!i", os.waitstatus_to_exitcode(status)))
        except OSError:
            pass  # the caller went away
        conn.close()


def become(request: dict[str, Any]) -> None:
    """Turn this forked child into the process the console script would have been."""
    os.chdir(request["cwd"])
    os.environ.clear()
    os.environ.update(request["env"])
    time.tzset()
    sys.argv = [request["script"], *request["args"]]
    if "pygit2" in sys.modules:
        # libgit2 worked out its config search paths from HOME and XDG_CONFIG_HOME when the
        # server imported it; None makes it work them out again from this call's environment.
        import pygit2
        from pygit2.enums import ConfigLevel

        for level in (ConfigLevel.SYSTEM, ConfigLevel.XDG, ConfigLevel.GLOBAL, ConfigLevel.PROGRAMDATA):
            pygit2.settings.search_path[level] = None


def run_and_exit() -> None:
    """Run the console script's `sys.exit(main())` and end as an interpreter ends, without
    tearing down the objects inherited from the server: the shutdown steps a program can
    observe (the SystemExit code or an uncaught exception's traceback, joining non-daemon
    threads, atexit handlers, the flush of stdout whose failure makes the exit code 120) run
    in Python's order, then os._exit. Freeing every preloaded module, as a normal exit does,
    would cost each call more CPU than its imports saved (copy-on-write of the whole heap)."""
    import threading

    from git_memory.entry import main as entry_main

    interrupted = False
    try:
        sys.exit(entry_main())
    except SystemExit as stop:
        code = _exit_code(stop.code)
    except KeyboardInterrupt:
        sys.excepthook(*sys.exc_info())
        code, interrupted = 1, True
    except BaseException:
        sys.excepthook(*sys.exc_info())
        code = 1
    threading._shutdown()  # type: ignore[attr-defined]
    atexit._run_exitfuncs()
    try:
        sys.stdout.flush()
    except Exception as exc:
        sys.unraisablehook(_Unraisable(exc, sys.stdout))  # type: ignore[arg-type]
        code = 120
    try:
        sys.stderr.flush()
    except Exception:
        pass
    if interrupted:  # Python ends an interrupted program by the signal itself
        signal.signal(signal.SIGINT, signal.SIG_DFL)
        os.kill(os.getpid(), signal.SIGINT)
    os._exit(code & 0xFF)


def _exit_code(value: object) -> int:
    if value is None:
        return 0
    if isinstance(value, int):
        return value
    try:
        sys.stderr.write(f"{value}\n")
    except Exception:
        pass
    return 1


class _Unraisable:
    """What sys.unraisablehook reads, for a failed flush of stdout at exit."""

    def __init__(self, exc: BaseException, obj: object) -> None:
        self.exc_type = type(exc)
        self.exc_value = exc
        self.exc_traceback = exc.__traceback__
        self.err_msg = None
        self.object = obj


def main() -> None:
    # The console script runs with its own folder (the venv's bin) first on sys.path.
    sys.path[0] = os.path.dirname(os.path.abspath(sys.argv[2]))
    preload()
    warm()
    # The preloaded objects never change: kept out of the collector's scans, the pages
    # holding them stay shared with the children instead of being copied into each one.
    gc.freeze()
    request = serve(sys.argv[1])
    become(request)
    run_and_exit()


if __name__ == "__main__":
    main()

"""The caller's side of tests/forkserver.py: `run(args, cwd, input, env)` as `git memory`.

One server per pytest worker, started on the first call with the interpreter the
`git-memory` console script names in its first line (so sys.executable is what a real
`git memory` sees) and the worker's environment; it lives until the worker exits.

`run` returns the subprocess.CompletedProcess that `subprocess.run(["git", "memory", ...],
capture_output=True)` would, or None when a forked child could differ from a fresh one and
the caller must start the process itself:
- an environment that changes how an interpreter starts (PYTHON*, locale, TZ, LD_*) from
  the server's, since those were read once when the server started;
- `git memory --help` (git turns it into `git help memory`), git tracing, a GIT_EXEC_PATH
  of the caller's own, a PATH where `git` or `git-memory` is not the one the server stands for;
- a working directory that does not exist (subprocess raises; the caller's path does too).
What `git` itself adds for a dashed external is added here: GIT_EXEC_PATH and the exec
path first on PATH; and a child killed by a signal gives git's exit code (128 + signal) and
message. Imports only the standard library.
"""

from __future__ import annotations

import atexit
import os
import shutil
import signal
import socket
import struct
import subprocess
import sys
import tempfile
import threading
from pathlib import Path

HERE = Path(__file__).resolve().parent
BIN = os.path.dirname(sys.executable)
SCRIPT = os.path.join(BIN, "git-memory")
# Read once when an interpreter starts (locale, encodings, hash seed, bytecode, time zone).
STARTUP_PREFIXES = ("PYTHON", "LC_", "LD_")
STARTUP_NAMES = frozenset({"LANG", "LANGUAGE", "TZ"})


class _Server:
    def __init__(self, env: dict[str, str]) -> None:
        self.env = dict(env)
        self.git = shutil.which("git", path=env.get("PATH"))
        self.exec_path = subprocess.run(
            [self.git or "git", "--exec-path"], capture_output=True, text=True, env=env, check=True
        ).stdout.strip()
        self.folder = tempfile.mkdtemp(prefix="gmfork-")
        atexit.register(shutil.rmtree, self.folder, True)
        self.path = os.path.join(self.folder, "socket")
        with open(SCRIPT, encoding="utf-8") as script:
            interpreter = script.readline()[2:].strip()
        self.process = subprocess.Popen(
            [interpreter, str(HERE / "forkserver.py"), self.path, SCRIPT],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, env=env, cwd=self.folder,
        )
        assert self.process.stdout is not None
        if self.process.stdout.readline() != b"ready\n":
            raise RuntimeError("the git-memory fork server did not start")
        self.process.stdout.close()

    def startup(self, env: dict[str, str]) -> dict[str, str]:
        return {k: v for k, v in env.items() if k.startswith(STARTUP_PREFIXES) or k in STARTUP_NAMES}

    def child_env(self, env: dict[str, str]) -> dict[str, str] | None:
        """The environment git would give `git-memory`, or None when the fork would differ."""
        if self.startup(env) != self.startup(self.env) or "GIT_EXEC_PATH" in env:
            return None
        if any(k.startswith("GIT_TRACE") for k in env) or "PATH" not in env:
            return None
        if shutil.which("git", path=env["PATH"]) != self.git:
            return None
        path = self.exec_path + os.pathsep + env["PATH"]
        if shutil.which("git-memory", path=path) != SCRIPT:
            return None
        return {**env, "GIT_EXEC_PATH": self.exec_path, "PATH": path}


_server: _Server | None = None
_lock = threading.Lock()


def _get_server() -> _Server:
    """The worker's server, started with the worker's own environment (the test's isolated
    one), not a call's: a call that changes how an interpreter starts must not become the
    standard the later calls are compared with."""
    global _server
    with _lock:
        if _server is None or _server.process.poll() is not None:
            _server = _Server(dict(os.environ))
        return _server


def stop() -> None:
    """End the server and wait for it, so its children's CPU counts towards ours (time -v)."""
    global _server
    with _lock:
        if _server is not None:
            assert _server.process.stdin is not None
            _server.process.stdin.close()
            _server.process.wait()
            _server = None


def run(
    args: list[str], cwd: str, input: bytes | None, env: dict[str, str]
) -> subprocess.CompletedProcess | None:
    if args[:1] == ["--help"] or not os.path.isdir(cwd):
        return None
    if input is None:
        try:
            os.fstat(0)  # the child inherits our stdin, as subprocess.run's would
        except OSError:
            return None
    server = _get_server()
    child_env = server.child_env(env)
    if child_env is None:
        return None
    import json

    payload = json.dumps(
        {"args": args, "cwd": cwd, "env": child_env, "script": SCRIPT}
    ).encode("utf-8")
    out_r, out_w = os.pipe()
    err_r, err_w = os.pipe()
    in_r, in_w = os.pipe() if input is not None else (0, -1)
    conn = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        conn.connect(server.path)
        conn.sendall(struct.pack("!I", len(payload)) + payload)
        socket.send_fds(conn, [b"F"], [in_r, out_w, err_w])
    finally:
        for fd in (out_w, err_w) + ((in_r,) if input is not None else ()):
            os.close(fd)
    chunks: dict[int, list[bytes]] = {out_r: [], err_r: []}
    readers = [threading.Thread(target=_drain, args=(fd, chunks[fd])) for fd in (out_r, err_r)]
    if input is not None:
        readers.append(threading.Thread(target=_feed, args=(in_w, input)))
    for thread in readers:
        thread.start()
    for thread in readers:
        thread.join()
    reply = b""
    while len(reply) < 4:
        part = conn.recv(4 - len(reply))
        if not part:
            raise RuntimeError("the git-memory fork server gave no exit code")
        reply += part
    conn.close()
    (code,) = struct.unpack("!i", reply)
    stderr = b"".join(chunks[err_r])
    if code < 0:  # git reports a dashed external's death by signal this way
        if -code not in (signal.SIGINT, signal.SIGQUIT, signal.SIGPIPE):
            stderr += f"error: git-memory died of signal {-code}\n".encode()
        code = 128 - code
    return subprocess.CompletedProcess(
        ["git", "memory", *args], code, b"".join(chunks[out_r]), stderr
    )


def launch_command(args: list[str], env: dict[str, str], preload: list[str]) -> list[str] | None:
    """The command line for a `git-memory ARGS` process that another program starts with
    environment `env` (the MCP SDK's client starts `git memory mcp`): tests/gmlaunch.py,
    which has the fork server fork the process from the warm interpreter after importing
    `preload` there (forkserver.more), or None when a fork would differ from a fresh
    process (see `_Server.child_env`): then the caller starts it afresh (as it does when
    GM_TEST_FORK=0)."""
    server = _get_server()
    if server.startup(env) != server.startup(server.env):
        return None
    import json

    spec = json.dumps({"args": args, "script": SCRIPT, "preload": preload})
    return [sys.executable, "-I", "-S", str(HERE / "gmlaunch.py"), server.path, spec]


def call(args: list[str], cwd: str | os.PathLike[str]) -> subprocess.CompletedProcess:
    """`git memory ARGS` in `cwd` with this process's environment, for helpers that read
    the memory without being about the process (the `gm` fixture's way without the
    fixture): forked from the warm interpreter, or started afresh when `run` declines or
    GM_TEST_FORK=0."""
    where = str(cwd)
    if os.environ.get("GM_TEST_FORK", "1") != "0":
        done = run(list(args), where, None, dict(os.environ))
        if done is not None:
            return done
    return subprocess.run(["git", "memory", *args], cwd=where, capture_output=True)


def run_through_git(
    pre: list[str], args: list[str], cwd: str, input: bytes | None, env: dict[str, str]
) -> subprocess.CompletedProcess | None:
    """`git PRE... memory ARGS` (PRE: git's own options, such as `-c name=value`) as `run`
    does `git memory ARGS`, or None when the caller must start it afresh. The environment
    git gives its dashed external for these options (GIT_CONFIG_PARAMETERS for `-c`, and
    whatever else git sets) is not worked out here: git itself runs a probe (`_probe`: a
    shell script printing its environment) with the same options, folder and environment,
    and the GIT_* variables it adds, changes or drops are applied to this call's."""
    if not os.path.isdir(cwd):
        return None  # subprocess raises for it: so does the caller's own start
    probe = _probe()
    seen_by = {**env, "PATH": os.path.dirname(probe) + os.pathsep + env.get("PATH", "")}
    found = subprocess.run(["git", *pre, os.path.basename(probe)[len("git-"):]], cwd=cwd,
                           env=seen_by, capture_output=True)
    if found.returncode != 0:
        return None  # options git refuses: the fresh process shows what git says
    seen = dict(item.split(b"=", 1) for item in found.stdout.split(b"\0") if b"=" in item)
    server = _get_server()
    if os.fsdecode(seen.pop(b"GIT_EXEC_PATH", b"")) != server.exec_path:
        return None  # another git: `run` stands for the one on the worker's PATH
    # The shell the probe runs in may set PWD and the like: only git's own variables
    # are taken from what it printed (PATH and GIT_EXEC_PATH are `run`'s to add).
    through = {k: v for k, v in env.items() if not k.startswith("GIT_")}
    through.update({os.fsdecode(k): os.fsdecode(v) for k, v in seen.items() if k.startswith(b"GIT_")})
    done = run(args, cwd, input, through)
    if done is not None:
        done.args = ["git", *pre, "memory", *args]
    return done


_probe_path: list[str] = []


def _probe() -> str:
    """A dashed external (`git-gmfork-env`) that prints the environment git gave it."""
    with _lock:
        if not _probe_path:
            folder = tempfile.mkdtemp(prefix="gmfork-probe-")
            atexit.register(shutil.rmtree, folder, True)
            path = os.path.join(folder, "git-gmfork-env")
            with open(path, "w", encoding="utf-8") as script:
                script.write("#!/bin/sh\nexec env -0\n")
            os.chmod(path, 0o755)
            _probe_path.append(path)
        return _probe_path[0]


def _drain(fd: int, into: list[bytes]) -> None:
    with open(fd, "rb", buffering=0, closefd=True) as pipe:
        while chunk := pipe.read(65536):
            into.append(chunk)


def _feed(fd: int, data: bytes) -> None:
    try:
        with open(fd, "wb", buffering=0, closefd=True) as pipe:
            view = memoryview(data)
            while view:
                view = view[pipe.write(view):]
    except BrokenPipeError:
        pass  # the command did not read all its input, as subprocess allows

"""Talking to the warm embedding process (embed.daemon) of this repository, without numpy.

A fresh `git memory recall` would spend over a second importing numpy and reading the
model's weights for one query vector (docs/benchmarks.md); when the daemon answers, the
recall loads neither: the daemon sends the query's vector and its nearest content hashes,
and the few keyword candidates' cosines are computed here in plain Python from their stored
float16 vectors. Every failure (no daemon, a stale socket, another model, a slow answer)
means "ask nobody": the caller loads the model itself. Nothing here raises.
"""

from __future__ import annotations

import json
import os
import socket
import sys
from pathlib import Path
from typing import Any

from git_memory.embed import registry
from git_memory.index import vectors
from git_memory.index.files import Index
from git_memory.store.leftovers import locked
from git_memory.store.locate import GitDirs

PROTOCOL = 1
SOCKET_NAME = "embed.sock"
LOCK_NAME = "embed-daemon.lock"  # held by the daemon for its whole life
LOG_NAME = "embed-daemon.log"
CONNECT_TIMEOUT = 0.1  # a unix socket connects at once or never
# A warm daemon answers in tens of milliseconds; one that takes longer is stuck or starved,
# and the recall is better off loading the model itself.
ANSWER_TIMEOUT = 2.0
MAX_ANSWER = 16 << 20
_SUN_PATH_MAX = 100  # sockaddr_un holds 104-108 bytes, the terminating NUL included


def socket_path(dirs: GitDirs) -> Path:
    """`<memory dir>/embed.sock`; when that path is too long for a unix socket, a name
    derived from it in a private (0700) folder of this user's runtime or temporary dir."""
    path = dirs.memory_dir / SOCKET_NAME
    if len(os.fsencode(path)) <= _SUN_PATH_MAX:
        return path
    import hashlib  # lazy: a recall asking the daemon pays no import it does not use
    import tempfile  # lazy: as hashlib (12 ms under load)

    base = os.environ.get("XDG_RUNTIME_DIR") or tempfile.gettempdir()
    digest = hashlib.sha256(os.fsencode(dirs.memory_dir.resolve())).hexdigest()[:24]
    return Path(base, f"git-memory-{os.getuid()}", f"{digest}.sock")


def private_dir_ok(folder: Path) -> bool:
    """The fallback folder is ours and nobody else's (else a socket there could be anyone's)."""
    try:
        info = folder.stat()
    except OSError:
        return False
    return info.st_uid == os.getuid() and info.st_mode & 0o077 == 0


def ask(dirs: GitDirs, request: dict[str, Any], timeout: float = ANSWER_TIMEOUT
        ) -> dict[str, Any] | None:
    """The daemon's answer to one request, or None (no daemon, or any failure)."""
    path = socket_path(dirs)
    if not path.exists() or (path.parent != dirs.memory_dir and not private_dir_ok(path.parent)):
        return None
    try:
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as conn:
            conn.settimeout(CONNECT_TIMEOUT)
            conn.connect(str(path))
            conn.settimeout(timeout)
            conn.sendall(json.dumps({"v": PROTOCOL, **request}).encode() + b"\n")
            answer = _read_line(conn)
        data = json.loads(answer)
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) and "error" not in data else None


def _read_line(conn: socket.socket) -> bytes:
    parts, size = [], 0
    while True:
        part = conn.recv(1 << 16)
        if not part:
            break
        parts.append(part)
        size += len(part)
        if part.endswith(b"\n") or size > MAX_ANSWER:
            break
    return b"".join(parts)


def nearest(index: Index, folder: Path, query: str, k: int, types: list[str] | None,
            tags: list[str] | None, include_all: bool, since: str | None,
            ) -> tuple[str, vectors.Near] | None:
    """(model id, the nearest entries) as the daemon found them, or None."""
    answer = ask(index.dirs, {"folder": str(folder), "query": query, "k": k})
    if answer is None:
        return None
    try:
        model, vector = str(answer["model"]), [float(x) for x in answer["vector"]]
        by_hash = {str(h): float(c) for h, c in answer["near"]}
        stored = int(answer["stored"])
    except (TypeError, KeyError, ValueError):
        return None
    return model, vectors.near(index, model, vector, by_hash, stored, k, types, tags,
                               include_all, since)


def running(dirs: GitDirs) -> bool:
    """Is a daemon alive (loading its model, or serving)? It holds its lock file."""
    return locked(dirs.memory_dir / LOCK_NAME)


def start(dirs: GitDirs) -> int | None:
    """Start the daemon detached (its own session, no terminal, output to its log) unless
    one is alive; its pid, or None. Never waited for: the recall that starts it has already
    loaded the model itself, the daemon serves the next ones."""
    import subprocess  # lazy: only a recall that loaded the model starts the daemon

    if running(dirs):
        return None
    dirs.memory_dir.mkdir(parents=True, exist_ok=True)
    env = {k: v for k, v in os.environ.items() if k not in ("GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE")}
    # One BLAS thread unless the user says otherwise: a query is a few tokens, and on a
    # busy machine a second thread made a warm query 3x slower (docs/benchmarks.md).
    for name in registry.BLAS_THREADS:
        env.setdefault(name, "1")
    with open(dirs.memory_dir / LOG_NAME, "ab") as log:
        proc = subprocess.Popen(
            [sys.executable, "-m", "git_memory.embed.daemon", str(dirs.git_dir)],
            cwd=str(dirs.work_tree or dirs.git_dir), env=env, stdin=subprocess.DEVNULL,
            stdout=log, stderr=log, start_new_session=True, close_fds=True)
    return proc.pid

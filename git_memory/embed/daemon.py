"""The warm embedding process of one repository: the model and the vector matrix kept loaded.

Modelled on git's fsmonitor daemon: started on demand (detached, by a recall that had to load
the model itself: embed.client.start), owned by the repository (its socket and lock live in
the memory folder, or in a private folder named after it when that path is too long for a
unix socket), gone after `memory.embed.idleTimeout` seconds without a request (default 600),
when its socket or memory folder disappears, or when the configured model is no longer the
one it holds. One daemon per repository: it holds `embed-daemon.lock` while it lives.

Requests and answers are one JSON line each, one request per connection:
    {"v": 1, "folder": F, "query": TEXT, "k": K}  -> {"model", "vector", "near": [[hash, cosine]], "stored"}
    {"v": 1, "folder": F, "texts": [TEXT, ...]}    -> {"model", "vectors"}
    {"v": 1, "ping": true}                         -> {"model", "folder", "pid"}
    {"v": 1, "stop": true}                         -> {"stopped": true}, and it exits
Anything else, or another model folder than F: {"error": ...}. The socket is mode 0600 and
the daemon answers only its own user (SO_PEERCRED where the system has it).

Run as `python -m git_memory.embed.daemon GIT_DIR`.
"""

from __future__ import annotations

import fcntl
import json
import os
import socket
import struct
import sys
import time
from pathlib import Path
from typing import Any

from git_memory.embed import client, registry
from git_memory.embed.base import Embedder, EmbedderUnavailable
from git_memory.errors import GitMemoryError
from git_memory.index import vectors
from git_memory.store import config
from git_memory.store.locate import GitDirs, discover

IDLE_DEFAULT = 600
TICK = 30.0          # how often an idle daemon checks that its socket and folder still exist
MAX_REQUEST = 4 << 20
MAX_TEXTS = 256
MAX_K = 1000


class Served:
    """What the daemon holds: the repository, its model, and the model files' stat stamp."""

    def __init__(self, dirs: GitDirs, found: registry.ModelChoice, embedder: Embedder) -> None:
        self.dirs, self.found, self.embedder = dirs, found, embedder
        self.stamp = model_stamp(found.folder)


def model_stamp(folder: Path) -> tuple[tuple[int, int], ...]:
    """The model files' (mtime, size): weights replaced in place make the daemon step down."""
    out = []
    for name in ("model.safetensors", "tokenizer.json", "config.json"):
        try:
            info = (folder / name).stat()
        except OSError:
            info = None
        out.append((info.st_mtime_ns, info.st_size) if info else (0, 0))
    return tuple(out)


def answer(served: Served, request: Any) -> tuple[dict[str, Any], bool]:
    """The reply to one request and whether to stop afterwards."""
    if not isinstance(request, dict) or request.get("v") != client.PROTOCOL:
        return {"error": f"protocol {client.PROTOCOL} expected"}, False
    if request.get("stop"):
        return {"stopped": True}, True
    if "folder" in request and request["folder"] != str(served.found.folder) \
            or model_stamp(served.found.folder) != served.stamp:
        # The repository now wants another model (or new weights): make way for a new daemon.
        return {"error": "this daemon holds another model"}, True
    model = served.embedder.model_id
    if request.get("ping"):
        return {"model": model, "folder": str(served.found.folder), "pid": os.getpid()}, False
    query, k, texts = request.get("query"), request.get("k", 50), request.get("texts")
    if isinstance(query, str) and query.strip() and isinstance(k, int) and 1 <= k <= MAX_K:
        vector = served.embedder.embed([query])[0]
        by_hash, stored = vectors.shortlist(served.dirs, model, vector, k)
        return {"model": model, "vector": vector.tolist(), "near": list(by_hash.items()),
                "stored": stored}, False
    if isinstance(texts, list) and len(texts) <= MAX_TEXTS and all(isinstance(t, str) for t in texts):
        return {"model": model, "vectors": served.embedder.embed(texts).tolist()}, False
    return {"error": "a request names a query (and k), texts, ping or stop"}, False


def _peer_is_us(conn: socket.socket) -> bool:
    option = getattr(socket, "SO_PEERCRED", None)
    if option is None:  # not Linux: the socket's mode 0600 is the guard
        return True
    _, uid, _ = struct.unpack("3i", conn.getsockopt(socket.SOL_SOCKET, option, struct.calcsize("3i")))
    return bool(uid == os.getuid())


def _read_request(conn: socket.socket) -> bytes:
    parts, size = [], 0
    while size <= MAX_REQUEST:
        part = conn.recv(1 << 16)
        if not part:
            break
        parts.append(part)
        size += len(part)
        if part.endswith(b"\n"):
            break
    return b"".join(parts)


def _serve_one(served: Served, conn: socket.socket) -> bool:
    """Answer one connection; True when the daemon should stop."""
    conn.settimeout(5.0)
    try:
        if not _peer_is_us(conn):
            return False
        try:
            request = json.loads(_read_request(conn))
        except ValueError:
            request = None
        try:
            reply, stop = answer(served, request)
        except (GitMemoryError, ValueError, OSError) as problem:
            reply, stop = {"error": str(problem)}, False
        conn.sendall(json.dumps(reply).encode() + b"\n")
        return stop
    except OSError:  # the client went away (it timed out): nothing to tell it
        return False


def bind(path: Path) -> socket.socket:
    """The listening socket at `path`, mode 0600 from its first instant (umask), replacing a
    stale one (the caller holds the lock, so no live daemon owns it)."""
    if path.parent.name.startswith("git-memory-"):
        path.parent.mkdir(mode=0o700, exist_ok=True)
        if not client.private_dir_ok(path.parent):
            raise OSError(f"{path.parent} is not a private folder of this user")
    path.unlink(missing_ok=True)
    server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    old = os.umask(0o177)
    try:
        server.bind(str(path))
    finally:
        os.umask(old)
    os.chmod(path, 0o600)
    server.listen(16)
    return server


def _still_ours(served: Served, path: Path, inode: int) -> bool:
    try:
        return path.stat().st_ino == inode and served.dirs.memory_dir.is_dir()
    except OSError:
        return False


def loop(served: Served, server: socket.socket, path: Path, idle: float) -> None:
    inode = path.stat().st_ino
    server.settimeout(min(TICK, idle))
    last = time.monotonic()
    while True:
        try:
            conn, _ = server.accept()
        except socket.timeout:
            if time.monotonic() - last >= idle or not _still_ours(served, path, inode):
                return
            continue
        with conn:
            stop = _serve_one(served, conn)
        last = time.monotonic()
        if stop:
            return


def serve(dirs: GitDirs) -> int:
    """Load the model, then answer until idle. 0 also when another daemon already runs."""
    dirs.memory_dir.mkdir(parents=True, exist_ok=True)
    with open(dirs.memory_dir / client.LOCK_NAME, "a") as lock:
        try:
            fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            return 0  # one daemon per repository
        found = registry.choice(dirs)
        if found is None:
            return 0
        served = Served(dirs, found, registry.load(found))
        # One query before the socket exists: the first forward pass (fresh activations,
        # BLAS start) and reading the vector matrix cost far more than a warm query, and no
        # client should wait for them.
        answer(served, {"v": client.PROTOCOL, "query": "warm up", "k": 1})
        idle = max(1, config.get_int(dirs, "memory.embed.idleTimeout", IDLE_DEFAULT))
        path = client.socket_path(dirs)
        server = bind(path)
        inode = path.stat().st_ino
        sys.stderr.write(f"git-memory embed daemon {os.getpid()}: {served.embedder.model_id}"
                         f" on {path}, idle timeout {idle} s\n")
        try:
            loop(served, server, path, float(idle))
        finally:
            server.close()
            try:
                if path.stat().st_ino == inode:  # a successor may have bound its own
                    path.unlink()
            except OSError:
                pass
    return 0


def main(argv: list[str]) -> int:
    try:
        return serve(discover(argv[0] if argv else None))
    except (GitMemoryError, EmbedderUnavailable, OSError) as problem:
        sys.stderr.write(f"git-memory embed daemon: {problem}\n")
        return 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

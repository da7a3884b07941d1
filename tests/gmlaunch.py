"""A stand-in for a `git-memory ARGS` process that another program starts itself (the MCP
SDK's stdio client starts the `git memory mcp` server): tests/gmfork.launch_command
gives the command line, `python -I -S` running this file, which imports a few standard
modules only (about 0.02 s of CPU against 0.9 s for the server's own imports).

It hands the worker's fork server (tests/forkserver.py) its own stdin, stdout and stderr,
working directory and environment, exactly as `gmfork.run` does for a call, and ends as
the forked child ends: the same exit code, or the same signal. The child is the server
the program talks to; it reads this process's pipes, so closing them ends it as it would
end a server started directly. Imports only the standard library.
"""

from __future__ import annotations

import json
import os
import signal
import socket
import struct
import sys


def main() -> None:
    path, spec = sys.argv[1], json.loads(sys.argv[2])
    request = {"args": spec["args"], "script": spec["script"], "preload": spec["preload"],
               "cwd": os.getcwd(), "env": dict(os.environ)}
    payload = json.dumps(request).encode("utf-8")
    conn = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    conn.connect(path)
    conn.sendall(struct.pack("!I", len(payload)) + payload)
    socket.send_fds(conn, [b"F"], [0, 1, 2])
    for fd in (0, 1, 2):  # the child holds them now: nothing here keeps a pipe open
        os.close(fd)
    reply = b""
    while len(reply) < 4:
        part = conn.recv(4 - len(reply))
        if not part:
            os._exit(1)  # the fork server went away
        reply += part
    (code,) = struct.unpack("!i", reply)
    if code < 0:  # ended by a signal: end by the same one
        signal.signal(-code, signal.SIG_DFL)
        os.kill(os.getpid(), -code)
    os._exit(code & 0xFF)


if __name__ == "__main__":
    main()

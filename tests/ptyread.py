"""Reading what a process wrote to a pseudo-terminal (its progress lines), for the tests and
the benchmarks (bench/ puts tests/ on its path)."""

from __future__ import annotations

import os


def drain(leader: int) -> bytes:
    """Everything written to the terminal whose leader side is `leader`, until every
    writer has closed its side (Linux then raises EIO on read)."""
    chunks = []
    while True:
        try:
            chunk = os.read(leader, 65536)
        except OSError:  # EIO: the other side closed
            break
        if not chunk:
            break
        chunks.append(chunk)
    return b"".join(chunks)

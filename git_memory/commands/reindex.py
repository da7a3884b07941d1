"""`git memory reindex`: rebuild the local index from the memory branch."""

from __future__ import annotations

import time

from git_memory import ui
from git_memory.index.db import open_index
from git_memory.store.locate import discover


def run() -> int:
    started = time.monotonic()
    index = open_index(discover(), progress=ui.progress("indexing"), force_rebuild=True)
    try:
        conn = index.conn
        entries = conn.execute("SELECT count(*) FROM records WHERE kind = 'entry'").fetchone()[0]
        records = conn.execute("SELECT count(*) FROM records").fetchone()[0]
        problems = conn.execute("SELECT count(*) FROM problems").fetchone()[0]
    finally:
        index.close()
    note = f", {problems} malformed files skipped (see: git memory doctor)" if problems else ""
    ui.out(f"indexed {entries} entries ({records} records) in {time.monotonic() - started:.1f}s{note}")
    return 0

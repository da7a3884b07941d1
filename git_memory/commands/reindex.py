"""`git memory reindex`: rebuild the local index from the memory branch; `--background`
(hidden) is the detached build an agent hook starts."""

from __future__ import annotations

import time

import click

from git_memory import ui
from git_memory.api.memory import Memory


@click.command("reindex")
@click.option("--background", is_flag=True, hidden=True,
              help="Build or resume the index quietly unless a build is running (agent hooks).")
def reindex_cmd(*, background: bool = False) -> int:
    """Rebuild the local index from the memory branch (progress on a terminal)."""
    with Memory() as memory:
        if background:
            memory.build_in_background()
            return 0
        started = time.monotonic()
        memory.reindex(progress=ui.progress("indexing"))
        found = memory.sizes()
    entries, records, problems = found["entries"], found["records"], found["malformed_files"]
    note = f", {problems} malformed files skipped (see: git memory doctor)" if problems else ""
    ui.out(f"indexed {ui.plural(entries, 'entry')} ({ui.plural(records, 'record')}) in {time.monotonic() - started:.1f}s{note}")
    return 0

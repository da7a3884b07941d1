"""`git memory init`: create the memory branch if it is missing."""

from __future__ import annotations

import click

from git_memory import ui
from git_memory.api.memory import Memory
from git_memory.store.locate import memory_ref


@click.command("init")
def init_cmd() -> int:
    """Create the memory branch if it is missing (writing commands do it themselves)."""
    with Memory() as memory:
        tip, made = memory.init()
    ref = memory_ref(memory.dirs)
    ui.out(f"memory branch {ref} {'ready' if made else 'already exists'} at {tip[:12]}")
    return 0

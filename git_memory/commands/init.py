"""`git memory init`: create the memory branch if it is missing."""

from __future__ import annotations

import sys

import click

from git_memory import ui
from git_memory.api.memory import Memory
from git_memory.store.locate import memory_ref


def run() -> int:
    with Memory() as memory:
        tip, made = memory.init()
    ref = memory_ref(memory.dirs)
    ui.out(f"memory branch {ref} {'ready' if made else 'already exists'} at {tip[:12]}")
    return 0


@click.command("init")
def init_cmd() -> None:
    """Create the memory branch if it is missing (writing commands do it themselves)."""
    sys.exit(run())

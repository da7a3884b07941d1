"""`git memory init`: create the memory branch if it is missing."""

from __future__ import annotations

import sys

import click

from git_memory import ui
from git_memory.store.branch import MemoryBranch
from git_memory.store.locate import discover


def run() -> int:
    branch = MemoryBranch(discover())
    before = branch.repo.references.get(branch.ref)
    tip = branch.ensure_init()
    if before is None:
        ui.out(f"memory branch {branch.ref} ready at {tip[:12]}")
    else:
        ui.out(f"memory branch {branch.ref} already exists at {tip[:12]}")
    return 0


@click.command("init")
def init_cmd() -> None:
    """Create the memory branch if it is missing (writing commands do it themselves)."""
    sys.exit(run())

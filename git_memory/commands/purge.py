"""`git memory purge ID`: rewrite the memory branch's history without a redacted entry."""

from __future__ import annotations

import click

from git_memory import ui
from git_memory.api.memory import Memory
from git_memory.cli import options

WARNING = (
    "purge rewrites the history of the memory branch here and leaves a purge record on it."
    " The next `git memory sync` replaces the remote's history with the rewritten one"
    " (a push with --force-with-lease: the remote must allow it), and every other clone's"
    " next sync rewrites its own history the same way before merging, so the text cannot"
    " come back. Until then the remote and the other clones still hold it (a hosting"
    " service removes unreachable objects at its own garbage collection); the redaction"
    " keeps the entry hidden and its text refused meanwhile."
)


@click.command("purge")
@click.argument("ref", metavar="ID")
@options.yes()
def purge_cmd(ref: str, yes: bool) -> int:
    """Rewrite the memory branch's history without a redacted entry; each clone's sync follows."""
    def ask(path: str) -> bool:
        ui.warn(WARNING)
        return yes or options.confirm(f"rewrite the memory branch without {path}?")

    with Memory() as memory:
        done = memory.purge(ref, confirm=ask)
    if done is None:
        ui.warn("nothing purged")
        return 1
    ui.out(f"purged {done.path} (blob {done.blob[:10]}): rewrote"
           f" {ui.plural(done.rewritten, 'commit')}")
    for name in done.still_holding:
        ui.warn(f"{name} still holds the old history (rewrite the remote, then fetch)")
    ui.warn("now run `git memory sync`: it rewrites the remote, and each clone's sync its own copy")
    return 0

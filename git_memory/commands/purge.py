"""`git memory purge ID`: rewrite the memory branch's history without a redacted entry.

Refuses unless the entry is redacted first, and never runs without confirmation
(`--yes` for scripts). Says plainly that every clone and the remote still hold
the old history until they are rewritten too.
"""

from __future__ import annotations

import sys
from typing import Callable

import click

from git_memory import ui
from git_memory.api.curating import resolve_any
from git_memory.cli import options
from git_memory.curation.hook_detect import running_hook
from git_memory.curation.purge import purge
from git_memory.curation.record_builders import event
from git_memory.errors import BadInput
from git_memory.index.db import open_index
from git_memory.index.entries import redaction_of
from git_memory.model import short_id
from git_memory.store.branch import MemoryBranch
from git_memory.store.locate import discover
from git_memory.store.rewrite import forget, note_applied

WARNING = (
    "purge rewrites the history of the memory branch here and leaves a purge record on it."
    " The next `git memory sync` replaces the remote's history with the rewritten one"
    " (a push with --force-with-lease: the remote must allow it), and every other clone's"
    " next sync rewrites its own history the same way before merging, so the text cannot"
    " come back. Until then the remote and the other clones still hold it (a hosting"
    " service removes unreachable objects at its own garbage collection); the redaction"
    " keeps the entry hidden and its text refused meanwhile."
)


def run(ref: str, *, yes: bool, confirm: Callable[[str], bool]) -> int:
    hook = running_hook()
    if hook:
        raise BadInput(f"refused: purge never runs from a git hook (running inside {hook})")
    dirs = discover()
    index = open_index(dirs)
    try:
        row = resolve_any(index, ref)
        path, blob, entry_id = row["path"], row["blob"], row["id"]
        status = row["status"]
        if row["kind"] != "entry" and redaction_of(index, entry_id) is not None:
            status = "redacted"  # a curation record: hidden by a redact record aimed at it
    finally:
        index.close()
    if status != "redacted":
        raise BadInput(f"entry {short_id(entry_id)} is not redacted; run"
                       f" `git memory redact {short_id(entry_id)} --reason ...` first")
    ui.warn(WARNING)
    if not yes and not confirm(f"rewrite the memory branch without {path}?"):
        ui.warn("nothing purged")
        return 1
    branch = MemoryBranch(dirs)
    result = purge(branch, blob)
    author = branch.author()
    record = event("purge", entry_id, "purged from history", author, blobs=[blob], paths=[path])
    branch.append([record], f"memory: purge {short_id(entry_id)}",
                  trailers=[("Memory-Purge", blob)])
    note_applied(dirs, {blob: (entry_id, False)})  # sync catches a forced push dropping it
    open_index(dirs, force_rebuild=True).close()  # the old index still holds the text
    forget(dirs, [branch.ref, *result.refs], {blob})
    ui.out(f"purged {path} (blob {blob[:10]}): rewrote {ui.plural(result.rewritten, 'commit')}")
    for name in result.still_holding:
        ui.warn(f"{name} still holds the old history (rewrite the remote, then fetch)")
    ui.warn("now run `git memory sync`: it rewrites the remote, and each clone's sync its own copy")
    return 0


@click.command("purge")
@click.argument("entry_id", metavar="ID")
@options.yes()
def purge_cmd(entry_id: str, yes: bool) -> None:
    """Rewrite the memory branch's history without a redacted entry; each clone's sync follows."""
    sys.exit(run(entry_id, yes=yes, confirm=options.confirm))

"""Click commands of the sync area: `sync`, `pull`, `push`.

May import click, `cli.options` and `commands`.
"""

from __future__ import annotations

import sys

import click

from git_memory.cli import options


@click.command("sync", epilog=options.REMOTE_EPILOG)
@options.remote()
@options.as_json()
@click.option("--auto", is_flag=True, help="Only when `git config memory.autoSync` is true, and "
              "warn instead of failing (what the pre-push hook runs).")
@options.personal()
def sync_cmd(remote: str | None, as_json: bool, auto: bool, personal: bool) -> None:
    """Fetch the remote memory branch, merge it with yours, push the result (never forced).

    With `git config memory.shareSessions true`, the session archive too; every
    `memory.sources` repository is fetched (read only). With --personal, your personal
    memory with its own remote."""
    from git_memory.commands import sync

    sys.exit(sync.run_sync(remote, as_json=as_json, auto=auto, personal=personal))


@click.command("pull", epilog=options.REMOTE_EPILOG)
@options.remote()
@options.as_json()
@options.personal()
def pull_cmd(remote: str | None, as_json: bool, personal: bool) -> None:
    """Fetch the remote memory branch and merge it into yours; push nothing."""
    from git_memory.commands import sync

    sys.exit(sync.run_pull(remote, as_json=as_json, personal=personal))


@click.command("push", epilog=options.REMOTE_EPILOG)
@options.remote()
@options.as_json()
@options.personal()
def push_cmd(remote: str | None, as_json: bool, personal: bool) -> None:
    """Push your memory branch; refuses when the remote has records you lack (use sync)."""
    from git_memory.commands import sync

    sys.exit(sync.run_push(remote, as_json=as_json, personal=personal))


COMMANDS = (sync_cmd, pull_cmd, push_cmd)


def register(group: click.Group) -> None:
    for command in COMMANDS:
        group.add_command(command)

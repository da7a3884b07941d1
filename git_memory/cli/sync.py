"""Click commands of the sync area: `sync`, `pull`, `push` (registered by importing this)."""

from __future__ import annotations

import sys

import click

from git_memory.cli.main import cli

_REMOTE_HELP = "REMOTE defaults to the current branch's remote, else origin."


@cli.command("sync", epilog=_REMOTE_HELP)
@click.argument("remote", required=False)
@click.option("--json", "as_json", is_flag=True, help="Print what happened as JSON.")
@click.option("--auto", is_flag=True, help="Only when `git config memory.autoSync` is true, and "
              "warn instead of failing (what the pre-push hook runs).")
def sync_cmd(remote: str | None, as_json: bool, auto: bool) -> None:
    """Fetch the remote memory branch, merge it with yours, push the result (never forced).

    With `git config memory.shareSessions true`, the session archive too."""
    from git_memory.commands import sync

    sys.exit(sync.run_sync(remote, as_json, auto))


@cli.command("pull", epilog=_REMOTE_HELP)
@click.argument("remote", required=False)
@click.option("--json", "as_json", is_flag=True, help="Print what happened as JSON.")
def pull_cmd(remote: str | None, as_json: bool) -> None:
    """Fetch the remote memory branch and merge it into yours; push nothing."""
    from git_memory.commands import sync

    sys.exit(sync.run_pull(remote, as_json))


@cli.command("push", epilog=_REMOTE_HELP)
@click.argument("remote", required=False)
@click.option("--json", "as_json", is_flag=True, help="Print what happened as JSON.")
def push_cmd(remote: str | None, as_json: bool) -> None:
    """Push your memory branch; refuses when the remote has records you lack (use sync)."""
    from git_memory.commands import sync

    sys.exit(sync.run_push(remote, as_json))

"""Click commands for curation: supersede, merge, flag, redact, reinforce, contradict,
curate, diff and purge. Parsing and confirmation only; the work is in `commands/`.
"""

from __future__ import annotations

import sys

import click

from git_memory.cli.main import cli

REASON = click.option("--reason", metavar="TEXT", required=True,
                      help="Why (required; kept on the record and as a Review-Reason trailer).")


def _confirm(question: str) -> bool:
    """Ask on the terminal (stderr, so --json output stays clean); no answer means no."""
    try:
        return click.confirm(question, default=False, err=True)
    except click.exceptions.Abort:
        return False


@cli.command("supersede")
@click.argument("old", metavar="OLD")
@click.argument("new", metavar="NEW")
@REASON
def supersede_cmd(old: str, new: str, reason: str) -> None:
    """Record that entry NEW replaces entry OLD (ids, last 8 characters, or keys)."""
    from git_memory.commands import curate_manual

    sys.exit(curate_manual.supersede(old, new, reason))


@cli.command("merge")
@click.argument("ids", metavar="ID...", nargs=-1, required=True)
@click.option("--content", required=True, metavar="TEXT",
              help="The text of the canonical entry that replaces them.")
@REASON
def merge_cmd(ids: tuple[str, ...], content: str, reason: str) -> None:
    """Merge entries into a new canonical entry (type of the first, union of the tags)."""
    from git_memory.commands import curate_manual

    sys.exit(curate_manual.merge(list(ids), content, reason))


@cli.command("flag")
@click.argument("entry_id", metavar="ID")
@click.option("--status", required=True,
              type=click.Choice(["needs_review", "canonical", "active"]),
              help="The status to give the entry.")
@REASON
def flag_cmd(entry_id: str, status: str, reason: str) -> None:
    """Set an entry's status: needs_review, canonical, or back to active."""
    from git_memory.commands import curate_manual

    sys.exit(curate_manual.flag(entry_id, status, reason))


@cli.command("redact")
@click.argument("entry_id", metavar="ID")
@REASON
def redact_cmd(entry_id: str, reason: str) -> None:
    """Hide an entry everywhere and refuse its text from now on (history: see purge)."""
    from git_memory.commands import curate_manual

    sys.exit(curate_manual.redact(entry_id, reason))


@cli.command("reinforce")
@click.argument("entry_id", metavar="ID")
@click.option("--reason", metavar="TEXT", help="Why (optional here).")
def reinforce_cmd(entry_id: str, reason: str | None) -> None:
    """Confirm an entry: raises its confidence and resets its decay."""
    from git_memory.commands import curate_manual

    sys.exit(curate_manual.reinforce(entry_id, reason))


@cli.command("contradict")
@click.argument("entry_id", metavar="ID")
@REASON
def contradict_cmd(entry_id: str, reason: str) -> None:
    """Record evidence against an entry: lowers its confidence (recall demotes it)."""
    from git_memory.commands import curate_manual

    sys.exit(curate_manual.contradict(entry_id, reason))


@cli.command("curate")
@click.option("--dry-run", "mode", flag_value="dry-run", default=True,
              help="Print the records a proposal would append, and its hash (the default).")
@click.option("--apply", "mode", flag_value="apply",
              help="Append the proposal reviewed as --proposal HASH, after confirmation.")
@click.option("--propose", "name", metavar="NAME",
              help="Write the proposal on branch git-memory-proposals/NAME for a pull request.")
@click.option("--proposal", metavar="HASH", help="The hash the dry run printed (with --apply).")
@click.option("-y", "--yes", is_flag=True, help="Do not ask for confirmation (scripts).")
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
def curate_cmd(mode: str, name: str | None, proposal: str | None, yes: bool,
               as_json: bool) -> None:
    """Find duplicates, near duplicates, stale and doubtful entries; propose the fix.

    Never runs --apply from a git hook.
    """
    from git_memory.commands import curate

    if name is not None and mode == "apply":
        raise click.UsageError("--apply and --propose do not go together")
    if proposal is not None and mode != "apply":
        raise click.UsageError("--proposal HASH goes with --apply")
    if name is not None:
        sys.exit(curate.propose(name, as_json))
    if mode == "apply":
        sys.exit(curate.apply(proposal, yes, as_json, _confirm))
    sys.exit(curate.dry_run(as_json))


@cli.command("diff")
@click.argument("spec", metavar="A..B")
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
def diff_cmd(spec: str, as_json: bool) -> None:
    """The records between two memory commits, as readable entries (A alone: A..tip)."""
    from git_memory.commands import diff

    sys.exit(diff.run(spec, as_json))


@cli.command("purge")
@click.argument("entry_id", metavar="ID")
@click.option("-y", "--yes", is_flag=True, help="Do not ask for confirmation.")
def purge_cmd(entry_id: str, yes: bool) -> None:
    """Rewrite the memory branch's history without a redacted entry (every clone must follow)."""
    from git_memory.commands import purge

    sys.exit(purge.run(entry_id, yes, _confirm))

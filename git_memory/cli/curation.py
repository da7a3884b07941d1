"""Click commands for curation: supersede, merge, flag, redact, reinforce, contradict,
curate, diff, purge and review. Parsing, confirmation and the review's questions only;
the work is in `commands/`.
May import click, `cli.options` and `commands`.
"""

from __future__ import annotations

import sys

import click

from git_memory.cli import options


def _confirm(question: str) -> bool:
    """Ask on the terminal (stderr, so --json output stays clean); no answer means no."""
    try:
        return click.confirm(question, default=False, err=True)
    except click.exceptions.Abort:
        return False


@click.command("supersede")
@click.argument("old", metavar="OLD")
@click.argument("new", metavar="NEW")
@options.reason()
def supersede_cmd(old: str, new: str, reason: str) -> None:
    """Record that entry NEW replaces entry OLD (ids, last 8 characters, or keys)."""
    from git_memory.commands import curate_manual

    sys.exit(curate_manual.supersede(old, new, reason=reason))


@click.command("merge")
@click.argument("ids", metavar="ID...", nargs=-1, required=True)
@click.option("--content", required=True, metavar="TEXT",
              help="The text of the canonical entry that replaces them.")
@options.reason()
def merge_cmd(ids: tuple[str, ...], content: str, reason: str) -> None:
    """Merge entries into a new canonical entry (type of the first, union of the tags)."""
    from git_memory.commands import curate_manual

    sys.exit(curate_manual.merge(list(ids), content=content, reason=reason))


@click.command("flag")
@click.argument("entry_id", metavar="ID")
@click.option("--status", required=True,
              type=click.Choice(["needs_review", "canonical", "active"]),
              help="The status to give the entry.")
@options.reason()
def flag_cmd(entry_id: str, status: str, reason: str) -> None:
    """Set an entry's status: needs_review, canonical, or back to active."""
    from git_memory.commands import curate_manual

    sys.exit(curate_manual.flag(entry_id, status=status, reason=reason))


@click.command("redact")
@click.argument("entry_id", metavar="ID")
@options.reason()
def redact_cmd(entry_id: str, reason: str) -> None:
    """Hide an entry everywhere and refuse its text from now on (history: see purge)."""
    from git_memory.commands import curate_manual

    sys.exit(curate_manual.redact(entry_id, reason=reason))


@click.command("reinforce")
@click.argument("entry_id", metavar="ID")
@options.reason(required=False)
def reinforce_cmd(entry_id: str, reason: str | None) -> None:
    """Confirm an entry: raises its confidence and resets its decay."""
    from git_memory.commands import curate_manual

    sys.exit(curate_manual.reinforce(entry_id, reason=reason))


@click.command("contradict")
@click.argument("entry_id", metavar="ID")
@options.reason()
def contradict_cmd(entry_id: str, reason: str) -> None:
    """Record evidence against an entry: lowers its confidence (recall demotes it)."""
    from git_memory.commands import curate_manual

    sys.exit(curate_manual.contradict(entry_id, reason=reason))


@click.command("curate")
@click.option("--dry-run", "mode", flag_value="dry-run", default=True,
              help="Print the records a proposal would append, and its hash (the default).")
@click.option("--apply", "mode", flag_value="apply",
              help="Append the proposal reviewed as --proposal HASH, after confirmation.")
@click.option("--propose", "name", metavar="NAME",
              help="Write the proposal on branch git-memory-proposals/NAME for a pull request.")
@click.option("--proposal", metavar="HASH", help="The hash the dry run printed, or a proposal "
              "branch git-memory-proposals/NAME to append (with --apply).")
@options.yes()
@options.as_json()
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
        sys.exit(curate.propose(name, as_json=as_json))
    if mode == "apply":
        sys.exit(curate.apply(proposal=proposal, yes=yes, as_json=as_json, confirm=_confirm))
    sys.exit(curate.dry_run(as_json=as_json))


@click.command("diff")
@click.argument("spec", metavar="A..B")
@options.as_json()
def diff_cmd(spec: str, as_json: bool) -> None:
    """The records between two memory commits, as readable entries (A alone: A..tip)."""
    from git_memory.commands import diff

    sys.exit(diff.run(spec, as_json=as_json))


@click.command("purge")
@click.argument("entry_id", metavar="ID")
@options.yes()
def purge_cmd(entry_id: str, yes: bool) -> None:
    """Rewrite the memory branch's history without a redacted entry; each clone's sync follows."""
    from git_memory.commands import purge

    sys.exit(purge.run(entry_id, yes=yes, confirm=_confirm))


def _choose(question: str, choices: list[str]) -> str:
    """One letter among `choices`, asked on the terminal; end of input means quit."""
    try:
        return str(click.prompt(question, type=click.Choice(choices), show_choices=False,
                                err=True))
    except click.exceptions.Abort:
        return "q"


def _ask(question: str) -> str:
    try:
        return str(click.prompt(question, default="", show_default=False, err=True))
    except click.exceptions.Abort:
        return ""


@click.group("review", invoke_without_command=True)
@options.as_json()
@click.pass_context
def review_group(ctx: click.Context, as_json: bool) -> None:
    """Entries waiting for review (needs_review, low confidence, distilled, agent-written),
    oldest first. On a terminal, asks about each: accept, edit, reject, skip or quit;
    otherwise prints the queue. Decide from scripts with the subcommands."""
    if ctx.invoked_subcommand is not None:
        return
    from git_memory.commands import review

    interactive = sys.stdin.isatty() and sys.stdout.isatty() and not as_json
    sys.exit(review.run(as_json=as_json, interactive=interactive, choose=_choose, ask=_ask))


@review_group.command("accept")
@click.argument("ids", metavar="ID...", nargs=-1, required=True)
@options.reason(required=False)
def review_accept_cmd(ids: tuple[str, ...], reason: str | None) -> None:
    """Accept waiting entries: each becomes canonical (reviewed), you as the record's author."""
    from git_memory.commands import review

    sys.exit(review.run_accept(list(ids), reason=reason))


@review_group.command("reject")
@click.argument("ids", metavar="ID...", nargs=-1, required=True)
@options.reason()
def review_reject_cmd(ids: tuple[str, ...], reason: str) -> None:
    """Reject waiting entries: each is redacted (hidden, its text refused from now on)."""
    from git_memory.commands import review

    sys.exit(review.run_reject(list(ids), reason=reason))


@review_group.command("edit")
@click.argument("entry_id", metavar="ID")
@click.option("--text", metavar="TEXT", help="The new text ('-' reads standard input); without"
              " it, git's editor opens on the old text.")
@options.reason(required=False)
def review_edit_cmd(entry_id: str, text: str | None, reason: str | None) -> None:
    """Replace a waiting entry's text: a new canonical entry supersedes it."""
    from git_memory.commands import review

    sys.exit(review.run_edit(entry_id, text=text, reason=reason))


@click.command("promote")
@click.argument("entry_id", metavar="ID")
@click.option("--to", "to", required=True, type=click.Choice(["personal", "team"]),
              help="personal: copy an entry of this repository into your personal memory;"
              " team: copy a personal (or memory.sources) entry into this repository's memory.")
@options.as_json()
def promote_cmd(entry_id: str, to: str, as_json: bool) -> None:
    """Copy an entry into personal or team memory, with promoted_from (repository, id, commit)."""
    from git_memory.commands import promote

    sys.exit(promote.run(entry_id, to=to, as_json=as_json))


@click.command("demote")
@click.argument("entry_id", metavar="ID")
@options.reason(required=False)
@options.as_json()
def demote_cmd(entry_id: str, reason: str | None, as_json: bool) -> None:
    """Mark a promoted copy needs_review where it lives (what curate proposes when it was
    contradicted); `flag ID --status active` undoes it."""
    from git_memory.commands import promote

    sys.exit(promote.demote(entry_id, reason=reason, as_json=as_json))


COMMANDS = (supersede_cmd, merge_cmd, flag_cmd, redact_cmd, reinforce_cmd, contradict_cmd,
            curate_cmd, diff_cmd, purge_cmd, review_group, promote_cmd, demote_cmd)


def register(group: click.Group) -> None:
    for command in COMMANDS:
        group.add_command(command)

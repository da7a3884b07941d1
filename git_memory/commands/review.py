"""`git memory review`: the entries waiting for a person, and what the person decides.

Each decision is `Memory`'s (accept, edit, reject: docs/curation.md), the record's author
the reviewer's git identity. On a terminal the queue is walked one question per entry,
with the editor git would start (`terminal.edit`) for an edit.
"""

from __future__ import annotations

import sys
from typing import Any

import click

from git_memory import terminal, ui
from git_memory.api.memory import Memory
from git_memory.cli import options
from git_memory.commands.add import read_text
from git_memory.commands.curate_manual import done
from git_memory.errors import BadInput, GitMemoryError, UsageProblem
from git_memory.sanitize.chars import check_text

EDIT_HELP = ("\n# Edit the entry's text above. Lines starting with '#' are left out; an empty"
             " or unchanged text changes nothing.\n")


def queue(memory: Memory) -> list[dict[str, Any]]:
    """The waiting entries, oldest first (`Memory.review_queue`; the web view's queue)."""
    return memory.review_queue()


def run_accept(refs: list[str], *, reason: str | None) -> int:
    """Accept entries: each becomes `canonical`, with the reviewer as the record's author."""
    return done(lambda memory: memory.accept(refs, reason=reason))


def run_reject(refs: list[str], *, reason: str | None) -> int:
    """Reject entries: each is redacted (hidden, its text refused from then on)."""
    return done(lambda memory: memory.reject(refs, reason=reason or ""))


def run_edit(ref: str, *, text: str | None, reason: str | None) -> int:
    """Replace an entry's text: a new canonical entry superseding it (or the entry that
    already says it). Without `text`, the editor git would start opens on the old text."""
    if text is None:
        text = _edit_in_editor(ref)
        if text is None:
            ui.warn("unchanged; nothing written")
            return 0
    body = check_text(read_text(text), "--text")
    if not body.strip():
        raise BadInput("the new text is empty; reject the entry instead")
    return done(lambda memory: memory.edit(ref, body, reason=reason))


def _edit_in_editor(ref: str) -> str | None:
    """The text the person saved in the editor, or None when empty or unchanged."""
    with Memory() as memory:
        old, dirs = memory.review_text(ref), memory.dirs
    dirs.memory_dir.mkdir(parents=True, exist_ok=True)
    new = terminal.edit(str(dirs.memory_dir / "REVIEW_EDITMSG"), old + "\n" + EDIT_HELP)
    return new if new and new != old.strip() else None


def run(*, as_json: bool, interactive: bool) -> int:
    """List the queue (JSON, or lines), or walk it on a terminal."""
    with Memory() as memory:
        entries = memory.review_queue()
    if as_json:
        ui.out_json(entries)
        return 0
    if not entries:
        ui.out("nothing is waiting for review")
        return 0
    if not interactive:
        _print_queue(entries)
        return 0
    return _walk(entries)


def _print_queue(entries: list[dict[str, Any]]) -> None:
    ui.out(f"{ui.plural(len(entries), 'entry')} waiting for review, oldest first:")
    for entry in entries:
        ui.out(f"{entry['id'][-8:].lower()}  {entry['type']:<13} "
               f"{ui.first_line(entry['content'], 80)}")
        who = (entry["author"] or "").split("<")[0].strip() or "unknown"
        ui.out(f"          {', '.join(entry['waiting'])}; {ui.age(entry['created'])}, {who}")
    ui.out("decide with: git memory review accept ID... | reject ID... --reason TEXT |"
           " edit ID [--text TEXT]")


def _show(entry: dict[str, Any], number: int, total: int) -> None:
    ui.out("")
    ui.out(f"[{number}/{total}] {entry['id']}  {entry['type']}  {entry['status']}"
           f"  ({', '.join(entry['waiting'])})")
    ui.out(f"  {entry['created']} by {entry['author']}, source {entry['source']},"
           f" confidence {entry['confidence']}")
    for line in entry["content"].splitlines() or [""]:
        ui.out(f"    {line}")


def _walk(entries: list[dict[str, Any]]) -> int:
    """One question per entry: accept, edit, reject, skip or quit. Each decision is
    written at once, so quitting keeps what was decided."""
    done = {"accepted": 0, "edited": 0, "rejected": 0, "skipped": 0}
    for number, entry in enumerate(entries, 1):
        _show(entry, number, len(entries))
        answer = _choose("[a]ccept, [e]dit, [r]eject, [s]kip, [q]uit?", list("aersq"))
        if answer == "q":
            break
        if answer == "s":
            done["skipped"] += 1
            continue
        try:
            outcome = _decide(answer, entry["id"])
        except GitMemoryError as exc:
            ui.warn(f"error: {exc}; the entry stays in the queue")
            continue
        done[outcome] += 1
    ui.warn(", ".join(f"{count} {name}" for name, count in done.items()))
    return 0


def _decide(answer: str, entry_id: str) -> str:
    if answer == "a":
        run_accept([entry_id], reason=None)
        return "accepted"
    if answer == "r":
        reason = _ask("Why reject it?").strip()
        if not reason:
            ui.warn("no reason given; skipped")
            return "skipped"
        run_reject([entry_id], reason=reason)
        return "rejected"
    if answer == "e":
        text = _edit_in_editor(entry_id)
        if text is None:
            ui.warn("unchanged; skipped")
            return "skipped"
        run_edit(entry_id, text=text, reason=None)
        return "edited"
    raise UsageProblem(f"unknown answer {answer!r}")


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
def review_cmd(ctx: click.Context, as_json: bool) -> int:
    """Entries waiting for review (needs_review, low confidence, distilled, agent-written),
    oldest first. On a terminal, asks about each: accept, edit, reject, skip or quit;
    otherwise prints the queue. Decide from scripts with the subcommands."""
    if ctx.invoked_subcommand is not None:
        return 0
    interactive = sys.stdin.isatty() and sys.stdout.isatty() and not as_json
    return run(as_json=as_json, interactive=interactive)


@review_cmd.command("accept")
@click.argument("ids", metavar="ID...", nargs=-1, required=True)
@options.reason(required=False)
def review_accept_cmd(ids: tuple[str, ...], reason: str | None) -> int:
    """Accept waiting entries: each becomes canonical (reviewed), you as the record's author."""
    return run_accept(list(ids), reason=reason)


@review_cmd.command("reject")
@click.argument("ids", metavar="ID...", nargs=-1, required=True)
@options.reason()
def review_reject_cmd(ids: tuple[str, ...], reason: str) -> int:
    """Reject waiting entries: each is redacted (hidden, its text refused from now on)."""
    return run_reject(list(ids), reason=reason)


@review_cmd.command("edit")
@click.argument("entry_id", metavar="ID")
@click.option("--text", metavar="TEXT", help="The new text ('-' reads standard input); without"
              " it, git's editor opens on the old text.")
@options.reason(required=False)
def review_edit_cmd(entry_id: str, text: str | None, reason: str | None) -> int:
    """Replace a waiting entry's text: a new canonical entry supersedes it."""
    return run_edit(entry_id, text=text, reason=reason)

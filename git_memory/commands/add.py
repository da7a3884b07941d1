"""`git memory add TEXT`: one entry from an argument or stdin."""

from __future__ import annotations

import sys
from typing import Any

import click

from git_memory import ui
from git_memory.api.memory import Memory
from git_memory.api.writes import Proposed
from git_memory.cli import options
from git_memory.curation.proposal_branch import SHORT_PREFIX, name_of, ref_for
from git_memory.curation.record_builders import check_reason
from git_memory.errors import UsageProblem
from git_memory.sanitize import secrets_allowlist as allowlist
from git_memory.sanitize.chars import decode_bytes
from git_memory.store.sources import memory_dirs


def read_text(text: str) -> str:
    """The entry text: the argument, or stdin for `-`."""
    if text == "-":
        return decode_bytes(sys.stdin.buffer.read(), "standard input")
    return text


def run(text: str, *, type_: str | None, tags: list[str], redact_secrets: bool = False,
        truncate: bool = False, propose: str | None = None, supersedes: str | None = None,
        reason: str | None = None, personal: bool = False) -> int:
    """Add one entry. A secret in the text or a tag is refused (rule, field and line
    named, never the value) unless `redact_secrets`, which keeps the entry with the
    secret replaced by `[REDACTED:rule]`. A text over 8,000 characters is refused
    unless `truncate`, which keeps its first 8,000. With `propose`, the entry goes to
    the proposal branch `git-memory-proposals/NAME` for review instead, with
    `supersedes` (and its `reason`) as the entry it would replace. With `personal`, the
    entry goes to personal memory (created at the first one), never to this repository."""
    if propose is not None:
        ref_for(propose)  # a bad name is refused before stdin is read or anything written
    elif supersedes is not None or reason is not None:
        raise UsageProblem("--supersedes and --reason go with --propose NAME")
    if supersedes is not None:
        reason = check_reason(reason)
    elif reason is not None:
        raise UsageProblem("--reason goes with --supersedes ID")
    if personal and propose is not None:
        raise UsageProblem("--personal and --propose do not go together")
    if propose is not None and redact_secrets:
        raise UsageProblem("--redact-secrets does not go with --propose: a proposal is"
                           " reviewed as written")
    # a person's allow list and inline marker hold here (not for MCP or distillation)
    with allowlist.honoured(), Memory.at(memory_dirs(personal, create=True)) as memory:
        body = read_text(text)
        if propose is not None:
            return _propose(memory.propose(body, propose, type=type_, tags=tags,
                                           supersedes=supersedes, reason=reason))
        added = memory.add(body, type=type_, tags=tags, on_branch=False if personal else None,
                           redact_secrets=redact_secrets, truncate=truncate)
    if added.redacted:
        ui.warn("a secret was replaced by [REDACTED:rule] (see `git memory audit`)")
    if added.duplicate_of is None:
        if added.cut_to is not None:
            ui.warn(f"cut to {added.cut_to} characters (--truncate); the rest of the text was"
                    " not stored")
    else:
        ui.warn(f"already known as {added.id}; reinforced it instead of adding a copy")
    ui.out(added.id)
    return 0


def _propose(proposed: Proposed) -> int:
    where = name_of(proposed.ref)
    if proposed.duplicate_of is not None:
        on = "the memory branch" if proposed.where == "memory" else proposed.where
        ui.warn(f"already known as {proposed.duplicate_of} on {on}; nothing proposed")
        ui.out(proposed.duplicate_of)
        return 0
    ui.warn(f"proposed on {SHORT_PREFIX}{where} (review: git memory diff"
            f" git-memory..{SHORT_PREFIX}{where})")
    ui.out(proposed.id)
    return 0


@click.command("add")
@click.argument("words", metavar="TEXT...", nargs=-1, required=True)
@click.option("--type", "type_", metavar="TYPE", help="learned, decision, fact, pattern, "
              "investigation, deviation, failure or handoff (or start TEXT with 'LEARNED:').")
@click.option("--tag", "tags", multiple=True, metavar="TAG", help="A tag; repeat for more.")
@click.option("--redact-secrets", is_flag=True, help="Replace a secret (in the text or a tag) "
              "with [REDACTED:rule] and add the entry, instead of refusing it.")
@click.option("--truncate", is_flag=True,
              help="Keep the first 8000 characters of a longer text instead of refusing it.")
@click.option("--propose", metavar="NAME", help="Write the entry on branch "
              "git-memory-proposals/NAME for review (created, or appended to), not on the "
              "memory branch.")
@click.option("--supersedes", metavar="ID", help="With --propose: the entry the new one "
              "would replace (a supersede record goes on the proposal too).")
@click.option("--reason", metavar="TEXT", help="With --supersedes: why (kept on the record).")
@options.personal()
def add_cmd(words: tuple[str, ...], tags: tuple[str, ...], **flags: Any) -> int:
    """Add one entry and print its id. The words need no quotes (git memory add LEARNED:
    pip caches wheels); TEXT '-' reads standard input."""
    return run(" ".join(words), tags=list(tags), **flags)

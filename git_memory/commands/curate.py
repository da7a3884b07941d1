"""`git memory curate`: propose curation (--dry-run), apply it (--apply), or put it on a branch.

`--apply --proposal HASH` appends the dry run's records only while the memory is still the
one reviewed, and never from inside a git hook; `--apply --proposal git-memory-proposals/NAME`
appends a proposal branch's records with the writer's text check a plain `git merge` skips.
"""

from __future__ import annotations

from typing import Any

import click

from git_memory import ui
from git_memory.api.memory import Memory
from git_memory.cli import options
from git_memory.curation import proposal as prop
from git_memory.curation import proposal_branch as branches
from git_memory.curation.in_git_hook import running_hook
from git_memory.curation.promotion import Promotion
from git_memory.curation.reverted import Reverted
from git_memory.errors import GitMemoryError, UsageProblem
from git_memory.model import short_id
from git_memory.store.record_format import dump_record

class RefusedInHook(GitMemoryError):
    """curate --apply was started by a git hook."""


def _change_dict(change: prop.Change) -> dict[str, Any]:
    cand = change.candidate
    return {
        "action": cand.action,
        "ids": cand.ids,
        "why": cand.why,
        "score": cand.score,
        "shared_terms": cand.shared,
        "records": [
            {"id": r.id, "kind": r.kind, "path": r.path, "text": dump_record(r)}
            for r in change.records
        ],
    }


def as_dict(p: prop.Proposal, streamed: bool = False) -> dict[str, Any]:
    """The proposal as JSON; `streamed`: its changes left for the caller to write."""
    changes = None if streamed else [_change_dict(c) for c in p.changes]
    search = p.search.as_dict() if p.search is not None else None
    return {"proposal": p.digest, "tip": p.tip, "changes": changes, "records": len(p.records),
            "search": search}


def searched(p: prop.Proposal) -> str:
    """One line: what the near-duplicate search examined, and whether a bound cut it short."""
    s = p.search
    if s is None:
        return "near-duplicate search: not run"
    line = (f"near-duplicate search: {ui.plural(s.entries, 'entry')} examined"
            f" ({s.term_sets:,} distinct term sets), {s.pairs_checked:,} pairs checked")
    if not s.stopped_early:
        return line + "; complete"
    return line + "; stopped early: " + "; ".join(s.stopped_early)


def render(p: prop.Proposal) -> None:
    ui.out(f"proposal {p.digest}  (memory tip {p.tip[:10]}, {ui.plural(len(p.changes), 'change')},"
           f" {ui.plural(len(p.records), 'record')})")
    ui.out(searched(p))
    for number, change in enumerate(p.changes, 1):
        cand = change.candidate
        ui.out("")
        names = ", ".join(short_id(i) for i in cand.ids)
        ui.out(f"{number}. {cand.action.replace('_', ' ')}: {names}")
        ui.out(f"   {cand.why}")
        for record in change.records:
            ui.out(f"   + {record.path}")
            for line in dump_record(record).rstrip("\n").split("\n"):
                ui.out(f"     {line}")


def dry_run(*, as_json: bool) -> int:
    try:
        with Memory() as memory:  # promotions and demotions: each one command, outside the hash
            return _dry_run(memory.curate(), memory.promotions(), memory.reverted(), as_json)
    except BrokenPipeError:
        return ui.reader_left()


def _dry_run(p: prop.Proposal, moves: list[Promotion], undone: list[Reverted], as_json: bool) -> int:
    if as_json:  # written change by change: a large proposal is never one string
        head = {**as_dict(p, streamed=True), "promotions": [m.as_dict() for m in moves],
                "reverted": [r.as_dict() for r in undone]}
        ui.out_json_streamed(head, "changes", (_change_dict(c) for c in p.changes))
        return 0
    if not p.changes:
        ui.out(f"proposal {p.digest}: nothing to curate")
        ui.out(searched(p))
    else:
        render(p)
        ui.out("")
        ui.out(f"apply with: git memory curate --apply --proposal {p.digest}")
        ui.out("or review as a pull request: git memory curate --propose NAME")
    _render_promotions(moves)
    _render_reverted(undone)
    return 0


def _render_reverted(undone: list[Reverted]) -> None:
    if not undone:
        return
    ui.out("")
    ui.out(f"{ui.plural(len(undone), 'reverted entry')} (not part of the proposal; keep or drop"
           " each, nothing is applied):")
    for item in undone:
        ui.out(f"- {short_id(item.id)}: {item.why}")
        ui.out(f"  keep: {item.keep}")
        ui.out(f"  drop: {item.drop}")


def _render_promotions(moves: list[Promotion]) -> None:
    if not moves:
        return
    ui.out("")
    ui.out(f"{ui.plural(len(moves), 'promotion')} (not part of the proposal; each is one command):")
    for move in moves:
        ui.out(f"- {move.action} {short_id(move.id)} ({move.to}): {move.why}")
        ui.out(f"  {move.command}")


def _confirmed(yes: bool, records: int) -> bool:
    if yes or options.confirm(f"append these {ui.plural(records, 'record')} to the memory branch?"):
        return True
    ui.warn("nothing applied")
    return False


def apply(*, proposal: str | None, yes: bool, as_json: bool) -> int:
    hook = running_hook()
    if hook:
        raise RefusedInHook(f"refused: curate --apply never runs from a git hook (running inside"
                            f" {hook}); run it yourself after reviewing the dry run")
    if not proposal:
        raise UsageProblem("--apply needs --proposal HASH, the hash the dry run printed")
    if proposal.startswith((branches.SHORT_PREFIX, branches.PREFIX)):
        return apply_branch(proposal, yes=yes, as_json=as_json)
    memory = Memory()
    p = memory.curate()
    prop.check(p, proposal)
    if not yes and not as_json:
        render(p)
    if not _confirmed(yes, len(p.records)):
        return 1
    applied, commit = memory.apply_curation(proposal)
    if as_json:
        ui.out_json({**as_dict(applied), "applied": True, "commit": commit})
    else:
        ui.out(f"applied proposal {applied.digest}: {ui.plural(len(applied.records), 'record')} in"
               f" commit {commit[:10]}")
    return 0


def propose(name: str, *, as_json: bool) -> int:
    with Memory() as memory:
        p, ref, head = memory.propose_curation(name)
    if as_json:
        ui.out_json({**as_dict(p), "branch": ref, "commit": head})
        return 0
    short = ref[len("refs/heads/"):]
    ui.out(f"wrote proposal {p.digest} ({ui.plural(len(p.changes), 'commit')}) on {short}")
    ui.out(f"review it as a pull request into the memory branch, or: git diff git-memory {short}")
    return 0


def _branch_dict(done: branches.Applied) -> dict[str, Any]:
    return {
        "branch": branches.SHORT_PREFIX + done.name, "tip": done.base,
        "records": [{"id": r.id, "kind": r.kind, "path": r.path} for r in done.records],
        "dropped": [{"id": old, "duplicate_of": new} for old, new in done.dropped.items()],
        "commit": done.commit, "applied": done.commit is not None,
    }


def apply_branch(name: str, *, yes: bool, as_json: bool) -> int:
    """Append a proposal branch's records to the memory branch, as a plain `git merge`
    would, but with the writer's check first: an entry whose text the memory holds by
    now is dropped and what pointed at it points at the entry that is there."""
    memory = Memory()
    plan = memory.plan_proposal(name)
    if not yes and not as_json:
        for record in plan.records:
            ui.out(f"+ {record.path}")
        for old, new in plan.dropped.items():
            ui.out(f"  drop {short_id(old)}: the memory holds its text as {short_id(new)}")
    if not _confirmed(yes, len(plan.records)):
        return 1
    done = memory.apply_proposal(plan)
    if as_json:
        ui.out_json(_branch_dict(done))
        return 0
    for old, new in done.dropped.items():
        ui.warn(f"dropped {short_id(old)}: the memory already holds its text as {short_id(new)}")
    ui.out(f"applied {branches.SHORT_PREFIX}{done.name}: {ui.plural(len(done.records), 'record')}"
           f" in commit {(done.commit or '')[:10]}")
    return 0


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
               as_json: bool) -> int:
    """Find duplicates, near duplicates, stale and doubtful entries; propose the fix.

    Never runs --apply from a git hook.
    """
    if name is not None and mode == "apply":
        raise click.UsageError("--apply and --propose do not go together")
    if proposal is not None and mode != "apply":
        raise click.UsageError("--proposal HASH goes with --apply")
    if name is not None:
        return propose(name, as_json=as_json)
    if mode == "apply":
        return apply(proposal=proposal, yes=yes, as_json=as_json)
    return dry_run(as_json=as_json)

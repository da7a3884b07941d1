"""`git memory capture [REV-RANGE]`: knowledge markers from commits already made, captured
as the post-commit hook does (`capture.history`); the summary goes to standard error."""

from __future__ import annotations

import click

from git_memory import ui
from git_memory.api.memory import Memory
from git_memory.capture.history import RangeReport
from git_memory.cli import options

SHOW_REFUSED = 20


def _summary(report: RangeReport) -> str:
    if not report.commits and report.already_scanned:
        return (f"nothing new: {report.described}'s history was read by an earlier capture"
                " (`git memory capture HEAD` reads all of it again)")
    if not report.commits:
        return f"nothing to capture: {report.described} holds no commits"
    verb = "would capture" if report.dry_run else "captured"
    parts = [f"{verb} {ui.plural(report.captured, 'entry')}",
             f"{report.already} already there"]
    if report.outcome.rejected:
        parts.append(f"{len(report.outcome.rejected)} refused")
    scanned = f"{ui.plural(report.commits, 'commit')} of {report.described}"
    if report.already_scanned:
        scanned += " not scanned by an earlier capture"
    return f"{', '.join(parts)} ({scanned}, {report.marked} with markers)"


def _as_json(report: RangeReport) -> dict[str, object]:
    outcome = report.outcome
    return {
        "range": report.described,
        "dry_run": report.dry_run,
        "commits": report.commits,
        "commits_with_markers": report.marked,
        "markers": report.markers,
        "captured": report.captured,
        "already": report.already,
        "refused": [{"where": w, "reason": r} for w, r in outcome.rejected],
        "redacted": outcome.redacted,
        "entries": [{"id": None if report.dry_run else r.id, "type": r.type, "commit": r.origin.get("commit"),
                     "created": r.created, "content": r.content} for r in outcome.added],
        "memory_commit": outcome.commit,
    }


@click.command("capture")
@click.argument("rev_range", metavar="[REV-RANGE]", required=False)
@click.option("--dry-run", is_flag=True, help="Say what would be captured; write nothing.")
@options.as_json()
def capture_cmd(rev_range: str | None, *, dry_run: bool = False, as_json: bool = False) -> int:
    """Capture the knowledge markers of commits already made (backfill, after a pull, CI).

    REV-RANGE is `A..B` (B's history less A's, e.g. main~20..main or <before>..<after>),
    `A...B`, or one revision and its whole history. Without it: HEAD's history less what
    an earlier `git memory capture` in this clone already read. Markers go through the same
    checks as the post-commit hook (secrets refused, audit log); an entry is keyed by its
    commit's marker text, so a second run, or a run over commits the hooks captured, adds
    nothing and counts them as already there. Exit 2 for a range git cannot read.
    """
    with Memory() as memory:
        report = memory.capture(rev_range, dry_run=dry_run,
                                progress=None if as_json else ui.progress("reading commits"))
    if as_json:
        ui.out_json(_as_json(report))
        return 0
    for record in report.outcome.added:
        commit = str(record.origin.get("commit") or "")[:12]
        ident = "(dry run)" if dry_run else record.id
        ui.out(f"{ident} {commit} {record.type}: {ui.first_line(record.content, 80)}")
    for where, reason in report.outcome.rejected[:SHOW_REFUSED]:
        ui.warn(f"not captured ({where}): {reason}")
    hidden = len(report.outcome.rejected) - SHOW_REFUSED
    if hidden > 0:
        ui.warn(f"... and {hidden} more refused (see git memory audit)")
    ui.warn(_summary(report))
    return 0

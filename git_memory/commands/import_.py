"""`git memory import FILE`: many entries in one commit, with a summary of what happened;
a lossless export (a jsonl export or an `export DIR` folder) is restored record for record
(`Memory.restore`), so importing the same export twice adds nothing."""

from __future__ import annotations

import functools
import itertools
import os
import sys
from pathlib import Path
from typing import Any, Callable

import click

from git_memory import parallel, ui
from git_memory.api.memory import Memory
from git_memory.write.bulk_items import LineSource
from git_memory.write.bulk import BulkOutcome
from git_memory.capture import records
from git_memory.capture.jsonl import ParsedFile, check_format, line_item
from git_memory.capture.markdown import parse_markdown
from git_memory.cli import options
from git_memory.errors import BadInput, UsageProblem
from git_memory.model import Record
from git_memory.sanitize import secrets_allowlist as allowlist
from git_memory.store.locate import GitDirs, discover
from git_memory.write.append import NewEntry

SHOW_REJECTS = 20


def run(
    path: str, *, fmt: str, skip_bad: bool, as_json: bool, redact_secrets: bool = True,
    default_type: str | None = None,
) -> int:
    # a person imports: their allow list and inline markers hold (audited per finding)
    with allowlist.honoured():
        return _run(path, fmt=fmt, skip_bad=skip_bad, as_json=as_json,
                    redact_secrets=redact_secrets, default_type=default_type)


def _run(
    path: str, *, fmt: str, skip_bad: bool, as_json: bool, redact_secrets: bool,
    default_type: str | None,
) -> int:
    if default_type is not None and fmt != "markdown":
        raise UsageProblem("--type applies to --format markdown (JSON lines carry their own type)")
    dirs = discover()
    if path != "-" and os.path.isdir(path):
        return _restore(dirs, records.read_folder(Path(path)), as_json=as_json)  # an `export DIR`
    try:
        handle = sys.stdin.buffer if path == "-" else open(path, "rb")
    except OSError as exc:
        raise BadInput(f"cannot read {path}: {exc.strerror}") from None
    with handle:
        first = handle.readline()
        if fmt == "markdown" or (fmt == "jsonl" and records.is_export(first)):
            data = first + handle.read()  # a notes file, or a lossless export: read whole
            lines = data.splitlines(keepends=True)
            if fmt == "jsonl":
                return _restore(dirs, records.read_lines(lines), as_json=as_json)
            name = "stdin" if path == "-" else os.path.basename(path)
            return _write_parsed(dirs, parse_markdown(data, default_type or "fact", name),
                                 path, fmt, as_json, redact_secrets)
        # JSON lines are streamed: read, checked and written one at a time, so a file of
        # a million entries is never in memory (nor are its entries).
        check_format(fmt)
        if path == "-":  # no size to look at: read ahead to see whether it is large
            ahead = [first, *itertools.islice(handle, PARALLEL - 1)]
            total, lines_in = 0, itertools.chain(ahead, handle)
            workers = parallel.count(len(ahead), PARALLEL, MOST_WORKERS)
        else:
            total, lines_in = _count_lines(path), itertools.chain([first], handle)
            workers = parallel.count(total, PARALLEL, MOST_WORKERS)
        markdown = path.lower().endswith((".md", ".markdown"))
        source = LineSource(lines_in, functools.partial(_parse_line, fmt=fmt, skip_bad=skip_bad,
                                                        markdown=markdown))
        show = ui.progress("importing")
        with Memory.at(dirs) as memory:
            outcome = memory.import_(
                source, message=lambda n: f"memory: import {ui.plural(n, 'entry')} ({fmt})",
                progress=_every(show, total, source) if show and total else None,
                redact_secrets=redact_secrets, workers=workers,
            )
    if show and total:
        show(total, total)
    if not outcome.seen and not source.rejected:
        raise BadInput(f"{path} holds no entries")
    return _report(dirs, outcome, source.rejected, as_json, redact_secrets)


def _restore(dirs: GitDirs, found: list[Record], as_json: bool) -> int:
    with Memory.at(dirs) as memory:
        summary = memory.restore(found, progress=ui.progress("indexing"))
    if as_json:
        ui.out_json(summary)
    else:
        ui.out(f"restored {ui.plural(summary['restored'], 'record')}"
               f" ({ui.plural(summary['entries'], 'entry')}), {summary['present']} already present")
    return 0


PARALLEL = 20000  # from this many lines on, the entries are prepared by several processes
MOST_WORKERS = 8


def _count_lines(path: str) -> int:
    """Lines in a file, for the progress line (a read at disk speed, no decoding)."""
    count, last = 0, b"\n"
    with open(path, "rb") as handle:
        while chunk := handle.read(1 << 20):
            count += chunk.count(b"\n")
            last = chunk[-1:]
    return count + (last != b"\n")


def _every(show: Callable[[int, int], None], total: int, source: LineSource) -> Callable[[], None]:
    """The writer's per-item callback: the progress line, redrawn every 1000 items."""
    seen = [0]

    def step() -> None:
        seen[0] += 1
        if seen[0] % 1000 == 0:
            show(min(source.lines, total), total)

    return step


def _parse_line(
    raw: bytes, number: int, *, fmt: str, skip_bad: bool, markdown: bool
) -> NewEntry | tuple[str, str] | None:
    """One line of a JSON lines file (capture.jsonl.line_item), with a hint added to a
    parse error of a Markdown file read as JSON. Module-level: the workers parsing the
    lines (bulk_items.LineSource) get it by name."""
    try:
        return line_item(raw, number, fmt, skip_bad)
    except BadInput as exc:
        if markdown:
            raise BadInput(f"{exc}; for a Markdown file use --format markdown") from None
        raise


def _write_parsed(
    dirs: GitDirs, parsed: ParsedFile, path: str, fmt: str, as_json: bool, redact_secrets: bool
) -> int:
    """A Markdown file's entries, parsed whole (a notes file is small), written in one go."""
    if not parsed.items and not parsed.rejected:
        raise BadInput(f"{path} holds no entries")
    with Memory.at(dirs) as memory:
        outcome = memory.import_(
            parsed.items, message=lambda n: f"memory: import {ui.plural(n, 'entry')} ({fmt})",
            redact_secrets=redact_secrets,
        )
    return _report(dirs, outcome, parsed.rejected, as_json, redact_secrets)


def _report(
    dirs: GitDirs, outcome: BulkOutcome, parse_rejected: list[tuple[str, str]], as_json: bool,
    redact_secrets: bool,
) -> int:
    if outcome.commit:
        # Index now, while the records are fresh, so the first recall is warm.
        with Memory.at(dirs) as memory:
            memory.reindex(progress=ui.progress("indexing"), rebuild=False)
    rejected = parse_rejected + outcome.rejected
    rejected.sort(key=lambda item: int(item[0].split()[-1]) if item[0].split()[-1].isdigit() else 0)
    summary = {
        "imported": outcome.added,
        "duplicates": len(outcome.duplicates),
        "rejected": len(rejected),
        "rejects": [{"where": w, "reason": r} for w, r in rejected],
        "redacted": outcome.redacted,
        "cut": [{"where": w, "kept": n} for w, n in outcome.cut],
        "commit": outcome.commit,
    }
    if as_json:
        ui.out_json(summary)
    else:
        for where, reason in rejected[:SHOW_REJECTS]:
            ui.warn(f"skipped {where}: {reason}")
        if len(rejected) > SHOW_REJECTS:
            ui.warn(f"... and {len(rejected) - SHOW_REJECTS} more (use --json for all)")
        ui.out(
            f"imported {summary['imported']}, skipped {ui.plural(len(outcome.duplicates), 'duplicate')},"
            f" rejected {summary['rejected']}"
        )
        if outcome.redacted:
            ui.out(f"secrets replaced by [REDACTED:rule] in {len(outcome.redacted)}: "
                   + ", ".join(outcome.redacted[:SHOW_REJECTS])
                   + (" ..." if len(outcome.redacted) > SHOW_REJECTS else ""))
        if outcome.cut:
            ui.warn(f"cut {len(outcome.cut)} over-long texts to their first characters: "
                    + ", ".join(f"{w} ({n})" for w, n in outcome.cut[:SHOW_REJECTS])
                    + (" ..." if len(outcome.cut) > SHOW_REJECTS else ""))
        secrets = sum(1 for _, reason in rejected if "contains a secret" in reason)
        if secrets and not redact_secrets:
            ui.warn(f"{ui.plural(secrets, 'line')} held a secret and were skipped; without "
                    "--skip-secrets they are imported with it replaced by [REDACTED:rule]")
    return 0


@click.command("import")
@click.argument("path", metavar="FILE|DIR")
@click.option("--format", "fmt", type=click.Choice(["jsonl", "lavra", "markdown"]),
              default="jsonl", show_default=True, help="jsonl: our fields; lavra: a Lavra "
              "knowledge.jsonl; markdown: a notes file such as CLAUDE.md (each bullet or "
              "paragraph an entry, its heading a tag).")
@click.option("--type", "default_type", metavar="TYPE", help="With --format markdown: the type of "
              "entries that start without a marker (default fact).")
@click.option("--skip-bad", is_flag=True, help="Report lines that are not JSON objects instead "
              "of stopping at the first one.")
@click.option("--redact-secrets/--skip-secrets", default=True, show_default=True,
              help="A text holding a secret is imported with the secret replaced by "
              "[REDACTED:rule] (the default; nothing else of the line is lost), or skipped and "
              "reported with --skip-secrets.")
@options.as_json()
def import_cmd(path: str, **flags: Any) -> int:
    """Import many entries in one commit; FILE may be '-' for standard input. An export
    (`git memory export`, a file or a folder) is restored record for record."""
    return run(path, **flags)

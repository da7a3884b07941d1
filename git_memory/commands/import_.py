"""`git memory import FILE`: many entries in one commit, with a summary of what happened.

A lossless export (`export --format jsonl` output, or an `export DIR` folder) is restored
record for record by commands/restore.py instead."""

from __future__ import annotations

import os
import sys
from pathlib import Path

from git_memory import ui
from git_memory.capture import records
from git_memory.capture.jsonl import parse_lines
from git_memory.capture.markdown import parse_markdown
from git_memory.errors import BadInput, UsageProblem
from git_memory.index.db import open_index
from git_memory.store.locate import discover
from git_memory.commands import restore
from git_memory.writer import write_entries

SHOW_REJECTS = 20


def run(
    path: str, *, fmt: str, skip_bad: bool, as_json: bool, redact_secrets: bool = False,
    default_type: str | None = None,
) -> int:
    if default_type is not None and fmt != "markdown":
        raise UsageProblem("--type applies to --format markdown (JSON lines carry their own type)")
    dirs = discover()
    if path != "-" and os.path.isdir(path):
        return restore.run(dirs, records.read_folder(Path(path)), as_json=as_json)  # an `export DIR`
    try:
        handle = sys.stdin.buffer if path == "-" else open(path, "rb")
    except OSError as exc:
        raise BadInput(f"cannot read {path}: {exc.strerror}") from None
    with handle:
        data = handle.read()
    lines = data.splitlines(keepends=True)
    if fmt == "jsonl" and lines and records.is_export(lines[0]):
        return restore.run(dirs, records.read_lines(lines), as_json=as_json)
    if fmt == "markdown":
        name = "stdin" if path == "-" else os.path.basename(path)
        parsed = parse_markdown(data, default_type or "fact", name)
    else:
        try:
            parsed = parse_lines(lines, fmt, skip_bad)
        except BadInput as exc:
            if path.lower().endswith((".md", ".markdown")):
                raise BadInput(f"{exc}; for a Markdown file use --format markdown") from None
            raise
    if not parsed.items and not parsed.rejected:
        raise BadInput(f"{path} holds no entries")
    outcome = write_entries(
        dirs,
        parsed.items,
        f"memory: import {ui.plural(len(parsed.items), 'entry')} ({fmt})",
        reinforce_duplicates=False,
        strict=False,
        progress=ui.progress("importing"),
        redact_secrets=redact_secrets,
    )
    if outcome.commit:
        # Index now, while the records are fresh, so the first recall is warm.
        open_index(dirs, progress=ui.progress("indexing")).close()
    rejected = parsed.rejected + outcome.rejected
    rejected.sort(key=lambda item: int(item[0].split()[-1]) if item[0].split()[-1].isdigit() else 0)
    summary = {
        "imported": len(outcome.added),
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
            ui.warn(f"{secrets} held a secret; --redact-secrets imports them with it replaced")
    return 0

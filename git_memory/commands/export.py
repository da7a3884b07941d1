"""`git memory export DIR`, `--format jsonl [FILE]` or `--format html DIR`.

DIR and jsonl keep every record with ids, authors, times and links, so `git memory import`
of the export rebuilds the same memory (capture/records.py); a redacted entry leaves with
the index's placeholder text, never the text it hid. html is the web view as a static site.
"""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import Generator

import click

from git_memory import ui
from git_memory.api.memory import Memory
from git_memory.capture.records import header, to_line
from git_memory.errors import BadInput, UsageProblem
from git_memory.model import Record
from git_memory.store.layout import MODE_BLOB, check_entry
from git_memory.store.locate import GitDirs, discover, memory_ref
from git_memory.store.record_format import dump_record
from git_memory.web.site import write_site


def _write_lines(count: int, records: Generator[Record, None, None], ref: str, target: str | None) -> None:
    """The header, then one line per record as the cursor hands it out: the export of a
    large memory streams to stdout (or the file) instead of being built whole first."""
    head = json.dumps(header(count, ref), ensure_ascii=False)
    if target is None or target == "-":
        ui.out_first(head)
        for record in records:
            ui.out(json.dumps(to_line(record), ensure_ascii=False))
        return
    path = Path(target)
    if path.is_dir():
        raise BadInput(f"{path} is a folder; give a file name, or export DIR without --format")
    tally: Counter[str] = Counter()
    try:
        with path.open("w", encoding="utf-8") as out:
            out.write(head + "\n")
            for record in records:
                tally[record.kind] += 1
                out.write(json.dumps(to_line(record), ensure_ascii=False) + "\n")
    except OSError as exc:
        raise BadInput(f"cannot write {path}: {exc.strerror}") from None
    ui.out(f"exported {_tallied(tally)} to {path}")


def _write_tree(records: Generator[Record, None, None], target: Path) -> None:
    if target.exists() and not target.is_dir():
        raise BadInput(f"{target} exists and is not a folder")
    target.mkdir(parents=True, exist_ok=True)
    tally: Counter[str] = Counter()
    skipped = 0
    for record in records:
        path = _inside(target, record.path)
        if path is None:  # a hand-made path must not write outside DIR
            skipped += 1
            continue
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(dump_record(record), encoding="utf-8")
        tally[record.kind] += 1
    ui.out(f"exported {_tallied(tally)} to {target}")
    if skipped:
        ui.warn(f"skipped {ui.plural(skipped, 'record')} whose path would leave {target}")


def _tallied(kinds: Counter[str]) -> str:
    """Entries and curation records written, counted as they streamed past."""
    entries = kinds["entry"]
    return f"{ui.plural(entries, 'entry')} and {ui.plural(kinds.total() - entries, 'curation record')}"


def run(target: str | None, *, fmt: str) -> int:
    if fmt in ("markdown", "html") and not target:
        raise UsageProblem("export needs a folder, or --format jsonl for standard output")
    dirs = discover()
    if fmt == "html":
        return _write_site(dirs, Path(target or "."))
    with Memory.at(dirs) as memory:
        count, records = memory.snapshot()
        try:
            if fmt == "jsonl":
                _write_lines(count, records, memory_ref(dirs), target)
            else:
                _write_tree(records, Path(target or "."))
        except BrokenPipeError:
            return ui.reader_left()
        finally:
            records.close()
    return 0


def _write_site(dirs: GitDirs, target: Path) -> int:
    """The web view's pages as a static site (git_memory/web/site.py)."""
    with Memory.at(dirs) as memory:
        pages = write_site(memory, target)
    ui.out(f"exported {pages} pages to {target} (open {target / 'index.html'})")
    return 0


def _inside(target: Path, relative: str) -> Path | None:
    """Where `relative` goes under `target`, or None when it is not a record path or,
    resolved (symlinks already in the folder included), would land outside it."""
    if check_entry(relative, MODE_BLOB) is not None:
        return None
    root = target.resolve()
    path = (root / relative).resolve()
    return path if path.is_relative_to(root) and path != root else None


@click.command("export")
@click.argument("target", metavar="DIR|FILE", required=False)
@click.option("--format", "fmt", type=click.Choice(["markdown", "jsonl", "html"]),
              default="markdown", show_default=True, help="markdown: every record's file in the "
              "folder DIR; jsonl: one line per record, to FILE or standard output; html: the web "
              "view's pages as a static site in DIR (no secrets, no redacted entries).")
@click.option("--all", "include_all", is_flag=True, hidden=True,
              help="Accepted for compatibility: every record is always exported.")
def export_cmd(target: str | None, fmt: str, include_all: bool) -> int:
    """Export the whole memory (every entry and curation record, with ids, authors and
    links); `git memory import` of the export rebuilds the same memory."""
    return run(target, fmt=fmt)

"""`git memory show ID`: one entry, its fields, and its provenance both ways (what it
replaces, and what replaced it up to the entries current now)."""

from __future__ import annotations

import json
from typing import Any

import click

from git_memory import terminal, ui
from git_memory.api.memory import Memory
from git_memory.cli import options

# The lines printed from the entry itself; a field of the same name never prints twice.
SHOWN = ("id", "key", "status", "confidence", "created", "author", "source", "path", "tags",
         "origin", "type", "kind")


def _line(item: dict[str, Any]) -> str:
    return f"{item['id'][-8:].lower()} [{item['status']}] {ui.first_line(item['content'], 70)}"


@click.command("show")
@click.argument("ref", metavar="ID")
@options.as_json()
def show_cmd(ref: str, *, as_json: bool) -> int:
    """Show one entry (by id, its last 8 characters, or key) with its provenance."""
    with Memory() as memory:
        entry = memory.show(ref)
    if as_json:
        ui.out_json(entry)
        return 0
    with terminal.paged():
        _print(entry)
    return 0


def _print(entry: dict[str, Any]) -> None:
    ui.out(f"{entry['type'].upper()}: {entry['content']}")
    ui.out("")
    for name in SHOWN[:8]:
        if entry.get(name) not in (None, ""):
            ui.out(f"{name + ':':<12} {entry[name]}")
    if entry["tags"]:
        ui.out(f"{'tags:':<12} {', '.join(entry['tags'])}")
    if entry["origin"]:
        ui.out(f"{'origin:':<12} {json.dumps(entry['origin'], ensure_ascii=False)}")
    for name, value in entry["fields"].items():
        if name in ("merged_from", "supersedes") or name in SHOWN:
            continue  # shown with the provenance below, or above
        ui.out(f"{name + ':':<12} {value}")
    reverted = entry.get("reverted")
    if reverted:
        ui.out(f"{'reverted:':<12} by commit {reverted['by']} (it reverts {reverted['reverts']});"
               " git memory curate --dry-run says what to do")
    if entry["reinforcements"] or entry["contradictions"]:
        ui.out(f"{'feedback:':<12} +{entry['reinforcements']} / -{entry['contradictions']}")
    _provenance(entry)


def _provenance(entry: dict[str, Any]) -> None:
    prov = entry["provenance"]
    if prov["replaces"]:
        ui.out("")
        ui.out("replaces (older, transitively):")
        for item in prov["replaces"]:
            ui.out(f"  <- {_line(item)}")
    if prov["replaced_by"]:
        ui.out("")
        ui.out("replaced by (newer, transitively):")
        for item in prov["replaced_by"]:
            ui.out(f"  -> {_line(item)}")
        for current in entry["current"]:
            ui.out(f"{'current:':<12} {current} (git memory show {current[-8:].lower()})")
    if entry["merged_into"]:
        ui.out(f"{'merged into:':<12} {', '.join(entry['merged_into'])}")
    if entry["merged_from"]:
        ui.out(f"{'merged from:':<12} {', '.join(entry['merged_from'])}")
    for reason in entry["reasons"]:
        ui.out(f"{'note:':<12} {reason}")

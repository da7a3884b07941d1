"""`git memory show ID`: one entry, its fields, and its provenance both ways.

Backwards: what it replaces (supersedes, merged from), transitively. Forwards:
what replaced it, up to the entries that are current now, so `show` on an old
id always leads to the entry to read instead.
"""

from __future__ import annotations

import json
from typing import Any

from git_memory import terminal, ui
from git_memory.errors import NotFound
from git_memory.index.db import Index, open_index
from git_memory.index.entries import by_id, entry_dict, find_entry, state_of
from git_memory.index.schema import Row
from git_memory.store.locate import discover


def _state(row: Row | None) -> dict[str, Any]:
    return json.loads(row["state"]) if row is not None and row["state"] else {}


def _chain(index: Index, start: str, field: str) -> list[str]:
    """Follow supersedes/superseded_by links transitively, cycle-safe, nearest first."""
    seen: list[str] = []
    todo = [start]
    while todo:
        current = todo.pop(0)
        for nxt in state_of(index, current).get(field, []):
            if nxt not in seen and nxt != start:
                seen.append(nxt)
                todo.append(nxt)
    return seen


def _summary(index: Index, entry_id: str) -> dict[str, Any]:
    row = by_id(index, entry_id)
    if row is None:
        return {"id": entry_id, "status": "unknown", "content": ""}
    return {"id": entry_id, "status": row["status"], "type": row["type"],
            "content": row["content"] if row["status"] != "redacted" else "(redacted)"}


def gather(index: Index, row: Row) -> dict[str, Any]:
    entry = entry_dict(row, index.adopted())
    state = _state(row)
    forward = _chain(index, entry["id"], "superseded_by")
    backward = _chain(index, entry["id"], "supersedes")
    entry["replaced_by_chain"] = forward
    entry["replaces_chain"] = backward
    entry["merged_into"] = state.get("merged_into", [])
    entry["current"] = [
        eid for eid in forward if not state_of(index, eid).get("superseded_by")
    ]
    entry["provenance"] = {
        "replaces": [_summary(index, eid) for eid in backward],
        "replaced_by": [_summary(index, eid) for eid in forward],
    }
    entry["reinforcements"] = state.get("reinforcements", 0)
    entry["contradictions"] = state.get("contradictions", 0)
    entry["reasons"] = state.get("reasons", [])
    if entry["status"] == "redacted":
        entry["content"] = "(redacted)"
    return entry


# The lines printed from the entry itself; a field of the same name never prints twice.
SHOWN = ("id", "key", "status", "confidence", "created", "author", "source", "path", "tags",
         "origin", "type", "kind")


def _line(item: dict[str, Any]) -> str:
    return f"{item['id'][-8:].lower()} [{item['status']}] {ui.first_line(item['content'], 70)}"


def run(ref: str, *, as_json: bool) -> int:
    index = open_index(discover())
    try:
        row = find_entry(index, ref)
        if row is None:
            raise NotFound(f"no entry {ref!r}")
        entry = gather(index, row)
    finally:
        index.close()
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

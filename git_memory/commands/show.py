"""`git memory show ID`: one entry, its fields, and its provenance both ways."""

from __future__ import annotations

import json

from git_memory import ui
from git_memory.errors import NotFound
from git_memory.index.db import find_entry, open_index
from git_memory.index.entries import entry_dict
from git_memory.store.locate import discover


def _chain(index, start: str, field: str) -> list[str]:  # type: ignore[no-untyped-def]
    """Follow supersedes/superseded_by links transitively, cycle-safe."""
    seen: list[str] = []
    todo = [start]
    while todo:
        current = todo.pop(0)
        row = index.conn.execute(
            "SELECT state FROM records WHERE id = ? AND kind = 'entry'", (current,)
        ).fetchone()
        state = json.loads(row["state"]) if row and row["state"] else {}
        for nxt in state.get(field, []):
            if nxt not in seen and nxt != start:
                seen.append(nxt)
                todo.append(nxt)
    return seen


def run(ref: str, as_json: bool) -> int:
    index = open_index(discover())
    try:
        row = find_entry(index, ref)
        if row is None:
            raise NotFound(f"no entry {ref!r}")
        entry = entry_dict(row)
        state = json.loads(row["state"]) if row["state"] else {}
        entry["replaced_by_chain"] = _chain(index, entry["id"], "superseded_by")
        entry["replaces_chain"] = _chain(index, entry["id"], "supersedes")
        entry["reinforcements"] = state.get("reinforcements", 0)
        entry["contradictions"] = state.get("contradictions", 0)
        entry["reasons"] = state.get("reasons", [])
        current = entry["replaced_by_chain"][-1] if entry["replaced_by_chain"] else None
    finally:
        index.close()
    if as_json:
        ui.out_json(entry)
        return 0
    ui.out(f"{entry['type'].upper()}: {entry['content']}")
    ui.out("")
    for name in ("id", "key", "status", "confidence", "created", "author", "source", "path"):
        if entry.get(name) not in (None, ""):
            ui.out(f"{name + ':':<12} {entry[name]}")
    if entry["tags"]:
        ui.out(f"{'tags:':<12} {', '.join(entry['tags'])}")
    if entry["origin"]:
        ui.out(f"{'origin:':<12} {json.dumps(entry['origin'], ensure_ascii=False)}")
    for name, value in entry["fields"].items():
        ui.out(f"{name + ':':<12} {value}")
    if entry["replaces_chain"]:
        ui.out(f"{'replaces:':<12} {' <- '.join(entry['replaces_chain'])}")
    if entry["replaced_by_chain"]:
        ui.out(f"{'replaced by:':<12} {' -> '.join(entry['replaced_by_chain'])}")
        ui.out(f"{'current:':<12} {current} (git memory show {current})")
    if entry["merged_from"]:
        ui.out(f"{'merged from:':<12} {', '.join(entry['merged_from'])}")
    if entry["reinforcements"] or entry["contradictions"]:
        ui.out(f"{'feedback:':<12} +{entry['reinforcements']} / -{entry['contradictions']}")
    for reason in entry["reasons"]:
        ui.out(f"{'note:':<12} {reason}")
    return 0

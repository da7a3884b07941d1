"""`git memory related ID`: the entries nearest to one entry in the knowledge graph
(shared paths, identifiers and tags, provenance neighbours), with scores and reasons."""

from __future__ import annotations

from typing import Any

from git_memory import ui
from git_memory.graph.model import Related
from git_memory.graph.query import related
from git_memory.index.db import open_index
from git_memory.index.graph import entries_by_ids
from git_memory.index.schema import Row
from git_memory.store.locate import discover


def run(ref: str, *, limit: int, as_json: bool) -> int:
    index = open_index(discover())
    try:
        found = related(index, entry_id=ref, limit=limit)
        rows = entries_by_ids(index, [r.entry_id for r in found])
    finally:
        index.close()
    if as_json:
        ui.out_json([to_dict(r, rows[r.entry_id]) for r in found if r.entry_id in rows])
        return 0
    if not found:
        ui.warn("no related entries: nothing else shares a path, identifier, tag or provenance")
        return 0
    for item in found:
        row = rows[item.entry_id]
        status = "" if row["status"] == "active" else f" [{row['status']}]"
        ui.out(f"{item.entry_id[-8:].lower()}  {item.score:6.2f}  {row['type']:<13} "
               f"{ui.first_line(row['content'], 70)}{status}")
        ui.out(f"{'':10}        {'; '.join(item.reasons)}")
    return 0


def to_dict(item: Related, row: Row) -> dict[str, Any]:
    """The JSON shape of one related entry (`related --json`, the MCP tool)."""
    return {"id": item.entry_id, "score": item.score, "reasons": item.reasons,
            "type": row["type"], "status": row["status"],
            "content": ui.first_line(str(row["content"]), 200)}

"""What `curate` proposes for entries a revert flagged (docs/curation.md, "Reverts"): the
commit they were captured from was undone, and whether what was learned still holds is a
person's call. Each gets the two decisions as commands, keep or drop; none is applied,
and none is part of the proposal's hash. Reads the index only."""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass

from git_memory.index.curating import reverted_entries
from git_memory.index.db import Index
from git_memory.model import short_id


@dataclass
class Reverted:
    id: str
    reverted_by: str  # the reverting commit
    reverts: str  # the commit the entry was captured from
    why: str
    keep: str  # the command that keeps it (a review's accept: canonical)
    drop: str  # the command that drops it (a review's reject: redacted)

    def as_dict(self) -> dict[str, str]:
        return asdict(self)


def find(index: Index) -> list[Reverted]:
    """Every entry whose revert flag is still in force, oldest first."""
    found: list[Reverted] = []
    for row in reverted_entries(index):
        flag = json.loads(row["state"]).get("reverted") or {}
        by, base = str(flag.get("by") or ""), str(flag.get("reverts") or "")
        branch = (json.loads(row["origin"] or "{}") or {}).get("branch")
        on = f" on {branch}" if branch else ""
        sid = short_id(row["id"])
        found.append(Reverted(
            row["id"], by, base,
            f"captured from {base[:12]}, which commit {by[:12]} reverted{on}",
            f'git memory review accept {sid} --reason "still holds after revert {by[:12]}"',
            f'git memory review reject {sid} --reason "undone by revert {by[:12]}"',
        ))
    return found

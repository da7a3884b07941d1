"""What `curate` proposes to promote to personal memory, and to demote again (the rules:
docs/sync.md, "Promotion and demotion"). Reads the index only. A promotion needs at least
one reinforcement: a manual entry starts at 0.8, and being typed once is not confirmation."""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass

from git_memory.index.db import Index
from git_memory.index.promotion import (
    in_sources, personal_holds, promoted_copies, reinforced, state_by_id, team_entries,
)
from git_memory.model import short_id

PROMOTE_CONFIDENCE = 0.8


@dataclass
class Promotion:
    action: str  # promote | demote
    id: str
    to: str  # promote: personal; demote: the memory holding the copy (personal | team)
    why: str
    command: str

    def as_dict(self) -> dict:
        return asdict(self)


def find(index: Index) -> list[Promotion]:
    """Promotions and demotions, in a fixed order (by the index's content only)."""
    hashes, origins = personal_holds(index)
    found: list[Promotion] = []
    proposed: set[str] = set()
    shared = in_sources(index)
    for row in team_entries(index, sorted(shared)):
        if row["hash"] in hashes or row["id"] in origins or row["id"] in proposed:
            continue
        names = shared[row["id"]]
        why = (f"reinforced in {1 + len(names)} repositories: this one and"
               f" {', '.join(names)} (memory.sources)")
        found.append(_promote(row["id"], why))
        proposed.add(row["id"])
    for row in reinforced(index, PROMOTE_CONFIDENCE):
        if row["hash"] in hashes or row["id"] in origins or row["id"] in proposed:
            continue
        times = json.loads(row["state"]).get("reinforcements", 0)
        why = f"confidence {row['confidence']:.2f} after {times} reinforcement(s)"
        found.append(_promote(row["id"], why))
        proposed.add(row["id"])
    for row in promoted_copies(index):
        doubt = _doubt(index, row)
        if doubt:
            where = "personal" if row["src"] == "personal" else "team"
            found.append(Promotion("demote", row["id"], where, doubt,
                                   f"git memory demote {short_id(row['id'])}"))
    return found


def _promote(entry_id: str, why: str) -> Promotion:
    return Promotion("promote", entry_id, "personal", why,
                     f"git memory promote {short_id(entry_id)} --to personal")


def _doubt(index: Index, row: object) -> str | None:
    """Why a promoted copy should be demoted, or None."""
    state = json.loads(row["state"] or "{}")  # type: ignore[index]
    if state.get("contradictions"):
        return "the promoted copy was contradicted"
    came = json.loads(row["fields"] or "{}").get("promoted_from") or {}  # type: ignore[index]
    original = state_by_id(index, str(came.get("id"))) if isinstance(came, dict) else None
    if original is None:
        return None
    status, its = original
    if its.get("contradictions"):
        return f"its original {short_id(str(came['id']))} was contradicted"
    if status in ("superseded", "redacted"):
        return f"its original {short_id(str(came['id']))} is {status}"
    return None

"""What `curate` proposes to promote to personal memory, and to demote again (the rules:
docs/sync.md, "Promotion and demotion"). Reads the index only. A promotion needs at least
one reinforcement: a manual entry starts at 0.8, and being typed once is not confirmation."""

from __future__ import annotations

import itertools
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
    in_several = ((row, f"reinforced in {1 + len(shared[row['id']])} repositories: this one and"
                        f" {', '.join(shared[row['id']])} (memory.sources)")
                  for row in team_entries(index, sorted(shared)))
    confirmed = ((row, f"confidence {row['confidence']:.2f} after"
                       f" {json.loads(row['state']).get('reinforcements', 0)} reinforcement(s)")
                 for row in reinforced(index, PROMOTE_CONFIDENCE))
    for row, why in itertools.chain(in_several, confirmed):
        if row["hash"] in hashes or row["id"] in origins or row["id"] in proposed:
            continue
        found.append(Promotion("promote", row["id"], "personal", why,
                               f"git memory promote {short_id(row['id'])} --to personal"))
        proposed.add(row["id"])
    for row in promoted_copies(index):
        doubt = _doubt(index, row)
        if doubt:
            where = "personal" if row["src"] == "personal" else "team"
            found.append(Promotion("demote", row["id"], where, doubt,
                                   f"git memory demote {short_id(row['id'])}"))
    return found


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

"""The fold: from immutable records to the current state of each entry.

Nothing on the memory branch is edited in place. An entry's status, what it
supersedes and what superseded it, its reinforcements and contradictions all come
from folding over the records, in an order that depends only on the records
themselves (created, then id), so two machines that merged in any order agree.
Pure Python; may import `model`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Iterable

from git_memory.model import Record

# Source sets the starting confidence: a human typed it, or a machine guessed it.
SOURCE_CONFIDENCE = {
    "manual": 0.8,
    "curate": 0.85,
    "commit": 0.75,
    "import": 0.6,
    "session": 0.6,
    "distill": 0.4,
}
EXPLICIT_STATUSES = ("active", "canonical", "needs_review")


@dataclass
class EntryState:
    """What the fold says about one entry."""

    status: str = "active"
    supersedes: list[str] = field(default_factory=list)
    superseded_by: list[str] = field(default_factory=list)
    merged_from: list[str] = field(default_factory=list)
    merged_into: list[str] = field(default_factory=list)
    reinforcements: int = 0
    contradictions: int = 0
    redacted: bool = False
    reasons: list[str] = field(default_factory=list)
    confidence: float = 0.6


@dataclass
class FoldResult:
    states: dict[str, EntryState]
    problems: list[str]


def _ids(value: object) -> list[str]:
    if isinstance(value, str):
        return [value] if value else []
    if isinstance(value, list):
        return [str(v) for v in value if v]
    return []


def _order(record: Record) -> tuple[str, str]:
    return (record.created, record.id)


def supersede_edges(record: Record) -> list[tuple[str, str]]:
    """(new, old) pairs this record asserts."""
    if record.kind == "entry":
        olds = _ids(record.fields.get("supersedes")) + _ids(record.fields.get("merged_from"))
        return [(record.id, old) for old in dict.fromkeys(olds)]
    if record.kind == "supersede":
        new = str(record.fields.get("by") or "")
        return [(new, old) for old in _ids(record.fields.get("target"))] if new else []
    return []


def is_curation(record: Record) -> bool:
    """Does this record change some other entry's state?"""
    return record.kind != "entry" or bool(supersede_edges(record))


def fold(entries: dict[str, Record], curation: Iterable[Record]) -> FoldResult:
    """Fold curation records over entries.

    `entries` maps id to entry record for every entry the caller knows about (the
    index passes only those that curation touches, plus their own fields).
    `curation` is every event record and every entry that supersedes others.
    """
    states = {eid: _initial(rec) for eid, rec in entries.items()}
    problems: list[str] = []
    ordered = sorted(curation, key=_order)
    _apply_supersedes(entries, states, ordered, problems)
    latest_status: dict[str, Record] = {}
    for record in ordered:
        targets = _ids(record.fields.get("target"))
        if record.kind in ("status", "reinforce", "contradict", "redact"):
            for target in targets:
                state = states.get(target)
                if state is None:
                    problems.append(f"{record.kind} {record.id} names unknown entry {target}")
                    continue
                _apply_event(record, state, latest_status, target)
    for target, record in latest_status.items():
        wanted = str(record.fields.get("status") or "")
        state = states[target]
        if wanted in EXPLICIT_STATUSES and state.status not in ("superseded", "redacted"):
            state.status = wanted
    for eid, state in states.items():
        state.confidence = confidence(entries[eid].source, state)
    return FoldResult(states, problems)


def _initial(record: Record) -> EntryState:
    own = str(record.fields.get("status") or "active")
    state = EntryState(status=own if own in EXPLICIT_STATUSES else "active")
    state.merged_from = _ids(record.fields.get("merged_from"))
    return state


def _reaches(graph: dict[str, set[str]], start: str, goal: str) -> bool:
    seen: set[str] = set()
    stack = [start]
    while stack:
        node = stack.pop()
        if node == goal:
            return True
        if node in seen:
            continue
        seen.add(node)
        stack.extend(graph.get(node, ()))
    return False


def _apply_supersedes(
    entries: dict[str, Record],
    states: dict[str, EntryState],
    ordered: list[Record],
    problems: list[str],
) -> None:
    graph: dict[str, set[str]] = {}
    for record in ordered:
        for new, old in supersede_edges(record):
            if new not in states or old not in states:
                missing = old if old not in states else new
                problems.append(f"{record.id} supersedes via unknown entry {missing}")
                continue
            if new == old or _reaches(graph, old, new):
                problems.append(f"{record.id}: {new} superseding {old} would make a cycle; ignored")
                continue
            graph.setdefault(new, set()).add(old)
            states[new].supersedes.append(old)
            states[old].superseded_by.append(new)
            if old in states[new].merged_from:
                states[old].merged_into.append(new)
            states[old].status = "superseded"
            reason = record.fields.get("review_reason")
            if reason:
                states[old].reasons.append(f"superseded by {new}: {reason}")


def _apply_event(
    record: Record, state: EntryState, latest: dict[str, Record], target: str
) -> None:
    reason = record.fields.get("review_reason")
    if record.kind == "reinforce":
        state.reinforcements += 1
    elif record.kind == "contradict":
        state.contradictions += 1
    elif record.kind == "redact":
        state.redacted = True
        state.status = "redacted"
    elif record.kind == "status":
        latest[target] = record
    if reason:
        state.reasons.append(f"{record.kind}: {reason}")


def confidence(source: str, state: EntryState) -> float:
    """Source sets the start; each reinforcement adds, each contradiction takes more away.

    Kept in [0.05, 0.99] so nothing is ever certain or erased by arithmetic alone.
    """
    value = SOURCE_CONFIDENCE.get(source, 0.6)
    value += 0.05 * min(state.reinforcements, 4)
    value -= 0.2 * state.contradictions
    if state.status == "canonical":
        value += 0.1
    return round(max(0.05, min(0.99, value)), 3)

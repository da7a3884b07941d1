"""The fold: from immutable records to each entry's current state and confidence.

Records are folded in (created, id) order, which depends on the records alone, so two
clones that merged in any order agree. A record naming an unknown entry or closing a
supersede cycle is skipped and reported in `FoldResult.problems`, never fatal."""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import lru_cache
from typing import Callable, Iterable

from git_memory.isotime import seconds
from git_memory.model import Record, utc_now

# Source sets the starting confidence: a human typed it, or a machine guessed it.
SOURCE_CONFIDENCE = {
    "manual": 0.8,
    "curate": 0.85,
    "commit": 0.75,
    "import": 0.6,
    "session": 0.6,
    "distill": 0.4,
}
DEFAULT_CONFIDENCE = 0.6
REINFORCE_STEP = 0.05
REINFORCE_CAP = 4
CONTRADICT_STEP = 0.2
CANONICAL_BONUS = 0.1
REVIEW_PENALTY = 0.1
DECAY_DAYS = 90  # every full 90 days without reinforcement ...
DECAY_STEP = 0.05  # ... costs this much,
DECAY_CAP = 0.2  # and idleness alone never costs more than this.
FLOOR, CEILING = 0.05, 0.99
EXPLICIT_STATUSES = ("active", "canonical", "needs_review")
EVENT_TARGETING = ("status", "reinforce", "contradict", "redact")


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
    confidence: float = DEFAULT_CONFIDENCE
    last_reinforced: str = ""
    # Set while the status in force is a revert's flag (docs/curation.md, "Reverts"): the
    # reverting commit (`by`), the reverted one (`reverts`), the status before (`was`).
    reverted: dict[str, str] = field(default_factory=dict)


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


def fold(
    entries: dict[str, Record], curation: Iterable[Record], now: str | None = None
) -> FoldResult:
    """Fold `curation` (every event record and every entry that supersedes others) over
    `entries` (id -> entry; the index passes only those curation touches). Confidence
    decays against `now`, by default the newest readable `created` among the records."""
    ordered = sorted(curation, key=lambda record: (record.created, record.id))
    if now is None:
        stamps = [r.created for r in (*entries.values(), *ordered) if seconds(r.created)]
        now = max(stamps, default="")
    states = {eid: _initial(rec) for eid, rec in sorted(entries.items())}
    problems: list[str] = []
    _apply_supersedes(states, ordered, problems)
    latest_status: dict[str, Record] = {}
    for record in ordered:
        if record.kind not in EVENT_TARGETING:
            continue
        for target in _ids(record.fields.get("target")):
            state = states.get(target)
            if state is None:
                if not (record.kind == "redact" and record.fields.get("content_hash")):
                    problems.append(f"{record.kind} {record.id} names unknown entry {target}")
                continue  # a redact whose entry was purged is the expected end state
            _apply_event(record, state, latest_status, target)
    for target, record in sorted(latest_status.items()):
        wanted = str(record.fields.get("status") or "")
        state = states[target]
        if wanted in EXPLICIT_STATUSES and state.status not in ("superseded", "redacted"):
            state.status = wanted
            if record.fields.get("reverted_by"):
                state.reverted = {name: str(record.fields.get(field_name) or "") for name, field_name
                                  in (("by", "reverted_by"), ("reverts", "reverts"), ("was", "was"))}
    for eid, state in states.items():
        entry = entries[eid]
        state.confidence = confidence(entry.source, state, entry.created, now)
    return FoldResult(states, problems)


def _initial(record: Record) -> EntryState:
    own = str(record.fields.get("status") or "active")
    state = EntryState(status=own if own in EXPLICIT_STATUSES else "active")
    state.merged_from = _ids(record.fields.get("merged_from"))
    return state


def reaches(supersedes: Callable[[str], Iterable[str]], start: str, goal: str) -> bool:
    """Does `start` replace `goal`, directly or through others? `supersedes(x)` gives
    the entries x replaces (a graph in memory for the fold, index rows for curation)."""
    seen: set[str] = set()
    stack = [start]
    while stack:
        node = stack.pop()
        if node == goal:
            return True
        if node in seen:
            continue
        seen.add(node)
        stack.extend(supersedes(node))
    return False


def _apply_supersedes(
    states: dict[str, EntryState], ordered: list[Record], problems: list[str]
) -> None:
    """Add supersede edges in record order (the same on every machine): an edge that
    closes a cycle loses."""
    graph: dict[str, set[str]] = {}
    for record in ordered:
        for new, old in supersede_edges(record):
            if new not in states or old not in states:
                missing = old if old not in states else new
                problems.append(f"{record.id} supersedes via unknown entry {missing}")
                continue
            if old in graph.get(new, ()):
                continue  # the same edge said twice (two clones agreed): once is enough
            if new == old or reaches(lambda node: graph.get(node, ()), old, new):
                problems.append(f"{record.id}: {new} superseding {old} would make a cycle; ignored")
                continue
            graph.setdefault(new, set()).add(old)
            states[new].supersedes.append(old)
            states[old].superseded_by.append(new)
            if old in states[new].merged_from:
                states[old].merged_into.append(new)
            if states[old].status != "redacted":
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
        state.last_reinforced = max(state.last_reinforced, record.created)
    elif record.kind == "contradict":
        state.contradictions += 1
    elif record.kind == "redact":
        state.redacted = True
        state.status = "redacted"
    elif record.kind == "status":
        latest[target] = record
    if reason:
        state.reasons.append(f"{record.kind}: {reason}")


# A build computes the decay of every entry against one `now`, and `created` values
# repeat (a day's imports): each read once. Bounded, as the stamps are many.
_seconds = lru_cache(maxsize=1 << 14)(seconds)


def decay(last: str, now: str) -> float:
    """What idleness costs: DECAY_STEP per full DECAY_DAYS from `last` to `now`, capped."""
    start, end = _seconds(last), _seconds(now)
    if start is None or end is None or end <= start:
        return 0.0
    periods = (end - start) // (DECAY_DAYS * 86400)
    return min(DECAY_CAP, DECAY_STEP * periods)


def decay_windows(before: str, now: str) -> list[tuple[str, str]] | None:
    """The `created` stamps whose decay grew when the clock moved from `before` to `now`:
    for each count k of idle periods that still costs, (before - k periods, now - k
    periods], as stamps that compare as text; None when either time is unreadable."""
    start, end = _seconds(before), _seconds(now)
    if start is None or end is None:
        return None
    period = DECAY_DAYS * 86400
    return [(utc_now(start - k * period), utc_now(end - k * period))
            for k in range(1, round(DECAY_CAP / DECAY_STEP) + 1)]


def confidence(source: str, state: EntryState, created: str = "", now: str = "") -> float:
    """The confidence rule (docs/curation.md states it for people). Kept in [FLOOR,
    CEILING] so nothing is ever certain or erased by arithmetic alone."""
    value = SOURCE_CONFIDENCE.get(source, DEFAULT_CONFIDENCE)
    value += REINFORCE_STEP * min(state.reinforcements, REINFORCE_CAP)
    value -= CONTRADICT_STEP * state.contradictions
    if state.status == "canonical":
        value += CANONICAL_BONUS
    elif state.status == "needs_review":
        value -= REVIEW_PENALTY
    value -= decay(max(created, state.last_reinforced), now)
    return round(max(FLOOR, min(CEILING, value)), 3)


def plain_confidence(source: str | None, created: str | None, now: str) -> float:
    """`confidence()` of an entry no curation touched (source and decay only): what the
    index stores for most rows, made where a build makes the rows and, as the SQL
    function `plain_confidence(source, created, now)`, where the index updates them."""
    return confidence(source or "", _UNTOUCHED, created or "", now)


_UNTOUCHED = EntryState()

"""The fold: deterministic whatever the record order, safe with cycles and unknown ids,
and the confidence rule (source, reinforcement, contradiction, decay) as documented."""

from __future__ import annotations

import itertools
import random

from git_memory.fold import (
    EntryState,
    confidence,
    decay,
    fold,
)
from git_memory.model import Record


def entry(eid: str, created: str = "2026-01-01T00:00:00Z", source: str = "manual",
          **fields: object) -> Record:
    return Record(id=eid, type="learned", content=f"text {eid}", created=created,
                  source=source, fields=dict(fields))


def event(eid: str, kind: str, target: str, created: str, **fields: object) -> Record:
    return Record(id=eid, kind=kind, created=created,
                  fields={"target": target, "review_reason": "why", **fields})


def snapshot(result) -> dict:  # type: ignore[no-untyped-def]
    return {eid: (s.status, sorted(s.supersedes), sorted(s.superseded_by), s.confidence)
            for eid, s in result.states.items()}


def test_two_clones_curating_the_same_pair_fold_the_same_in_any_order() -> None:
    x, y = entry("X"), entry("Y", "2026-01-02T00:00:00Z")
    merged = entry("Z", "2026-01-04T00:00:00Z", source="curate",
                   merged_from=["X", "Y"], status="canonical")
    records = [
        event("S1", "supersede", "X", "2026-01-03T00:00:00Z", by="Y"),  # clone A
        merged,  # clone B
        event("R1", "reinforce", "Z", "2026-01-05T00:00:00Z"),
        event("F1", "status", "Y", "2026-01-05T00:00:01Z", status="needs_review"),
    ]
    entries = {"X": x, "Y": y, "Z": merged}
    seen = set()
    for perm in itertools.permutations(records):
        result = fold(dict(reversed(list(entries.items()))), list(perm))
        seen.add(repr(snapshot(result)))
    assert len(seen) == 1
    result = fold(entries, records)
    assert result.states["X"].status == "superseded"
    assert result.states["Y"].status == "superseded"  # superseded beats a later flag
    assert result.states["Z"].status == "canonical"
    assert sorted(result.states["X"].superseded_by) == ["Y", "Z"]
    assert result.states["X"].merged_into == ["Z"]
    assert result.problems == []


def test_cycles_and_unknown_ids_are_reported_not_fatal() -> None:
    entries = {k: entry(k) for k in "ABC"}
    records = [
        event("E1", "supersede", "A", "2026-02-01T00:00:00Z", by="B"),
        event("E2", "supersede", "B", "2026-02-02T00:00:00Z", by="C"),
        event("E3", "supersede", "C", "2026-02-03T00:00:00Z", by="A"),  # closes a cycle
        event("E4", "supersede", "A", "2026-02-04T00:00:00Z", by="A"),  # self
        event("E5", "reinforce", "NOPE", "2026-02-05T00:00:00Z"),
        event("E6", "supersede", "GHOST", "2026-02-06T00:00:00Z", by="A"),
    ]
    for _ in range(5):
        random.shuffle(records)
        result = fold(entries, records)
        assert result.states["A"].status == "superseded"
        assert result.states["B"].status == "superseded"
        assert result.states["C"].status == "active"  # the edge closing the cycle lost
        assert any("cycle" in p and "E3" in p for p in result.problems)
        assert any("E4" in p for p in result.problems)
        assert any("NOPE" in p for p in result.problems)
        assert any("GHOST" in p for p in result.problems)


def test_a_redact_whose_entry_was_purged_is_not_a_problem() -> None:
    records = [event("R", "redact", "GONE", "2026-01-01T00:00:00Z", content_hash="ab" * 20)]
    assert fold({}, records).problems == []
    records = [event("R", "redact", "GONE", "2026-01-01T00:00:00Z")]
    assert fold({}, records).problems  # without the hash it is just an unknown id


def test_redaction_wins_over_everything() -> None:
    entries = {"A": entry("A"), "B": entry("B")}
    records = [
        event("R", "redact", "A", "2026-01-02T00:00:00Z"),
        event("S", "supersede", "A", "2026-01-03T00:00:00Z", by="B"),
        event("F", "status", "A", "2026-01-04T00:00:00Z", status="canonical"),
    ]
    assert fold(entries, records).states["A"].status == "redacted"


def test_latest_status_record_wins_by_created_then_id() -> None:
    entries = {"A": entry("A")}
    records = [
        event("B2", "status", "A", "2026-01-03T00:00:00Z", status="canonical"),
        event("B1", "status", "A", "2026-01-02T00:00:00Z", status="needs_review"),
    ]
    assert fold(entries, records).states["A"].status == "canonical"
    records.append(event("B3", "status", "A", "2026-01-04T00:00:00Z", status="active"))
    assert fold(entries, records).states["A"].status == "active"


def test_confidence_rule() -> None:
    now = "2026-01-01T00:00:00Z"
    base = confidence("manual", EntryState(), now, now)
    assert base == 0.8
    assert confidence("distill", EntryState(), now, now) == 0.4
    assert confidence("manual", EntryState(reinforcements=2), now, now) == 0.9
    assert confidence("manual", EntryState(reinforcements=9), now, now) == 0.99  # capped
    assert confidence("manual", EntryState(contradictions=1), now, now) == 0.6
    assert confidence("manual", EntryState(contradictions=9), now, now) == 0.05  # floor
    assert confidence("commit", EntryState(status="canonical"), now, now) == 0.85
    assert confidence("manual", EntryState(status="needs_review"), now, now) == 0.7


def test_decay_counts_full_periods_since_the_last_reinforcement() -> None:
    created = "2025-01-01T00:00:00Z"
    assert decay(created, "2025-03-31T00:00:00Z") == 0.0  # 89 days
    assert decay(created, "2025-04-01T00:00:00Z") == 0.05  # 90 days
    assert decay(created, "2030-01-01T00:00:00Z") == 0.2  # capped
    assert decay("garbage", "2030-01-01T00:00:00Z") == 0.0
    idle = EntryState()
    assert confidence("manual", idle, created, "2025-07-01T00:00:00Z") == 0.7
    fresh = EntryState(reinforcements=1, last_reinforced="2025-06-30T00:00:00Z")
    assert confidence("manual", fresh, created, "2025-07-01T00:00:00Z") == 0.85


def test_fold_decays_against_the_newest_record_not_the_wall_clock() -> None:
    entries = {"A": entry("A", "2020-01-01T00:00:00Z"), "B": entry("B", "2021-01-01T00:00:00Z")}
    records = [event("C", "contradict", "A", "2020-01-02T00:00:00Z")]
    first = fold(entries, records)
    assert first.states["A"].confidence == 0.4  # 0.8 - 0.2 - 0.2 (a year idle, capped)
    assert fold(entries, records).states["A"].confidence == first.states["A"].confidence
    assert fold(entries, records, now="2020-01-02T00:00:00Z").states["A"].confidence == 0.6


def test_index_decay_pass_visits_only_what_changed_and_agrees_with_a_full_pass(
    tmp_path,  # type: ignore[no-untyped-def]
) -> None:
    from git_memory.index.db import _new_db
    from git_memory.index.build.refold import _plain_confidence

    conn = _new_db(tmp_path / "i.sqlite")

    def insert(created: str, source: str = "manual") -> None:
        conn.execute(
            "INSERT INTO records(id, kind, content, tags, created, source, anchors, path, blob)"
            " VALUES (?, 'entry', 'x', '[]', ?, ?, '', ?, 'b')",
            (created + source, created, source, created + source),
        )

    def stored() -> dict:
        return dict(conn.execute("SELECT id, confidence FROM records").fetchall())

    def expected(now: str) -> dict:
        return {r[0]: confidence(r[2], EntryState(), r[1], now)
                for r in conn.execute("SELECT id, created, source FROM records")}

    for created in ("2025-01-01T00:00:00Z", "2025-03-15T12:00:00Z", "2024-01-01T00:00:00Z"):
        insert(created)
    _plain_confidence(conn, "2025-03-20T00:00:00Z")  # first pass: everything
    assert stored() == expected("2025-03-20T00:00:00Z")
    insert("2023-05-05T00:00:00Z", "import")  # arrives later, old: decays at the next pass
    for now in ("2025-04-01T00:00:00Z", "2025-06-14T00:00:00Z", "2025-06-13T12:00:01Z",
                "2026-02-01T00:00:00Z", "2031-01-01T00:00:00Z"):
        _plain_confidence(conn, now)
        assert stored() == expected(now), now

"""index.decay: an entry's decayed confidence worked out in Python is SQLite's, to the bit.

The build inserts what `Decay.of` gives instead of evaluating fold.plain_confidence_sql
per row, so the two must agree for every `created` Decay accepts (exact multiples of the
decay period included, where a rounding would tip the count), and Decay must refuse
(None: SQLite evaluates the rule) whatever it does not read the way SQLite does.
"""

from __future__ import annotations

import random
import sqlite3
from datetime import datetime, timedelta, timezone

import pytest

from git_memory.fold import DECAY_DAYS, SOURCE_CONFIDENCE, plain_confidence_sql
from git_memory.index.decay import Decay, julian_ms

SOURCES = (*SOURCE_CONFIDENCE, "weird", "", None)


def _sql(conn: sqlite3.Connection, now: str, source: str | None, created: str) -> float:
    return conn.execute(
        f"SELECT {plain_confidence_sql('?')} FROM (SELECT ? AS source, ? AS created)",
        (now, source, created)).fetchone()[0]


def _stamp(at: datetime) -> str:
    return at.strftime("%Y-%m-%dT%H:%M:%SZ")


def _createds(now: str, rng: random.Random) -> list[str]:
    base = datetime.strptime(now, "%Y-%m-%dT%H:%M:%SZ").replace(tzinfo=timezone.utc)
    out = []
    for periods in range(0, 8):  # exactly k periods back, and a second either side
        for shift in (-1, 0, 1):
            out.append(_stamp(base - timedelta(days=periods * DECAY_DAYS, seconds=shift)))
    for _ in range(400):  # anywhere in four years either side, to the second
        out.append(_stamp(base + timedelta(seconds=rng.randint(-4 * 366 * 86400, 366 * 86400))))
    out += ["2024-02-29T12:00:00Z", "2025-02-30T00:00:00Z", "2025-04-31T23:59:59Z",
            "0001-01-01T00:00:00Z", "9999-12-31T23:59:59Z", "1582-10-10T00:00:00Z",
            "2025-06-01T12:00:00.750Z", "2025-06-01T12:00:00+02:00", "2025-06-01T12:00:00"]
    return out


@pytest.mark.parametrize("now", ["2026-01-01T00:00:00Z", "2024-03-01T00:00:00Z",
                                 "2026-11-27T13:45:07Z", "2000-02-29T23:59:59Z"])
def test_decay_agrees_with_the_sql_rule(now: str) -> None:
    conn = sqlite3.connect(":memory:")
    decay = Decay(now)
    rng = random.Random(now)
    checked = 0
    for created in _createds(now, rng):
        for source in SOURCES:
            mine = decay.of(source, created)
            assert mine is not None, created
            assert mine == _sql(conn, now, source, created), (now, source, created)
            checked += 1
    assert checked > 2000


def test_decay_leaves_what_it_does_not_read_to_sqlite() -> None:
    decay = Decay("2026-01-01T00:00:00Z")
    for created in ("", "not a date", "2025-13-01T00:00:00Z", "2025-00-10T00:00:00Z",
                    "2025-01-32T00:00:00Z", "2025-01-01", "2025-01-01 10:00:00Z",
                    "2025-01-01T24:00:00Z", "2025-01-01T10:60:00Z", "25-01-01T00:00:00Z",
                    "２０２５-01-01T00:00:00Z"):
        assert decay.of("manual", created) is None, created
        assert julian_ms(created) is None
    with pytest.raises(ValueError):
        Decay("yesterday")


def test_rows_replace_only_an_entrys_confidence() -> None:
    decay = Decay("2026-01-01T00:00:00Z")
    entry = (1, "A", "entry", "learned", "x", "[]", "2024-01-01T00:00:00Z", "", "manual", None,
             "{}", "{}", "", "p", "b", "h", 0, 0.8)
    odd = entry[:6] + ("someday",) + entry[7:]
    event = (2, "B", "reinforce", None, "", "[]", "2020-01-01T00:00:00Z", "", "manual", None,
             "{}", "{}", "", "q", "c", None, 1, 0.8)
    rows = [decay.row(r) for r in (entry, odd, event)]
    assert rows[0][:17] == entry[:17] and rows[0][17] == 0.6  # two years idle: capped at 0.2
    assert rows[1][17] is None  # SQLite works it out
    assert rows[2] == event

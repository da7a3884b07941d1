"""The confidence an entry goes into a build with, computed in Python as SQLite would.

A build puts entries in with the confidence the fold will give an entry no curation
touches (fold.plain_confidence_sql: the source's, less the decay counted from the
entry's `created` to the build's `now`). Evaluated by SQLite for each row, that rule
(two `julianday` calls, a CASE, MIN/MAX, ROUND) was a quarter of the `records`
insert; here the worker processes work it out beside the parsing, and the builder
only binds the value.

The result must be SQLite's to the last bit: `idle` is computed with SQLite's own
arithmetic (its `computeJD` in integers, the same double divisions and truncation),
and the value for each (source, idle) is read from SQLite once per build, evaluating
the rule itself (`Decay.__init__`). A `created` that is not a plain
`YYYY-MM-DDTHH:MM:SS...` time gives None: the insert statement then evaluates the
rule in SQLite as before (buildwriters.insert_records).

Write side only (index.build, index.buildproc). May import `fold` and `index.schema`.
"""

from __future__ import annotations

import re
import sqlite3
from typing import Any

from git_memory.fold import DECAY_CAP, DECAY_DAYS, DECAY_STEP, SOURCE_CONFIDENCE, plain_confidence_sql

_TIME = re.compile(
    r"([0-9]{4})-(0[1-9]|1[0-2])-(0[1-9]|[12][0-9]|3[01])T([01][0-9]|2[0-3]):([0-5][0-9]):([0-5][0-9])")
_DAY_MS = 86400000
# Idle periods past which the decay no longer grows (it is capped): every larger count
# gives the value of this one.
_MOST = int(DECAY_CAP / DECAY_STEP) + 2
_OTHER = ""  # a source SOURCE_CONFIDENCE does not name


def julian_ms(stamp: str) -> int | None:
    """SQLite's `iJD` (Julian day in milliseconds) of the first 19 characters of
    `stamp`, as `julianday(substr(stamp, 1, 19))` computes it; None unless they are a
    plain time SQLite reads whole (then the caller leaves the row to SQLite)."""
    found = _TIME.match(stamp)
    if found is None:
        return None
    year, month, day, hours, minutes, secs = map(int, found.groups())
    if month <= 2:  # sqlite3's computeJD, with C's integer division (all positive here)
        year -= 1
        month += 12
    a = year // 100
    b = 2 - a + a // 4
    x1 = 36525 * (year + 4716) // 100
    x2 = 306001 * (month + 1) // 10000
    # (x1 + x2 + day + b - 1524.5) * 86400000, exact in doubles and here in integers
    return (2 * (x1 + x2 + day + b) - 3049) * (_DAY_MS // 2) + (
        hours * 3600000 + minutes * 60000 + secs * 1000)


class Decay:
    """The confidence of an untouched entry at `now` (a time buildwriters.TIME_RE
    accepts), by source and `created`: `of(source, created)`."""

    def __init__(self, now: str) -> None:
        now_ms = julian_ms(now)
        if now_ms is None:
            raise ValueError(f"not a time: {now!r}")
        self.now_days = now_ms / _DAY_MS
        self.seen: dict[str, int] = {}  # idle periods by `created` (dates repeat)
        self.table = _values(now)

    def of(self, source: str | None, created: str) -> float | None:
        idle = self.seen.get(created)
        if idle is None:
            at = julian_ms(created)
            if at is None:
                return None
            # CAST((julianday(now) - julianday(created)) / DECAY_DAYS AS INTEGER): the
            # same doubles, divided and truncated toward zero the same way
            idle = min(_MOST, max(0, int((self.now_days - at / _DAY_MS) / DECAY_DAYS)))
            if len(self.seen) >= 16384:
                self.seen.clear()
            self.seen[created] = idle
        values = self.table.get(source) if source is not None else None
        return (values or self.table[_OTHER])[idle]

    def row(self, r: tuple[Any, ...]) -> tuple[Any, ...]:
        """A `records` row (write.INSERT_RECORD's columns: kind 2, created 6, source 8,
        confidence 17) with an entry's confidence replaced by its decayed value, or None
        where SQLite must work it out; any other row as it is."""
        return r[:17] + (self.of(r[8], r[6]),) if r[2] == "entry" else r


def _values(now: str) -> dict[str, list[float]]:
    """For each source (and _OTHER), the rule's value after 0.._MOST idle periods, as
    SQLite evaluates fold.plain_confidence_sql: for `created` half a period inside each
    count, so no rounding can put it in the next."""
    conn = sqlite3.connect(":memory:")
    try:
        rule = plain_confidence_sql("?")
        out: dict[str, list[float]] = {}
        for source in (*SOURCE_CONFIDENCE, _OTHER):
            out[source] = [
                conn.execute(
                    f"SELECT {rule} FROM (SELECT ? AS source, strftime('%Y-%m-%dT%H:%M:%SZ', ?,"
                    " ?) AS created)",
                    (now, source or None, now, f"-{n * DECAY_DAYS + DECAY_DAYS // 2} days"),
                ).fetchone()[0]
                for n in range(_MOST + 1)
            ]
        return out
    finally:
        conn.close()

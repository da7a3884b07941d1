"""The one reader of the timestamps records carry (ISO 8601, UTC: 2026-11-26T03:40:12Z).

Records, the index and the command line compare times as epoch seconds; this is where a
stamp becomes one. Pure Python.
"""

from __future__ import annotations


def epoch(stamp: str) -> float:
    """Seconds since the epoch of an ISO timestamp (its first 19 characters) read as UTC;
    ValueError (or TypeError) when it is not one. Not `time.strptime`: that imports calendar
    and locale, 3 ms of every recall; `datetime` is loaded by sqlite3 already."""
    from datetime import datetime, timezone

    return datetime.fromisoformat(stamp[:19]).replace(tzinfo=timezone.utc).timestamp()


def seconds(stamp: str) -> int | None:
    """Whole epoch seconds of an ISO timestamp; None when it cannot be read."""
    try:
        return int(epoch(stamp))
    except (ValueError, TypeError):
        return None

"""The one reader of the timestamps records carry (ISO 8601, UTC: 2026-11-26T03:40:12Z):
a stamp made epoch seconds, a command line's `--since` (a date or an age) made a stamp."""

from __future__ import annotations

import re
import time

from git_memory.errors import UsageProblem

_AGO = re.compile(r"^(\d+)\s*(m|min|h|d|w|mo|y)$")
_UNITS = {"m": 60, "min": 60, "h": 3600, "d": 86400, "w": 604800, "mo": 2592000, "y": 31536000}
_DATE = re.compile(r"^\d{4}-\d{2}-\d{2}([T ]\d{2}:\d{2}(:\d{2})?)?Z?$")


def epoch(stamp: str) -> float:
    """Seconds since the epoch of an ISO timestamp (its first 19 characters) read as UTC;
    ValueError (or TypeError) when it is not one. Not `time.strptime`: that imports calendar
    and locale, 3 ms of every recall; `datetime` is loaded by sqlite3 already."""
    from datetime import datetime, timezone  # lazy: a hook that reads no stamp skips it

    return datetime.fromisoformat(stamp[:19]).replace(tzinfo=timezone.utc).timestamp()


def seconds(stamp: str) -> int | None:
    """Whole epoch seconds of an ISO timestamp; None when it cannot be read."""
    try:
        return int(epoch(stamp))
    except (ValueError, TypeError):
        return None


def parse_since(value: str, now: float | None = None) -> str:
    """An ISO timestamp from '7d', '2w', '3mo', '1y', '12h' or a date; UsageProblem otherwise."""
    text = value.strip().lower()
    match = _AGO.match(text)
    if match:
        try:  # an age before 1970 is 1970: no entry is older
            then = (now or time.time()) - int(match.group(1)) * _UNITS[match.group(2)]
            return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(max(then, 0)))
        except (OverflowError, OSError, ValueError):  # beyond what a time_t holds
            raise UsageProblem(f"--since: {value[:40]!r} is further back than a date goes") from None
    if _DATE.match(value.strip()):
        stamp = value.strip().rstrip("Zz").replace(" ", "T")
        stamp += "T00:00:00"[len(stamp) - 10:] if len(stamp) < 19 else ""
        try:
            epoch(stamp)
        except ValueError:
            raise UsageProblem(f"--since: {value!r} is not a valid date") from None
        return stamp[:19] + "Z"
    raise UsageProblem(f"--since: expected a date (2026-01-31) or an age (7d, 2w, 3mo), not {value!r}")

"""Terminal output shared by commands: plain lines, JSON, progress on a terminal.

Commands write through here (not click) so they stay plain functions.
"""

from __future__ import annotations

import json
import sys
import time

from git_memory import isotime

# `typing` costs recall ~2 ms to import and is only needed by the type checker here.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, Callable


def out(text: str = "") -> None:
    sys.stdout.write(text + "\n")


def warn(text: str) -> None:
    sys.stderr.write(text + "\n")


def out_json(value: Any) -> None:
    sys.stdout.write(json.dumps(value, ensure_ascii=False, indent=2) + "\n")


def progress(label: str) -> Callable[[int, int], None] | None:
    """A progress callback that redraws one stderr line, or None off a terminal."""
    if not sys.stderr.isatty():
        return None
    last = [0.0]

    def show(done: int, total: int) -> None:
        now = time.monotonic()
        if done < total and now - last[0] < 0.1:
            return
        last[0] = now
        pct = 100 * done // total if total else 100
        end = "\n" if done >= total else ""
        sys.stderr.write(f"\r{label}: {done}/{total} ({pct}%){end}")
        sys.stderr.flush()

    return show


def age(created: str, now: float | None = None) -> str:
    """'3d ago' style age of an ISO timestamp; '' when unparseable."""
    then = isotime.seconds(created)
    if then is None:
        return ""
    secs = max(0, int((now or time.time()) - then))
    for unit, size in (("y", 31536000), ("mo", 2592000), ("d", 86400), ("h", 3600), ("m", 60)):
        if secs >= size:
            return f"{secs // size}{unit} ago"
    return "just now"


def first_line(text: str, width: int = 100) -> str:
    line = text.strip().split("\n", 1)[0]
    return line if len(line) <= width else line[: width - 1] + "…"


_PLURALS = {"entry": "entries", "proposal": "proposals"}


def plural(count: int, word: str) -> str:
    """'1 entry', '2 entries', '0 changes': the count and the word in the right number."""
    if count == 1:
        return f"{count} {word}"
    return f"{count} {_PLURALS.get(word, word + 's')}"

"""Output shared by commands (not click's, so they stay plain functions): lines, JSON,
progress on a terminal."""

from __future__ import annotations

import json
import os
import sys
import time
from collections.abc import Callable, Iterable

from git_memory import isotime

# `typing` is off the hot path (docs/architecture.md): for the type checker only.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any


def out(text: str = "") -> None:
    sys.stdout.write(text + "\n")


def warn(text: str) -> None:
    sys.stderr.write(text + "\n")


def out_json(value: Any) -> None:
    sys.stdout.write(json.dumps(value, ensure_ascii=False, indent=2) + "\n")


def out_first(text: str) -> None:
    """A line written and flushed at once: a streaming command's first line reaches a
    pipe (`| head -1`) without waiting for the block buffer to fill."""
    sys.stdout.write(text + "\n")
    sys.stdout.flush()


def reader_left() -> int:
    """A streaming command's reader closed the pipe (`| head -1`): stop quietly. Standard
    output is pointed at /dev/null so the final flush at exit cannot fail again."""
    try:
        null = os.open(os.devnull, os.O_WRONLY)
        os.dup2(null, sys.stdout.fileno())
        os.close(null)
    except (OSError, ValueError):
        pass  # stdout is no real file (a test's buffer): nothing will flush to a pipe
    return 0


def out_json_list(items: Iterable[Any]) -> None:
    """A JSON list written one item at a time, byte for byte what `out_json(list(items))`
    writes, so a long listing streams instead of being built whole first."""
    count = _write_items(items, "  ")
    sys.stdout.write("\n]\n" if count else "[]\n")


def out_json_streamed(value: dict[str, Any], key: str, items: Iterable[Any]) -> None:
    """`out_json` of `value` with `value[key]` the list of `items`, byte for byte, but the
    items encoded and written one at a time (a large list is never held whole)."""
    mark = "\x00streamed\x00"
    text = json.dumps({**value, key: mark}, ensure_ascii=False, indent=2)
    before, after = text.split(json.dumps(mark), 1)
    sys.stdout.write(before)
    count = _write_items(items, "    ")
    sys.stdout.write(("\n  ]" if count else "[]") + after + "\n")


def _write_items(items: Iterable[Any], pad: str) -> int:
    """A JSON list's opening and items, each indented by `pad`; how many. The first is
    flushed at once: a pipe's reader sees it without waiting for the buffer to fill."""
    count = 0
    for item in items:
        text = json.dumps(item, ensure_ascii=False, indent=2).replace("\n", "\n" + pad)
        sys.stdout.write(("[\n" if count == 0 else ",\n") + pad + text)
        if count == 0:
            sys.stdout.flush()
        count += 1
    return count


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


_PLURALS = {"entry": "entries", "proposal": "proposals", "reverted entry": "reverted entries"}


def plural(count: int, word: str) -> str:
    """'1 entry', '2 entries', '0 changes': the count and the word in the right number."""
    if count == 1:
        return f"{count} {word}"
    return f"{count} {_PLURALS.get(word, word + 's')}"

"""Find knowledge markers ("LEARNED: ...", "**DECISION:** ...") in free text.

A marker counts only at the start of a line (after indentation or a list bullet), never
inside fenced code or a block quote, so examples and quotations are not captured. The
entry runs on over the following lines until a blank line, another marker, a list item,
a heading or a fence. Pure Python.
"""

from __future__ import annotations

import re

from git_memory.model import ENTRY_TYPES

_TYPES = "|".join(t.upper() for t in ENTRY_TYPES)
_MARKER = re.compile(
    r"^[ \t]*(?:[-*+][ \t]+)?(?:\*\*|__)?(" + _TYPES + r")(?::(?:\*\*|__)?|(?:\*\*|__):)[ \t]*(.*)$"
)
_FENCE = re.compile(r"^[ \t]*(```|~~~)")
_STOP = re.compile(r"^[ \t]*(?:[-*+][ \t]|#|\d+[.)][ \t]|>)")


def find_markers(text: str) -> list[tuple[str, str]]:
    """(type, text) for every marker in `text`, in order, without repeats."""
    found: list[tuple[str, str]] = []
    current: tuple[str, list[str]] | None = None
    in_fence = False

    def close() -> None:
        nonlocal current
        if current is not None:
            body = "\n".join(current[1]).strip()
            if body and (current[0], body) not in found:
                found.append((current[0], body))
        current = None

    for line in text.splitlines():
        if _FENCE.match(line):
            close()
            in_fence = not in_fence
            continue
        if in_fence:
            continue
        match = _MARKER.match(line)
        if match:
            close()
            current = (match.group(1).lower(), [match.group(2).strip()])
            continue
        if current is None:
            continue
        if not line.strip() or _STOP.match(line):
            close()
        else:
            current[1].append(line.strip())
    close()
    return found

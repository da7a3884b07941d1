"""Find knowledge markers ("LEARNED: ...", "**DECISION:** ...") in free text.

A marker counts only at a line's start (after indentation or a bullet), never inside fenced
code or a block quote, so examples and quotations are not captured. It runs on until a blank
line, another marker, a list item, a heading or a fence.
"""

from __future__ import annotations

import hashlib
import re

from git_memory.model import ENTRY_TYPES, normalise_for_dedup

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


def item_key(prefix: str, session_id: str, type_: str, text: str) -> str:
    """The key of an item found in a session: importing or distilling it again adds nothing."""
    digest = hashlib.sha1(f"{type_}\n{normalise_for_dedup(text)}".encode("utf-8")).hexdigest()
    return f"{prefix}-{session_id}-{digest[:16]}"

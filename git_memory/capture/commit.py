"""Markers in commit messages: markers, trailers, continuation lines, #tags. Pure text
work (the commit-msg hook uses it without pygit2 or the writer).
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass, field

from git_memory.model import ENTRY_TYPES, normalise_for_dedup


_UPPER = "|".join(t.upper() for t in ENTRY_TYPES)
_TITLE = "|".join(t.capitalize() for t in ENTRY_TYPES)
# `LEARNED: x` (may be indented) or a trailer `Learned: x` at the line start.
MARKER_LINE = re.compile(rf"^[ \t]*(?P<upper>{_UPPER}):[ \t]*(?P<text>.*)$|^(?P<title>{_TITLE}):[ \t]*(?P<ttext>.*)$")
_TAG = re.compile(r"(?:(?<=\s)|^)#(?P<tag>[A-Za-z][\w.-]*[\w])")
_ONE_TAG = re.compile(r"#[A-Za-z][\w.-]*[\w]")
_BLANKS = re.compile(r"([ \t]+)")
SCISSORS = "------------------------ >8 ------------------------"
MAX_PATHS = 200


@dataclass
class Marker:
    """One piece of knowledge found in a message."""

    type: str
    text: str
    tags: list[str] = field(default_factory=list)
    line: int = 0

    @property
    def key(self) -> str:
        """Stable across amend and rebase: the type and the normalised text."""
        digest = hashlib.sha1(
            f"{self.type}\n{normalise_for_dedup(self.text)}".encode("utf-8")
        ).hexdigest()
        return f"commit-{self.type}-{digest[:16]}"


def strip_comments(message: str, comment_char: str = "#") -> str:
    """The message as git will store it: no comment lines, nothing below the scissors."""
    kept: list[str] = []
    for line in message.split("\n"):
        if line.startswith(comment_char) and SCISSORS in line:
            break
        if comment_char and line.startswith(comment_char):
            continue
        kept.append(line)
    return "\n".join(kept)


def _split_tags(text: str) -> tuple[str, list[str]]:
    """#tags become tags: a run ending a line is removed, an inline one keeps its word.
    Each is kept as written: the secret scan must see `#AKIA...` as typed."""
    # dict.fromkeys: linear time (a list's `in` made a line of 100,000 #tags take 47 s)
    unique = list(dict.fromkeys(m.group("tag") for m in _TAG.finditer(text)))
    text = "\n".join(_without_trailing_tags(line) for line in text.split("\n"))
    text = _TAG.sub(lambda m: m.group("tag"), text)
    return text.strip(), unique


def _without_trailing_tags(line: str) -> str:
    """`line` less the run of #tags that ends it, found from the right over its words
    (a regex for the run, tried from every '#', is quadratic in a line of many tags)."""
    parts = _BLANKS.split(line)  # word, blanks, word, ..., word ("" around edge blanks)
    last = len(parts) - 1
    if parts[last] == "" and last >= 2:
        last -= 2  # trailing blanks go with the tags, if any
    i = last
    while i >= 2 and _ONE_TAG.fullmatch(parts[i]):  # each tag has blanks before it
        i -= 2
    return line if i == last else "".join(parts[: i + 1])


def parse_message(message: str) -> list[Marker]:
    """Every marker and marker trailer, with the indented lines that continue it."""
    found: list[Marker] = []
    current: list[str] | None = None
    kind, start = "", 0

    def close() -> None:
        if current is None:
            return
        text, tags = _split_tags("\n".join(current).strip())
        if text:
            found.append(Marker(kind, text, tags, start))

    for number, line in enumerate(message.replace("\r\n", "\n").split("\n"), 1):
        match = MARKER_LINE.match(line)
        if match:
            close()
            kind = (match.group("upper") or match.group("title")).lower()
            text = match.group("text") if match.group("upper") else match.group("ttext")
            current, start = [text.strip()], number
        elif current is not None and line[:1] in (" ", "\t") and line.strip():
            current.append(line.strip())
        else:
            close()
            current = None
    close()
    return found

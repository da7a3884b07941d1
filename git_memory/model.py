"""The data model: entry types, markers, records and their ids.

A *record* is one file on the memory branch. Most records are entries (knowledge); the
others are curation events (supersede, status, reinforce, contradict, redact) that the
fold applies to entries. Pure Python.
"""

from __future__ import annotations

import base64
import hashlib
import itertools
import os
import re
import time
import unicodedata
from dataclasses import dataclass, field
from typing import Any

from git_memory.errors import BadInput, UsageProblem


ENTRY_TYPES = (
    "learned",
    "decision",
    "fact",
    "pattern",
    "investigation",
    "deviation",
    "failure",
    "handoff",
)
# `purge` names the blobs a history rewrite removed; the fold ignores it, sync applies it.
EVENT_KINDS = ("supersede", "status", "reinforce", "contradict", "redact", "purge")

# "LEARNED: text" at the start of a text (markers are the upper-case type).
MARKER_RE = re.compile(
    r"^\s*(" + "|".join(t.upper() for t in ENTRY_TYPES) + r"):[ \t]*", re.ASCII
)

_CROCKFORD = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"


def new_id(now_ms: int | None = None) -> str:
    """A ULID: 48 bits of milliseconds then 80 random bits, Crockford base32.

    Sortable by creation time and unique without coordination, which is what
    concurrent writers on different machines need. The 80 random bits are exactly 16
    base32 digits (RFC 4648's, translated to Crockford's alphabet: one C call instead
    of 26 shifts); the 10 digits of the time are computed once per millisecond.
    """
    ms = int(time.time() * 1000) if now_ms is None else now_ms
    last = _LAST_MS
    if last[0] != ms:
        last = (ms, _base32(ms, 10))
        globals()["_LAST_MS"] = last
    return last[1] + base64.b32encode(os.urandom(10)).translate(_TO_CROCKFORD).decode("ascii")


def _base32(value: int, digits: int) -> str:
    chars = []
    for _ in range(digits):
        chars.append(_CROCKFORD[value & 31])
        value >>= 5
    return "".join(reversed(chars))


_TO_CROCKFORD = bytes.maketrans(b"ABCDEFGHIJKLMNOPQRSTUVWXYZ234567", _CROCKFORD.encode("ascii"))
_LAST_MS: tuple[int, str] = (-1, "")


def short_id(record_id: str) -> str:
    """The last eight characters: random bits, so unique enough to type."""
    return record_id[-8:].lower()


def split_marker(text: str) -> tuple[str | None, str]:
    """Split `LEARNED: text` into ("learned", "text"); (None, text) without a marker."""
    match = MARKER_RE.match(text)
    if not match:
        return None, text
    return match.group(1).lower(), text[match.end():]


def typed_text(body: str, type_: str | None, option: str = "--type") -> tuple[str, str]:
    """(type, text) of an entry given as `LEARNED: text` or with a type `option`: they
    must agree when both are given, and one of them must be."""
    marker, rest = split_marker(body)
    if marker and type_ and marker != type_.lower():
        raise UsageProblem(f"the text says {marker.upper()}: but {option} is {type_}")
    kind = type_ or marker
    if kind is None:
        raise BadInput(f"no type: start the text with a marker such as 'LEARNED:' or pass {option}")
    return kind, rest


def check_type(value: str) -> str:
    kind = value.strip().lower()
    if kind not in ENTRY_TYPES:
        raise BadInput(
            f"unknown type {value!r}; expected one of: {', '.join(ENTRY_TYPES)}"
        )
    return kind


def slugify(text: str, words: int = 6, limit: int = 40) -> str:
    """A readable ASCII slug of the first words, for file names in pull requests."""
    folded = text if text.isascii() else (
        unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode())
    # the first `words` words only: a findall over an 8,000-character text is most of the cost
    parts = [m.group() for m in itertools.islice(_SLUG_WORD.finditer(folded.lower()), words)]
    slug = "-".join(parts)[:limit].strip("-")
    return slug or "entry"


_SLUG_WORD = re.compile(r"[a-z0-9]+")
_OTHER_SPACES = ("\t", "\n", "\x0b", "\x0c", "\r", "\x1c", "\x1d", "\x1e", "\x1f")  # str.split()'s, in ASCII


def normalise_for_dedup(text: str) -> str:
    """The form two texts share when they say the same thing in a different case or spacing."""
    if text.isascii():
        # The usual text, in a tenth of the time (an index build hashes every entry):
        # NFKC leaves ASCII as it is and casefold() is lower() there; when the only
        # whitespace is spaces, collapsing it is joining runs of spaces and stripping
        # the ends.
        folded = text.lower()
        for space in _OTHER_SPACES:  # one C scan each: faster than isprintable() or a regex
            if space in folded:
                return " ".join(folded.split()).rstrip(".!;,: ")
        if "  " in folded:  # spaces only: split() and join collapse them (a regex: 5x slower)
            return " ".join(folded.split()).rstrip(".!;,: ")
        return folded.strip(" ").rstrip(".!;,: ")
    folded = unicodedata.normalize("NFKC", text).casefold()
    folded = " ".join(folded.split())  # str.split() and regex \s agree on whitespace
    return folded.rstrip(".!;,: ")


def content_hash(text: str) -> str:
    return hashlib.sha1(normalise_for_dedup(text).encode("utf-8")).hexdigest()


@dataclass
class Record:
    """One file on the memory branch, parsed.

    `kind` is "entry" for knowledge and one of EVENT_KINDS for curation.
    `fields` keeps every other front-matter key (type-specific fields, curation
    fields such as `supersedes`, `merged_from`, `target`, `status`,
    `review_reason`) so that nothing a writer put there is lost.
    """

    id: str
    kind: str = "entry"
    type: str | None = None
    content: str = ""
    tags: list[str] = field(default_factory=list)
    created: str = ""
    author: str = ""
    source: str = "manual"
    origin: dict[str, Any] = field(default_factory=dict)
    key: str | None = None
    fields: dict[str, Any] = field(default_factory=dict)
    path: str = ""

    def anchors(self) -> list[str]:
        paths = self.origin.get("paths") if isinstance(self.origin, dict) else None
        extra = self.fields.get("anchors")
        out = [str(p) for p in paths] if isinstance(paths, list) else []
        if isinstance(extra, list):
            out.extend(str(p) for p in extra)
        return out


def utc_now() -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())

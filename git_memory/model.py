"""The data model: entry types, markers, records (one file on the memory branch each: an
entry, or a curation event the fold applies to entries) and their ids."""

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
    """A ULID (48 bits of milliseconds, 80 random bits, Crockford base32): sortable by time
    and unique without coordination between clones. The random part is RFC 4648 base32
    translated to Crockford's alphabet (one C call, not 16 shifts); the time's 10 digits
    are computed once per millisecond."""
    ms = int(time.time() * 1000) if now_ms is None else now_ms
    last = _LAST_MS
    if last[0] != ms:
        last = (ms, crockford(ms, 10))
        globals()["_LAST_MS"] = last
    return last[1] + base64.b32encode(os.urandom(10)).translate(_TO_CROCKFORD).decode("ascii")


def crockford(value: int, digits: int) -> str:
    """The last `digits` base32 digits of `value`, in Crockford's alphabet."""
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
# str.split()'s other whitespace in ASCII, and a run of spaces: what a join must collapse
_COLLAPSED = ("\t", "\n", "\x0b", "\x0c", "\r", "\x1c", "\x1d", "\x1e", "\x1f", "  ")


def normalise_for_dedup(text: str) -> str:
    """The form two texts share when they say the same thing in a different case or spacing."""
    if text.isascii():
        # The usual text, in a tenth of the time (an index build hashes every entry):
        # NFKC leaves ASCII as it is and casefold() is lower() there; with no other
        # whitespace than single spaces, collapsing it is stripping the ends.
        folded = text.lower()
        for space in _COLLAPSED:  # one C scan each: faster than isprintable() or a regex (5x)
            if space in folded:
                return " ".join(folded.split()).rstrip(".!;,: ")
        return folded.strip(" ").rstrip(".!;,: ")
    folded = unicodedata.normalize("NFKC", text).casefold()
    folded = " ".join(folded.split())  # str.split() and regex \s agree on whitespace
    return folded.rstrip(".!;,: ")


def content_hash(text: str) -> str:
    return hashlib.sha1(normalise_for_dedup(text).encode("utf-8")).hexdigest()


@dataclass
class Record:
    """One file on the memory branch, parsed. `kind` is "entry" or one of EVENT_KINDS;
    `fields` keeps every other front-matter key, so nothing a writer put there is lost."""

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


def utc_now(epoch: float | None = None) -> str:
    """The record timestamp of `epoch` seconds (default: now)."""
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(epoch))

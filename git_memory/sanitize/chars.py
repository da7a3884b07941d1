"""Character-level cleaning: decode checks, invisible characters (removed by code point
class, not by a list of known-bad strings), NFKC outside code, line ends, length.
"""

from __future__ import annotations

import re
import unicodedata
from typing import Callable

from git_memory.errors import BadInput

MAX_CHARS = 8000
_KEEP_CONTROLS = {"\n", "\t", "\r"}  # line ends are unified by normalise()
_BIDI = set(range(0x202A, 0x202F)) | set(range(0x2066, 0x206A))
_TAGS = range(0xE0000, 0xE0080)
_ZERO_WIDTH = {0x200B, 0x200C, 0x200D, 0x2060, 0xFEFF}


# Characters worth a closer look: anything outside printable ASCII, newline and tab.
# Most entries are plain ASCII, so one regex scan replaces a per-character loop.
_SUSPECT = re.compile(r"[^\x20-\x7e\n\t]")
_SURROGATE = re.compile("[\udc80-\udcff]")


def check_text(text: str, what: str = "text") -> str:
    """Refuse what can never be an entry: NUL bytes, invalid UTF-8, nothing at all."""
    if "\x00" in text:
        raise BadInput(f"{what} contains a NUL byte")
    if not text.isascii() and _SURROGATE.search(text):
        raise BadInput(f"{what} is not valid UTF-8")
    if not text.strip():
        raise BadInput(f"{what} is empty")
    return text


def decode_bytes(data: bytes, what: str = "input") -> str:
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise BadInput(f"{what} is not valid UTF-8 (byte {exc.start})") from None
    return text.removeprefix("\ufeff")


def _is_invisible(ch: str) -> bool:
    if ch in _KEEP_CONTROLS:
        return False
    code = ord(ch)
    if code in _BIDI or code in _TAGS:
        return True
    return unicodedata.category(ch) in ("Cc", "Cf")


def strip_invisible(text: str) -> tuple[str, int]:
    """The text without control and format characters, and how many went."""
    if not _SUSPECT.search(text):
        return text, 0
    cleaned = _SUSPECT.sub(lambda m: "" if _is_invisible(m.group()) else m.group(), text)
    return cleaned, len(text) - len(cleaned)


def invisible_kinds(text: str) -> dict[str, int]:
    """How many invisible characters of each kind `text` holds (for the audit log)."""
    if text.isprintable():  # every invisible character is of a class isprintable() refuses
        return {}
    kinds: dict[str, int] = {}
    for ch in _SUSPECT.findall(text):  # printable ASCII is never invisible
        if not _is_invisible(ch):
            continue
        code = ord(ch)
        if code in _BIDI:
            kind = "bidi"
        elif code in _TAGS:
            kind = "tag-block"
        elif code in _ZERO_WIDTH:
            kind = "zero-width"
        elif unicodedata.category(ch) == "Cc":
            kind = "control"
        else:
            kind = "format"
        kinds[kind] = kinds.get(kind, 0) + 1
    return kinds


def normalise(text: str) -> str:
    """NFKC outside code, then `tidy_lines`."""
    return normalise_tidied(tidy_lines(text))


def normalise_tidied(text: str) -> str:
    """`normalise` of a text `tidy_lines` has already been through."""
    if text.isascii():  # ASCII is its own NFKC form, and tidy_lines is idempotent
        return text
    return tidy_lines(outside_code(text, fold))


_BLANK_RUN = re.compile(r"\n{3,}")


def tidy_lines(text: str) -> str:
    """Unified line ends, no trailing spaces, at most one blank line in a row."""
    if "\n" not in text and "\r" not in text:  # one line (most entries): nothing to unify
        return text.strip()
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    text = "\n".join([line.rstrip() for line in text.split("\n")])
    return _BLANK_RUN.sub("\n\n", text).strip() if "\n\n\n" in text else text.strip()


# A fenced block (``` or ~~~ up to the same fence or the end), an inline code span.
_FENCE_SOURCE = r"^(?P<fence>[ \t]*(?:`{3,}|~{3,}))[^\n]*\n.*?(?:^[ \t]*(?P=fence)[ \t]*$|\Z)"
_SPAN_SOURCE = r"(?P<ticks>`+)[^`\n]+(?P=ticks)"
_FENCE = re.compile(_FENCE_SOURCE, re.MULTILINE | re.DOTALL)
_CODE = re.compile(f"{_FENCE_SOURCE}|{_SPAN_SOURCE}", re.MULTILINE | re.DOTALL)
_SPAN = re.compile(_SPAN_SOURCE)


def outside_code(text: str, change: Callable[[str], str]) -> str:
    """`text` with `change` applied to everything but fenced blocks and code spans,
    which are quoted as written (a command, an identifier, a sample)."""
    if "`" not in text and "~~~" not in text:
        return change(text)
    # Without a run of three backquotes or tildes, or without a line end (a fence is a
    # line of its own), no fence can open: the span pattern alone finds the same
    # matches, without trying a fence at every line start.
    pattern = _CODE if ("```" in text or "~~~" in text) and "\n" in text else _SPAN
    return _outside(pattern, text, change)


def outside_fences(text: str, change: Callable[[str], str]) -> str:
    """`text` with `change` applied to everything but fenced code blocks."""
    if ("```" not in text and "~~~" not in text) or "\n" not in text:  # no fence can open
        return change(text)
    return _outside(_FENCE, text, change)


def _outside(pattern: re.Pattern[str], text: str, change: Callable[[str], str]) -> str:
    out: list[str] = []
    last = 0
    for match in pattern.finditer(text):
        out.append(change(text[last : match.start()]))
        out.append(match.group())
        last = match.end()
    out.append(change(text[last:]))
    return "".join(out)


def fold(text: str) -> str:
    """NFKC (full-width letters, ligatures and the like to their plain form), except
    for symbols that NFKC would spell out: `™` stays `™`, not `TM`."""
    if text.isascii():
        return text
    keep = {c for c in set(text) if not c.isascii() and unicodedata.category(c)[0] == "S"
            and unicodedata.normalize("NFKC", c) != c}
    if not keep:
        return unicodedata.normalize("NFKC", text)
    pieces = re.split("([" + "".join(re.escape(c) for c in sorted(keep)) + "])", text)
    return "".join(p if p in keep else unicodedata.normalize("NFKC", p) for p in pieces)


def cap_length(text: str, limit: int = MAX_CHARS) -> tuple[str, bool]:
    if len(text) <= limit:
        return text, False
    cut = text[:limit]
    space = cut.rfind(" ", limit - 200)
    return (cut[:space] if space > 0 else cut).rstrip() + " …", True

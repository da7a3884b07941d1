"""The direct parse of a record file in our own layout to its index rows.

A cold build makes rows for every record file on the branch, and nearly all of them
are plain entries the writer wrote (store.record_format.dump_record): an `id` line, a
`type` line, optional `tags`, `created`, optional `author`, `source`, optional `key`,
in that order, no `kind`, no `origin`, no other field, then the text. Such a file goes
straight from its bytes to the `records` and `fts` rows here, without the general
front-matter dict, the `Record` and the second walk over it (write.record_rows). The
front-matter lines that repeat across files (types, tags, dates, authors, sources) are
read once and kept by their text.

Anything else (another kind, extra fields, an origin, another order, a value YAML would
read differently, a bad file) gives None, and the caller takes the general path
(record_format.parse_record, then write.record_rows), which is the reference: both give
the same rows for every file the fast path takes (tests/test_index_rowparse.py).

Write side only (index.write). May import `store.record_format`, `model`, `fold`,
`index.decay` and `index.tokens`.
"""

from __future__ import annotations

import json
from typing import Any

from git_memory.fold import DEFAULT_CONFIDENCE, SOURCE_CONFIDENCE
from git_memory.index.decay import Decay
from git_memory.index.tokens import search_text
from git_memory.model import ENTRY_TYPES, content_hash
from git_memory.store.record_format import (
    _BASES,
    _CONTROL_RE,
    _JSON_STARTS,
    _YAML_SPECIAL,
    ID_RE,
    MAX_RECORD_BYTES,
    MAX_TAGS,
    MalformedRecord,
    _created,
    _json_decode,
    _plain_word,
)

Row = tuple[Any, ...]

_TYPES = {f"type: {name}": name for name in ENTRY_TYPES}
_NO = object()  # a value this reader leaves to the general path

# The lines seen before, by their text: what each gives. A line is only kept when its
# value repeats across records (not ids or keys); the cache is emptied when full.
_SEEN: dict[str, tuple[int, Any]] = {}
_MAX_SEEN = 4096


def fast_rows(rowid: int, data: bytes, path: str, blob: str,
              decay: Decay | None = None) -> tuple[Row, Row] | None:
    """The `records` row and the `fts` row of a plain entry in our layout, as
    write.record_rows would make them from record_format.parse_record's record (with
    `decay`, its confidence the decayed one: Decay.of); None for any other file (the
    general path then reads it)."""
    if len(data) > MAX_RECORD_BYTES or not data.startswith(b"---\nid: "):
        return None
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        return None
    end = text.find("\n---", 3)
    if end == -1 or text[end + 4 : end + 5] not in ("\n", "") or "\x00" in text:
        return None
    lines = text[4:end].split("\n")
    if not 4 <= len(lines) <= 7:
        return None
    record_id = _id(lines[0][4:])
    type_ = _TYPES.get(lines[1])
    if type_ is None or record_id is None:
        return None
    fields = _fields(lines)
    if fields is None:
        return None
    (tags_json, tags_text), created, author, source, key = fields
    content = text[end + 5 :].strip("\n")
    if not content or content.isspace():
        return None  # an empty entry: the general path says why it is refused
    row = (rowid, record_id, "entry", type_, content, tags_json, created, author, source, key,
           "{}", "{}", "", path, blob, content_hash(content), 0,
           SOURCE_CONFIDENCE.get(source, DEFAULT_CONFIDENCE) if decay is None
           else decay.of(source, created))
    return row, (rowid, search_text(content), tags_text, type_, "")


def _id(raw: str) -> str | None:
    """The id of an `id: ` line: a plain word, or JSON (an id YAML would read as a
    number or a boolean is quoted); as record_format reads it and checks it."""
    if ID_RE.match(raw) and _plain(raw):
        return raw
    if raw[:1] != '"':
        return None
    value = _value(raw.strip())
    if type(value) is not str:
        return None
    value = value.strip()
    return value if ID_RE.match(value) else None


# The lines after `type`, in the writer's order: tags (optional), created, author
# (optional), source, key (optional).
_ORDER = {"tags": 0, "created": 1, "author": 2, "source": 3, "key": 4}
_REQUIRED = 1 << 1 | 1 << 3


def _fields(lines: list[str]) -> list[Any] | None:
    """[(the tags' JSON, their FTS text), created, author, source, key] from the lines
    after `type`; None when they leave the writer's order or shape."""
    found: list[Any] = [_NO_TAGS, None, "", None, None]
    last, top = -1, 5  # each line's place comes after the one before, and before `top`
    seen = 0
    rest = lines[2:]
    if rest[-1][:5] == "key: ":  # unique to each record (no use keeping it): read here
        key = _value(rest.pop()[5:].strip())
        if type(key) is not str:
            return None
        found[4] = key
        seen, top = 1 << 4, 4
    for line in rest:
        hit = _SEEN.get(line) or _line(line)
        if hit is None:
            return None
        at = hit[0]
        if at <= last or at >= top:
            return None  # out of order or repeated
        last = at
        seen |= 1 << at
        found[at] = hit[1]
    return found if seen & _REQUIRED == _REQUIRED else None


_NO_TAGS = ("[]", "")


def _line(line: str) -> tuple[int, Any] | None:
    """What a line not seen before gives, as record_format's readers would take it."""
    name, sep, raw = line.partition(": ")
    at = _ORDER.get(name)
    if not sep or at is None:
        return None
    value = _value(raw.strip())
    if value is _NO:
        return None
    if name == "key":  # unique to a record: not kept
        return (at, value) if type(value) is str else None
    if name == "tags":
        if type(value) is not list or not all(type(t) is str for t in value):
            return None
        if len(value) > MAX_TAGS:  # refused: the general path says why
            return None
        if _CONTROL_RE.search("".join(value)):
            return None
        # what write._tags_json gives (json.dumps of the list), and the fts column
        value = (json.dumps(value, ensure_ascii=False), " ".join(value))
    elif type(value) is not str:
        return None
    elif name == "created":
        try:
            value = _created(value)
        except MalformedRecord:
            return None
    elif name == "source":
        value = value or "manual"
    if len(_SEEN) >= _MAX_SEEN:
        _SEEN.clear()
    _SEEN[line] = (at, value)
    return at, value


# The longest of YAML's special words: a longer word is none of them (no lower() needed).
_SPECIAL_MAX = max(map(len, _YAML_SPECIAL))


def _plain(word: str) -> bool:
    """record_format._is_plain for a word already known to be letters, digits, '-' and
    '_' starting with a letter or digit (an id, a key): inlined, as every file has one."""
    # Without copying the word where it can: an id is upper case (a ULID), a key lower.
    if not (word.isupper() or word.islower()) and word.lower() == word.upper():
        return False  # no letter: a number to YAML
    if len(word) <= _SPECIAL_MAX and word.lower() in _YAML_SPECIAL:  # true, null, ...
        return False
    return not (word[0] == "0" and word[:2].lower() in _BASES)  # 0x1f, 0o17, 0b1


def _value(raw: str) -> Any:
    """A value as record_format._fast_front_matter reads it; _NO where it would not."""
    if raw[:1] in _JSON_STARTS:
        try:
            return _json_decode(raw)
        except ValueError:
            return _NO
    if ID_RE.match(raw):  # an id-like word (a key): the short test
        return raw if _plain(raw) else _NO
    return raw if _plain_word(raw) else _NO

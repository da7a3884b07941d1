"""Import files: our own JSON lines, and Lavra's `knowledge.jsonl` as it really is
(double-encoded lines, epoch-second `ts`, its `source` and `bead`; its `key` kept, so a
second import adds nothing).
"""

from __future__ import annotations

import datetime as _dt
import json
import re
from dataclasses import dataclass, field
from typing import Any, Iterable, Iterator

from git_memory.errors import BadInput
from git_memory.model import ENTRY_TYPES
from git_memory.write.append import NewEntry

FORMATS = ("jsonl", "lavra")
_OUR_FIELDS = {"type", "content", "tags", "created", "key", "id", "source", "origin", "status"}
# What `list --json` shows beside the record's own fields: the fold's view and the
# branch's bookkeeping. A line that carries them (an old export) keeps none of them as
# fields; `author` is who writes the entry now. A lossless restore is capture/records.py.
_DERIVED = {"kind", "author", "confidence", "path", "supersedes", "superseded_by",
            "merged_from", "merged_into", "fields"}


@dataclass
class ParsedFile:
    items: list[NewEntry] = field(default_factory=list)
    rejected: list[tuple[str, str]] = field(default_factory=list)  # (label, reason)
    lines: int = 0


def _decode_line(raw: bytes, number: int) -> Any:
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        raise BadInput(f"line {number}: not valid UTF-8")
    if "\x00" in text:
        raise BadInput(f"line {number}: contains a NUL byte")
    try:
        value = json.loads(text)
        if isinstance(value, str):  # double-encoded: the string holds the object
            value = json.loads(value)
    except json.JSONDecodeError as exc:
        raise BadInput(f"line {number}: not valid JSON ({exc.msg})") from None
    except RecursionError:  # `[[[[...` 100,000 deep: json's decoder recurses per level
        raise BadInput(f"line {number}: JSON nested too deeply") from None
    if not isinstance(value, dict):
        raise BadInput(f"line {number}: not a JSON object")
    return value


# `created` as export writes it (and most import files hold it): UTC, to the second, in
# the form this function returns; a year before 1000 is left to the general path
# (strftime writes it with fewer digits).
_UTC = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}Z")  # ASCII digits only


def _created(value: Any) -> str | None:
    if value is None or value == "":
        return None
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        try:
            stamp = _dt.datetime.fromtimestamp(float(value), _dt.timezone.utc)
        except (OverflowError, OSError, ValueError):
            raise ValueError("timestamp out of range")
        return stamp.strftime("%Y-%m-%dT%H:%M:%SZ")
    if isinstance(value, str):
        text = value.strip()
        try:
            if _UTC.fullmatch(text) and text[0] != "0":  # already ours: check it is a real time
                _dt.datetime(int(text[:4]), int(text[5:7]), int(text[8:10]), int(text[11:13]),
                             int(text[14:16]), int(text[17:19]))
                return text
            stamp = _dt.datetime.fromisoformat(text.replace("Z", "+00:00"))
        except ValueError:
            raise ValueError(f"unreadable date {text[:40]!r}")
        if stamp.tzinfo is not None:
            stamp = stamp.astimezone(_dt.timezone.utc)
        return stamp.strftime("%Y-%m-%dT%H:%M:%SZ")
    raise ValueError("unreadable date")


def _tags(value: Any) -> list[str]:
    if value is None:
        return []
    if isinstance(value, str):
        return [t for t in value.replace(",", " ").split() if t]
    if isinstance(value, list):
        return [str(t) for t in value if isinstance(t, (str, int))]
    raise ValueError("tags must be a list of words")


def _item(obj: dict[str, Any], fmt: str, label: str) -> NewEntry:
    type_ = str(obj.get("type") or "").strip().lower()
    if type_ not in ENTRY_TYPES:
        raise ValueError(f"unknown type {obj.get('type')!r}")
    content = obj.get("content")
    if not isinstance(content, str) or not content.strip():
        raise ValueError("no content")
    fields: dict[str, Any] = {}
    if fmt == "lavra":
        created = _created(obj.get("ts"))
        for name in ("source", "bead"):
            if obj.get(name):
                fields[f"lavra_{name}"] = str(obj[name])
        tags = [t for t in _tags(obj.get("tags")) if t.lower() != type_]
    else:
        created = _created(obj.get("created"))
        tags = _tags(obj.get("tags"))
        for name, value in obj.items():
            if name not in _OUR_FIELDS and name not in _DERIVED and value is not None:
                fields[name] = value
        if obj.get("status") in ("needs_review", "canonical"):
            fields["status"] = obj["status"]
    origin = obj.get("origin") if fmt == "jsonl" and isinstance(obj.get("origin"), dict) else {}
    key = obj.get("key")
    return NewEntry(
        content=content,
        type=type_,
        tags=tags,
        source="import",
        origin=origin or {},
        key=str(key) if key not in (None, "") else None,
        created=created,
        fields=fields,
        label=label,
    )


def iter_items(
    lines: Iterable[bytes], fmt: str, skip_bad: bool, parsed: ParsedFile
) -> Iterator[NewEntry]:
    """The entries of an import file's lines, for the writer to stream; the rejected
    lines and the line count kept in `parsed` (`line_item` says which)."""
    check_format(fmt)
    for number, raw in enumerate(lines, 1):
        parsed.lines = number
        item = line_item(raw, number, fmt, skip_bad)
        if isinstance(item, NewEntry):
            yield item
        elif item is not None:
            parsed.rejected.append(item)


def check_format(fmt: str) -> None:
    if fmt not in FORMATS:
        raise BadInput(f"unknown format {fmt!r}; expected one of: {', '.join(FORMATS)}")


def line_item(raw: bytes, number: int, fmt: str, skip_bad: bool) -> NewEntry | tuple[str, str] | None:
    """Line `number` of an import file (`fmt` checked by the caller): its entry, (label,
    reason) when it cannot be one, None when blank. A line that is not a JSON object
    raises BadInput unless `skip_bad`. One line alone: workers parse an import's lines."""
    if not raw.strip():
        return None
    label = f"line {number}"
    try:
        obj = _decode_line(raw.rstrip(b"\r\n"), number)
    except BadInput as exc:
        if not skip_bad:
            raise
        return label, str(exc).split(": ", 1)[-1]
    try:
        return _item(obj, fmt, label)
    except ValueError as exc:
        return label, str(exc)

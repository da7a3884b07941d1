"""The texts `git memory diff` shows under a record: a supersede's target (old) beside its
replacement (new), a merge's sources beside it, a new entry alone (marked when the memory
already holds its text under another id). Never prints."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from git_memory.api.memory import Memory
from git_memory.model import Record, content_hash, short_id
from git_memory.terminal import display_width

SIDE_BY_SIDE = 100  # narrower than this, old and new are printed one under the other
STACKED_WIDTH = 76
GUTTER = " │ "
NEW_LINES = 12  # a new entry's text is shown up to this many lines (old/new pairs whole)


@dataclass
class Text:
    id: str
    type: str | None
    content: str | None  # None: no record in the diff or the index holds this id

    def as_json(self) -> dict[str, Any]:
        return {"id": self.id, "type": self.type, "content": self.content}

    def heading(self, side: str) -> str:
        kind = f" {self.type.upper()}" if self.type else ""
        return f"{side} {short_id(self.id)}{kind}"


@dataclass
class Sides:
    old: list[Text] = field(default_factory=list)
    new: list[Text] = field(default_factory=list)
    duplicate_of: str | None = None  # a live entry on the memory with the same text


def _links(record: Record) -> tuple[list[str], list[str]]:
    """(old ids, new ids) a record relates."""
    fields = record.fields
    if record.kind == "supersede":
        return [str(fields.get("target") or "")], [str(fields.get("by") or "")]
    if record.kind == "entry":
        return [str(i) for i in fields.get("merged_from") or []], [record.id]
    return [], []


class Texts:
    """Every text the records of one diff refer to, looked up once."""

    def __init__(self, records: list[Record], memory: Memory) -> None:
        self.known = {r.id: r for r in records if r.kind == "entry"}
        wanted = {i for r in records for side in _links(r) for i in side if i}
        missing = sorted(wanted - set(self.known))
        self.duplicates: dict[str, str] = {}
        entries = [r for r in records if r.kind == "entry"]
        self.known.update(memory.entries_by_ids(missing))
        # An entry the memory holds already is not news: only the others (a proposal's)
        # are checked against the texts the memory holds.
        held = memory.known_ids([r.id for r in entries])
        entries = [r for r in entries if r.id not in held]
        holders = memory.text_holders([r.content for r in entries])
        for record in entries:
            self._duplicate(record, holders.get(content_hash(record.content), []))

    def _duplicate(self, record: Record, holders: list[tuple[str, str]]) -> None:
        sources = {str(i) for i in record.fields.get("merged_from") or []}
        for status, other in holders:
            if other != record.id and other not in sources and status not in (
                    "superseded", "redacted"):
                self.duplicates[record.id] = other
                return

    def text(self, entry_id: str) -> Text:
        record = self.known.get(entry_id)
        if record is None:
            return Text(entry_id, None, None)
        return Text(entry_id, record.type, record.content)

    def sides(self, record: Record) -> Sides:
        old, new = _links(record)
        return Sides([self.text(i) for i in old if i], [self.text(i) for i in new if i],
                     self.duplicates.get(record.id))


def _wrap(text: Text, width: int, limit: int | None = None) -> list[str]:
    """The text wrapped to `width`; with `limit`, at most that many lines (only the start
    of the text is wrapped, so a diff of a large import stays fast)."""
    if text.content is None:
        return ["(text not found: not in this diff nor on the memory branch)"]
    content = text.content if limit is None else text.content[: width * (limit + 1)]
    lines: list[str] = []
    for paragraph in content.split("\n"):
        lines.extend(_fill(paragraph, width))
    if limit is not None and (len(lines) > limit or len(content) < len(text.content)):
        lines = lines[:limit] + [f"… ({len(text.content)} characters in all:"
                                 f" git memory show {short_id(text.id)})"]
    return lines


def _fill(paragraph: str, width: int) -> list[str]:
    """Greedy wrapping at spaces, a word longer than the width cut (textwrap does the same
    several times slower, which a diff of a large import feels)."""
    lines: list[str] = []
    line = ""
    for word in paragraph.split():
        while len(word) > width:
            if line:
                lines.append(line)
                line = ""
            lines.append(word[:width])
            word = word[width:]
        if not line:
            line = word
        elif len(line) + 1 + len(word) <= width:
            line += " " + word
        else:
            lines.append(line)
            line = word
    if line or not lines:
        lines.append(line)
    return lines


def _block(texts: list[Text], side: str, width: int) -> list[str]:
    lines: list[str] = []
    for number, text in enumerate(texts):
        if number:
            lines.append("")
        lines.append(text.heading(side))
        lines.extend(_wrap(text, width))
    return lines


def _pad(line: str, width: int) -> str:
    return line + " " * max(0, width - display_width(line))


def render(sides: Sides, columns: int | None) -> list[str]:
    """The lines shown under a record (indented by the caller)."""
    lines: list[str] = []
    if sides.old:
        if columns is not None and columns >= SIDE_BY_SIDE:
            width = (columns - 4 - len(GUTTER)) // 2
            left, right = _block(sides.old, "old", width), _block(sides.new, "new", width)
            for number in range(max(len(left), len(right))):
                a = left[number] if number < len(left) else ""
                b = right[number] if number < len(right) else ""
                lines.append((_pad(a, width) + GUTTER + b).rstrip())
        else:
            width = min(STACKED_WIDTH, (columns or STACKED_WIDTH + 6) - 6)
            for side, sign, texts in (("old", "-", sides.old), ("new", "+", sides.new)):
                for line in _block(texts, side, width):
                    lines.append(f"{sign} {line}".rstrip())
    elif sides.new and _long(sides.new[0]):
        width = min(STACKED_WIDTH, (columns or STACKED_WIDTH + 6) - 6)
        lines.extend(_wrap(sides.new[0], width, NEW_LINES))
    if sides.duplicate_of:
        lines.append(f"! the memory already holds this text as {short_id(sides.duplicate_of)}:"
                     " merging makes a second live copy (doctor reports it, curate merges it)")
    return lines


def _long(text: Text) -> bool:
    """A text the one-line summary cuts short: shown whole."""
    content = text.content or ""
    return "\n" in content.strip() or len(content) > 90

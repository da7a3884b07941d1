"""`git memory diff A..B`: the records between two memory commits, as readable entries.

A reviewer needs the words, not only ids: a new entry is shown whole, a supersede or a merge
with the old text(s) beside the new (`diff_texts`), and a text the memory already holds is
marked (merging it would make a second live copy).
"""

from __future__ import annotations

from typing import Any

import click

from git_memory import terminal, ui
from git_memory.api.memory import Memory
from git_memory.cli import options
from git_memory.commands import diff_texts
from git_memory.model import Record, short_id


def describe(record: Record) -> str:
    """One readable line for a record."""
    fields = record.fields
    target = short_id(str(fields.get("target") or "")) if fields.get("target") else ""
    why = f" ({fields['review_reason']})" if fields.get("review_reason") else ""
    if record.kind == "entry":
        extra = ""
        if fields.get("merged_from"):
            extra = f" [merged from {', '.join(short_id(i) for i in fields['merged_from'])}]"
        tags = " ".join("#" + t for t in record.tags)
        return (f"{(record.type or '').upper()}: {ui.first_line(record.content, 90)}"
                f"  {short_id(record.id)}{extra}" + (f"  {tags}" if tags else ""))
    if record.kind == "supersede":
        return f"supersede {target} by {short_id(str(fields.get('by') or ''))}{why}"
    if record.kind == "status":
        return f"status {target} -> {fields.get('status')}{why}"
    return f"{record.kind} {target}{why}"


@click.command("diff")
@click.argument("spec", metavar="A..B")
@options.as_json()
def diff_cmd(spec: str, *, as_json: bool) -> int:
    """The records between two memory commits, as readable entries (A alone: A..tip)."""
    with Memory() as memory:
        found = memory.diff(spec)
        old, new, plus, minus = found.old, found.new, found.added, found.removed
        note = f" (since their merge base {old[:10]})" if found.merge_base else ""
        texts = diff_texts.Texts([r for _, r in plus + minus if r is not None], memory)
    if as_json:
        ui.out_json({
            "from": old, "to": new, "merge_base": found.merge_base,
            "added": [_as_json(p, r, texts) for p, r in plus],
            "removed": [_as_json(p, r, texts) for p, r in minus],
        })
        return 0
    noun = "record" if len(plus) + len(minus) == 1 else "records"
    columns = terminal.width()
    with terminal.paged():
        ui.out(f"memory {old[:10]}..{new[:10]}{note}: +{len(plus)} -{len(minus)} {noun}")
        for sign, items in (("+", plus), ("-", minus)):
            for path, record in items:
                ui.out(f"{sign} {describe(record) if record else 'unreadable record'}")
                ui.out(f"    {path}")
                if record is not None and sign == "+":
                    for line in diff_texts.render(texts.sides(record), columns):
                        ui.out(f"    {line}" if line else "")
    return 0


def _as_json(path: str, record: Record | None, texts: diff_texts.Texts) -> dict[str, Any]:
    if record is None:
        return {"path": path, "malformed": True}
    sides = texts.sides(record)
    return {
        "path": path, "id": record.id, "kind": record.kind, "type": record.type,
        "content": record.content, "tags": record.tags, "created": record.created,
        "author": record.author, "fields": record.fields, "summary": describe(record),
        "old": [t.as_json() for t in sides.old], "new": [t.as_json() for t in sides.new],
        "duplicate_of": sides.duplicate_of,
    }

"""`git memory diff A..B`: the records between two memory commits, as readable entries.

`A..B` as in git (an empty side is the memory tip); a single `A` means `A..tip`.
Revisions are anything git accepts (`git-memory~3`, a proposal branch, a sha).
"""

from __future__ import annotations

from typing import Any

from git_memory import terminal, ui
from git_memory.errors import BadInput, NotFound
from git_memory.model import Record, short_id
from git_memory.store.branch import MemoryBranch
from git_memory.store.locate import discover
from git_memory.store.record_format import MalformedRecord, parse_record


def _commit(branch: MemoryBranch, rev: str) -> str:
    if not rev:
        tip = branch.tip()
        if tip is None:
            raise NotFound("no memory branch yet")
        return tip
    commit = branch.resolve(rev)
    if commit is None:
        raise BadInput(f"unknown revision {rev!r}")
    return commit


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


def _records(branch: MemoryBranch, changes: list[Any]) -> list[tuple[str, Record | None]]:
    out: list[tuple[str, Record | None]] = []
    for change in changes:
        try:
            out.append((change.path, parse_record(branch.read_blob(change.blob), change.path)))
        except (MalformedRecord, KeyError):
            out.append((change.path, None))
    return out


def run(spec: str, *, as_json: bool) -> int:
    branch = MemoryBranch(discover())
    left, sep, right = spec.partition("..")
    if not sep:
        right = ""
    old, new = _commit(branch, left), _commit(branch, right)
    note = ""
    if not branch.is_ancestor(old, new):
        # Diverged (a proposal made before the memory moved on): show what B adds
        # since they split, as a pull request would, not what B lacks.
        base = branch.merge_base(old, new)
        if base is not None:
            note = f" (since their merge base {base[:10]})"
            old = base
    added, removed = branch.changes(old, new)
    plus, minus = _records(branch, added), _records(branch, removed)
    if as_json:
        ui.out_json({
            "from": old, "to": new, "merge_base": bool(note),
            "added": [_as_json(p, r) for p, r in plus],
            "removed": [_as_json(p, r) for p, r in minus],
        })
        return 0
    noun = "record" if len(plus) + len(minus) == 1 else "records"
    with terminal.paged():
        ui.out(f"memory {old[:10]}..{new[:10]}{note}: +{len(plus)} -{len(minus)} {noun}")
        for sign, items in (("+", plus), ("-", minus)):
            for path, record in items:
                ui.out(f"{sign} {describe(record) if record else 'unreadable record'}")
                ui.out(f"    {path}")
    return 0


def _as_json(path: str, record: Record | None) -> dict[str, Any]:
    if record is None:
        return {"path": path, "malformed": True}
    return {
        "path": path, "id": record.id, "kind": record.kind, "type": record.type,
        "content": record.content, "tags": record.tags, "created": record.created,
        "author": record.author, "fields": record.fields, "summary": describe(record),
    }

"""The manual curation rules behind `Memory.supersede`, `merge`, `flag`, `redact`, `reinforce`,
`contradict` and the review's `accept`, `reject`, `edit`: each checks its entries against the
index and builds the records `Memory.write_records` appends, with a line saying what it did."""

from __future__ import annotations

from typing import Callable

from git_memory.curation import record_builders as build
from git_memory.errors import BadInput, NotFound, SecretFound
from git_memory.fold import reaches
from git_memory.index.db import Index
from git_memory.index.entries import (
    by_hash,
    entry_dict,
    find_entry,
    find_record,
    redaction_of,
    source_label,
    state_of,
)
from git_memory.index.schema import Row
from git_memory.index.build.update import row_to_record
from git_memory.model import Record, content_hash, short_id
from git_memory.sanitize import audit
from git_memory.sanitize.scan import scan_string
from git_memory.store.locate import GitDirs
from git_memory.write.append import NewEntry, prepare


def resolve(index: Index, ref: str) -> Row:
    row = find_entry(index, ref)
    if row is None:
        raise NotFound(f"no entry {ref!r}")
    _writable(row)
    return row


def _writable(row: Row) -> None:
    """Personal memory and memory.sources are read here, never curated from here: a record
    naming their entry would be an unknown id on every other clone (docs/sync.md)."""
    came = source_label(row)
    if came is not None and not row["src"].startswith("remote:"):
        raise BadInput(f"entry {short_id(row['id'])} comes from {came} and is read only here"
                       " (curate personal memory with: git --git-dir PATH memory ...)")


def _not_redacted(row: Row) -> None:
    if row["status"] == "redacted":
        raise BadInput(f"entry {short_id(row['id'])} is redacted; it takes no more curation")


# (index, author, reason) -> (records to append, what to tell the user)
Builder = Callable[[Index, str, str], tuple[list[Record], str]]


def check_reason(dirs: GitDirs, reason: str | None, required: bool) -> str:
    """The reason, cleaned; a secret in it is refused and logged (rule and hash only)."""
    try:
        return build.check_reason(reason) if required or (reason or "").strip() else ""
    except SecretFound:
        found = scan_string(" ".join((reason or "").split()), "--reason")
        if found:
            audit.write(dirs, [audit.Action(found.rule, "refused", f"{found.detail()}: not"
                                            " written", "curate", "")])
        raise


def supersede(index: Index, author: str, why: str, old_ref: str, new_ref: str) -> tuple[list[Record], str]:
    old, new = resolve(index, old_ref), resolve(index, new_ref)
    if old["id"] == new["id"]:
        raise BadInput("an entry cannot supersede itself")
    _not_redacted(old)
    _not_redacted(new)
    if reaches(lambda entry: list(state_of(index, entry).get("supersedes", [])),
               old["id"], new["id"]):
        raise BadInput(f"{short_id(old['id'])} already replaces {short_id(new['id'])};"
                       " superseding it back would make a cycle")
    record = build.supersede(old["id"], new["id"], why, author)
    return [record], f"superseded {short_id(old['id'])} by {short_id(new['id'])}"


def merge(index: Index, author: str, why: str, refs: list[str], body: str) -> tuple[list[Record], str]:
    rows = [resolve(index, ref) for ref in refs]
    if len({r["id"] for r in rows}) != len(rows):
        raise BadInput("the same entry is named twice")
    for row in rows:
        _not_redacted(row)
    sources = [row_to_record(r) for r in rows]
    clean = prepare(NewEntry(content=body, type=sources[0].type or "learned",
                             label="--content"), index.dirs, author)
    for row in by_hash(index, content_hash(clean.content)):
        if row["status"] == "redacted":
            raise BadInput(f"matches redacted entry {row['id']}; redacted text is not"
                           " added again")
    entry = build.merged_entry(sources, clean.content, why, author, source="manual")
    names = ", ".join(short_id(s.id) for s in sources)
    return [entry], f"merged {names} into {short_id(entry.id)}"


def flag(index: Index, author: str, why: str, ref: str, status: str) -> tuple[list[Record], str]:
    row = resolve(index, ref)
    _not_redacted(row)
    if row["status"] == "superseded":
        raise BadInput(f"entry {short_id(row['id'])} is superseded; flag the entry that"
                       " replaced it (git memory show shows which)")
    record = build.status(row["id"], status, why, author)
    return [record], f"flagged {short_id(row['id'])} {status}"


def resolve_any(index: Index, ref: str) -> Row:
    """An entry by id, short id or key; else any record by id (a curation record whose
    reason holds a secret is redacted and purged by its id like an entry)."""
    row = find_entry(index, ref) or find_record(index, ref)
    if row is None:
        raise NotFound(f"no entry or record {ref!r}")
    _writable(row)
    return row


def redact(index: Index, author: str, why: str, ref: str) -> tuple[list[Record], str]:
    row = resolve_any(index, ref)
    if row["kind"] == "entry":
        _not_redacted(row)
    if row["kind"] == "redact":
        raise BadInput(f"{short_id(row['id'])} is a redact record; it cannot be redacted")
    if row["status"] == "redacted" or redaction_of(index, row["id"]) is not None:
        raise BadInput(f"{short_id(row['id'])} is redacted already; purge it with"
                       f" `git memory purge {short_id(row['id'])}`")
    text = row["content"] if row["kind"] == "entry" else row["fields"]
    record = build.redact(row["id"], text, why, author)
    short = short_id(row["id"])
    return [record], (f"redacted {short}: hidden everywhere from now on; its text stays"
                      f" in history until `git memory purge {short}`")


def event(index: Index, author: str, why: str, kind: str, ref: str) -> tuple[list[Record], str]:
    """A reinforce or contradict record of one entry."""
    row = resolve(index, ref)
    _not_redacted(row)
    reinforce = kind == "reinforce"
    record = build.event(kind, row["id"], why or ("confirmed by hand" if reinforce else ""), author)
    return [record], f"{'reinforced' if reinforce else 'contradicted'} {short_id(row['id'])}"


# -- the review's decisions (`git memory review`, the web view's review page) -----------

ACCEPTED = "accepted in review"
EDITED = "edited in review"
_KEEP_FIELDS = ("status", "review_reason", "merged_from", "supersedes")  # not carried over


def reviewable(index: Index, ref: str) -> Row:
    """The entry `ref` names (NotFound), still in view (BadInput): a review may also
    decide about an entry that is not waiting, as `flag` and `redact` could."""
    row = resolve(index, ref)
    if row["status"] == "superseded":
        raise BadInput(f"entry {short_id(row['id'])} is superseded; review what replaced it"
                       f" (git memory show {short_id(row['id'])} names it)")
    if row["status"] == "redacted":
        raise BadInput(f"entry {short_id(row['id'])} is redacted; nothing to review")
    return row


def _rows(index: Index, refs: list[str]) -> list[Row]:
    rows: dict[str, Row] = {}
    for ref in refs:
        row = reviewable(index, ref)
        rows.setdefault(row["id"], row)  # the same entry named twice counts once
    return list(rows.values())


def accept(index: Index, author: str, why: str, refs: list[str]) -> tuple[list[Record], str]:
    """A `status` record making each entry `canonical`, the reviewer as its author."""
    rows = _rows(index, refs)
    made = [build.status(r["id"], "canonical", why or ACCEPTED, author, source="review")
            for r in rows]
    return made, "accepted " + ", ".join(short_id(r["id"]) for r in rows)


def reject(index: Index, author: str, why: str, refs: list[str]) -> tuple[list[Record], str]:
    """A `redact` record for each entry (hidden, its text refused from then on)."""
    rows = _rows(index, refs)
    made = [build.redact(r["id"], r["content"], f"rejected in review: {why}", author,
                         source="review") for r in rows]
    return made, "rejected " + ", ".join(short_id(r["id"]) for r in rows)


def _replacement(index: Index, row: Row, text: str, author: str) -> Record | str:
    """The new entry for an edit, or the id of a visible entry holding that text already."""
    old = entry_dict(row)
    fields = {k: v for k, v in old["fields"].items() if k not in _KEEP_FIELDS}
    record = prepare(NewEntry(content=text, type=old["type"], tags=old["tags"],
                              origin=old["origin"], fields=fields, label="the new text",
                              allow_cut=False), index.dirs, author)
    holders = by_hash(index, content_hash(record.content))
    if any(other["id"] == row["id"] for other in holders):
        raise BadInput("the new text is the same as the old; accept the entry instead")
    for other in holders:
        if other["status"] == "redacted":
            raise BadInput(f"matches redacted entry {other['id']}; redacted text is not added"
                           " again")
        if other["kind"] == "entry" and other["status"] != "superseded":
            return str(other["id"])
    return record


def edit(index: Index, author: str, why: str, ref: str, body: str) -> tuple[list[Record], str]:
    """A new canonical entry with `body` and a supersede record old -> new (or old -> the
    visible entry that says it already)."""
    row = reviewable(index, ref)
    new = _replacement(index, row, body, author)
    made: list[Record] = []
    if isinstance(new, Record):
        new.fields.update(status="canonical", review_reason=why or EDITED)
        made.append(new)
    by = new.id if isinstance(new, Record) else new
    made.append(build.supersede(row["id"], by, why or EDITED, author, source="review"))
    return made, f"edited {short_id(row['id'])}: superseded by {short_id(by)}"

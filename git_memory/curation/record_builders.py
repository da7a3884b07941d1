"""Builders for curation records (each with an author, a time and a `review_reason`) and
the git trailers that go with their commits."""

from __future__ import annotations

import hashlib
import json
from typing import Any

from git_memory.errors import BadInput, SecretFound
from git_memory.model import Record, content_hash, crockford, new_id, utc_now
from git_memory.sanitize.scan import scan_string

STATUS_CHOICES = ("needs_review", "canonical", "active")


def check_reason(reason: str | None) -> str:
    """Curation always says why; an empty reason is refused, and so is one holding a
    secret (it would be stored on the record and in the commit's Review-Reason trailer)."""
    text = " ".join((reason or "").split())
    if not text:
        raise BadInput("a reason is required (--reason TEXT): curation records say why")
    # Scanned as typed and as stored: a structure such as a Kubernetes Secret is only
    # recognisable before its lines are folded into one.
    found = scan_string(reason or "", "--reason") or scan_string(text, "--reason")
    if found:
        raise SecretFound(found.rule, "--reason")
    return text


def derived_id(ms: int, seed: str) -> str:
    """A ULID-shaped id whose random part comes from `seed`: a proposal's dry run shows
    byte for byte the ids `--apply` and `--propose` write."""
    rand = int.from_bytes(hashlib.sha256(seed.encode("utf-8")).digest()[:10], "big")
    return crockford(ms, 10) + crockford(rand, 16)


def event(
    kind: str,
    target: str,
    reason: str,
    author: str,
    *,
    created: str | None = None,
    source: str = "manual",
    **extra: Any,
) -> Record:
    """A curation event record aimed at one entry."""
    fields: dict[str, Any] = {"target": target, "review_reason": reason}
    fields.update({k: v for k, v in extra.items() if v is not None})
    return Record(
        id=new_id(), kind=kind, created=created or utc_now(), author=author,
        source=source, fields=fields,
    )


def supersede(old: str, new: str, reason: str, author: str, **kw: Any) -> Record:
    return event("supersede", old, reason, author, by=new, **kw)


def status(target: str, value: str, reason: str, author: str, **kw: Any) -> Record:
    if value not in STATUS_CHOICES:
        raise BadInput(f"unknown status {value!r}; expected one of: {', '.join(STATUS_CHOICES)}")
    return event("status", target, reason, author, status=value, **kw)


def redact(target: str, text: str, reason: str, author: str, **kw: Any) -> Record:
    """Keeps the hash of the hidden text, so the writer refuses it again after a purge."""
    return event("redact", target, reason, author, content_hash=content_hash(text), **kw)


def merged_entry(
    sources: list[Record], content: str, reason: str, author: str, **kw: Any
) -> Record:
    """The canonical entry replacing `sources`: type of the first, union of tags."""
    tags: list[str] = []
    for record in sources:
        tags.extend(t for t in record.tags if t not in tags)
    return merged_from_ids([r.id for r in sources], sources[0].type, tags, content, reason,
                           author, **kw)


def merged_from_ids(
    ids: list[str], kind: str | None, tags: list[str], content: str, reason: str, author: str,
    **kw: Any,
) -> Record:
    """`merged_entry` from what it needs of the sources (curate reads no more at scale)."""
    return Record(
        id=new_id(), kind="entry", type=kind, content=content, tags=tags,
        created=kw.get("created") or utc_now(), author=author,
        source=kw.get("source", "curate"),
        fields={
            "merged_from": list(ids),
            "status": "canonical",
            "review_reason": reason,
        },
    )


def trailers(records: list[Record]) -> list[tuple[str, str]]:
    """Git trailers so that `git log` of the memory branch reads as provenance."""
    out: list[tuple[str, str]] = []
    for record in records:
        fields = record.fields
        if record.kind == "supersede":
            out.append(("Supersedes", f"{fields.get('target')} (by {fields.get('by')})"))
        elif record.kind == "entry" and fields.get("merged_from"):
            out.append(("Merged-From", ", ".join(fields["merged_from"]) + f" (into {record.id})"))
        elif record.kind in ("status", "reinforce", "contradict", "redact"):
            label = record.kind.capitalize()
            value = str(fields.get("status") or "") if record.kind == "status" else ""
            out.append((label, f"{fields.get('target')}" + (f" -> {value}" if value else "")))
        if fields.get("review_reason"):
            out.append(("Review-Reason", str(fields["review_reason"])))
    return out


def canonical(record: Record) -> str:
    """What a record says, without who and when: the part a proposal hash covers."""
    return json.dumps(
        {
            "kind": record.kind, "type": record.type, "content": record.content,
            "tags": record.tags, "source": record.source, "key": record.key,
            "origin": record.origin, "fields": record.fields,
        },
        sort_keys=True, ensure_ascii=False, default=str,
    )

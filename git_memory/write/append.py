"""The write path for entries: sanitize, deduplicate, refuse redacted text, append. Every
writer goes through here; the index answers "do we have this already?" in milliseconds at
100k entries, so it is brought up to date first."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from git_memory.errors import BadInput, SecretFound
from git_memory.index import entries
from git_memory.index.db import open_index
from git_memory.model import Record, check_type, content_hash, new_id, utc_now
from git_memory.sanitize import audit
from git_memory.sanitize.pipeline import sanitize_for_write, sanitize_tags
from git_memory.sanitize.scan import redact_meta, scan_meta
from git_memory.store.branch import MemoryBranch
from git_memory.store.locate import GitDirs
from git_memory.store.record_format import MalformedRecord, parse_record

REDACTED_MARK = "[REDACTED:"


@dataclass
class NewEntry:
    """An entry a writer wants to add, before sanitizing."""

    content: str
    type: str
    tags: list[str] = field(default_factory=list)
    source: str = "manual"
    origin: dict[str, Any] = field(default_factory=dict)
    key: str | None = None
    created: str | None = None
    fields: dict[str, Any] = field(default_factory=dict)
    label: str = ""  # where it came from, for messages ("line 12")
    allow_cut: bool = True  # a text over the length cap is cut (False: refused)


def redacted_reason(entry_id: str) -> str:
    return f"matches redacted entry {entry_id}; redacted text is not added again"


@dataclass
class WriteOutcome:
    added: list[Record] = field(default_factory=list)
    duplicates: list[tuple[str, str]] = field(default_factory=list)  # (label, existing id)
    rejected: list[tuple[str, str]] = field(default_factory=list)  # (label, reason)
    redacted: list[str] = field(default_factory=list)  # labels whose secrets were replaced
    reinforced: list[str] = field(default_factory=list)
    cut: list[tuple[str, int]] = field(default_factory=list)  # (label, length kept)
    commit: str | None = None

    def refuse(self, label: str, redacted_id: str, strict: bool) -> None:
        """An item whose text `redacted_id` redacted: raised with `strict`, else reported."""
        if strict:
            raise BadInput(redacted_reason(redacted_id))
        self.rejected.append((label, redacted_reason(redacted_id)))

    def duplicate(self, label: str, other: str, reinforce: bool) -> bool:
        """An item `other` holds already; True when it is the first to reinforce `other`."""
        self.duplicates.append((label, other))
        if reinforce and other not in self.reinforced:
            self.reinforced.append(other)
            return True
        return False


def prepare(
    item: NewEntry, dirs: GitDirs | None, author: str, redact_secrets: bool = False,
    replaced: list[str] | None = None, cut: list[int] | None = None,
) -> Record:
    """Sanitize one new entry into a record (BadInput / SecretFound; with `redact_secrets`,
    a secret is replaced by `[REDACTED:rule]`, the field named in `replaced`; a text cut to
    the length cap adds its new length to `cut`). Every field is scanned: what a person
    wrote is refused like the text, but the origin is metadata the tool derived, which
    nobody can fix at this point, so a secret there is always replaced and logged."""
    kind = check_type(item.type)
    content = sanitize_for_write(item.content, source=item.source, dirs=dirs, ref=item.label,
                                 redact=redact_secrets, allow_cut=item.allow_cut, cut=cut)
    key = item.key.strip() if isinstance(item.key, str) and item.key.strip() else None
    record = Record(
        id=new_id(),
        type=kind,
        content=content,
        tags=[str(t) for t in item.tags],
        created=item.created or utc_now(),
        author=author,
        source=item.source,
        origin=item.origin,
        key=key,
        fields=dict(item.fields),
    )
    fields = _secrets_in_fields(record, item, dirs, redact_secrets)
    if replaced is not None:
        replaced.extend(fields)
    record.tags = sanitize_tags(record.tags)
    return record


def _secrets_in_fields(
    record: Record, item: NewEntry, dirs: GitDirs | None, redact_secrets: bool
) -> list[str]:
    """Refuse or replace secrets outside the text (see `prepare`); audit either way.
    The fields whose secrets were replaced."""
    findings = scan_meta(record)
    if not findings:
        return []
    typed = [f for f in findings if not f.field.startswith("origin")]
    if typed and not redact_secrets:
        audit.write(dirs, [audit.Action(f.rule, "refused", f"{f.detail()}: not written",
                                        item.source, item.label) for f in typed])
        raise SecretFound(typed[0].rule, typed[0].where())
    redact_meta(record)
    audit.write(dirs, [audit.Action(f.rule, "redacted", f"{f.detail()}: replaced by"
                                    f" [REDACTED:{f.rule}]", item.source, item.label)
                       for f in findings])
    return [f.field for f in findings]


def write_entries(
    dirs: GitDirs,
    items: list[NewEntry],
    message: str,
    *,
    reinforce_duplicates: bool = True,
    strict: bool = True,
    redact_secrets: bool = False,
    dry_run: bool = False,
) -> WriteOutcome:
    """Append the new, unseen entries in one commit (`dry_run`: say what would be added,
    duplicated or refused, and write nothing, not even the audit log). With `strict`, the
    first bad item raises and nothing is written; else bad items go to `rejected`. A
    duplicate reinforces its entry when `reinforce_duplicates`; redacted text is refused."""
    branch = MemoryBranch(dirs)
    author = branch.author()
    index = open_index(dirs)
    known = Known(index, len(items))
    outcome = WriteOutcome()
    seen_hash: dict[str, str] = {}
    seen_key: dict[str, str] = {}
    records: list[Record] = []
    labels: dict[str, str] = {}
    try:
        for item in items:
            replaced: list[str] = []
            cut: list[int] = []
            try:
                record = prepare(item, None if dry_run else dirs, author, redact_secrets,
                                 replaced, cut)
            except BadInput as exc:
                if strict:
                    raise
                outcome.rejected.append((item.label, str(exc)))
                continue
            if (redact_secrets and REDACTED_MARK in record.content
                    and REDACTED_MARK not in item.content) or replaced:
                outcome.redacted.append(item.label)
            digest = content_hash(record.content)
            existing = known.existing(record.key, digest, seen_key.get(record.key or ""),
                                      seen_hash.get(digest))
            if existing is not None:
                status, other = existing
                if status == "redacted":
                    outcome.refuse(item.label, other, strict)
                else:
                    outcome.duplicate(item.label, other, reinforce_duplicates)
                continue
            seen_hash[digest] = record.id
            if record.key:
                seen_key[record.key] = record.id
            records.append(record)
            labels[record.id] = item.label
            if cut:
                outcome.cut.append((item.label, cut[0]))
    finally:
        checked = index.stamp  # the tip every check above was made against
        index.close()
    events = [_reinforce(eid, author) for eid in outcome.reinforced]
    if dry_run:
        outcome.added = records
        return outcome
    if records or events:
        written: dict[str, str] = {}
        recheck = _Recheck(branch, outcome, labels, author, reinforce_duplicates, strict)
        final = records + events
        outcome.commit = branch.append(
            final, message, written=written, scanned=records, recheck=recheck,
            checked=checked)
        if recheck.final is not None:
            final = recheck.final
            records = [r for r in final if r.kind == "entry"]
        refresh_index(dirs, {r.path: (written[r.path], r) for r in final if r.path in written})
    outcome.added = records
    return outcome


class _Recheck:
    """The duplicate check again, against what other writers committed since the index
    was read (store.branch.append calls it inside its compare-and-swap loop): concurrent
    writers of the same text or key store one entry; the later ones reinforce it."""

    def __init__(
        self, branch: MemoryBranch, outcome: WriteOutcome, labels: dict[str, str],
        author: str, reinforce: bool, strict: bool,
    ) -> None:
        self.branch, self.outcome, self.labels = branch, outcome, labels
        self.author, self.reinforce, self.strict = author, reinforce, strict
        self.final: list[Record] | None = None

    def __call__(self, old: str | None, new: str | None, pending: list[Record]) -> list[Record]:
        if new is None:
            return pending
        hashes, keys, redacted = landed(self.branch, old, new)
        kept: list[Record] = []
        for record in pending:
            if record.kind != "entry":
                kept.append(record)
                continue
            digest = content_hash(record.content)
            other = keys.get(record.key or "") or hashes.get(digest)
            label = self.labels.get(record.id, "")
            if digest in redacted:
                self.outcome.refuse(label, redacted[digest], self.strict)
            elif other is not None:
                if self.outcome.duplicate(label, other, self.reinforce):
                    kept.append(_reinforce(other, self.author))
            else:
                kept.append(record)
        self.final = kept
        return kept


def landed(
    branch: MemoryBranch, old: str | None, new: str
) -> tuple[dict[str, str], dict[str, str], dict[str, str]]:
    """Text hashes, keys and redacted hashes of the records `new` has and `old` lacks."""
    files = (branch.changes(old, new)[0] if old and branch.has_commit(old)
             else list(branch.iter_files(new)))
    hashes: dict[str, str] = {}
    keys: dict[str, str] = {}
    redacted: dict[str, str] = {}
    for change in files:
        try:
            record = parse_record(branch.read_blob(change.blob), change.path)
        except (MalformedRecord, KeyError, ValueError):
            continue  # the index counts it; it duplicates nothing
        if record.kind == "entry":
            hashes.setdefault(content_hash(record.content), record.id)
            if record.key:
                keys.setdefault(record.key, record.id)
        elif record.kind == "redact" and record.fields.get("content_hash"):
            redacted[str(record.fields["content_hash"])] = str(record.fields.get("target"))
    return hashes, keys, redacted


def refresh_index(dirs: GitDirs, known: dict[str, tuple[str, Record]]) -> None:
    """Bring the index up to the commit just written, so the next reader finds it warm. The
    records just written (`known`: path -> (blob id, record)) go in as they are: reading them
    back is a third of the build at 100k. An index problem is left for the next reader."""
    try:
        open_index(dirs, known=known).close()
    except Exception:  # noqa: BLE001 - the index is derived; never fail a landed write
        pass


class Known:
    """What the memory already holds, by key and by text hash: a large batch loads both maps
    once, a small one asks the index per item (cheaper than 100k rows for one `add`)."""

    PRELOAD = 2000

    def __init__(self, index: Any, batch: int) -> None:
        self.index = index
        self.keys: dict[str, tuple[str, str]] | None = None
        self.hashes: dict[str, list[tuple[str, str, str | None]]] | None = None
        if batch >= self.PRELOAD:
            self.keys = entries.keys(index)
            self.hashes = entries.hashes(index)

    def by_key(self, key: str) -> tuple[str, str] | None:
        if self.keys is not None:
            return self.keys.get(key)
        row = entries.by_key(self.index, key)
        return None if row is None else (row["status"], row["id"])

    def existing(
        self, key: str | None, digest: str, key_before: str | None, text_before: str | None
    ) -> tuple[str, str] | None:
        """(status, id) of an entry a new one duplicates: by key first, then by text, each
        an earlier item of this write (`key_before`, `text_before`: its id) before the memory."""
        if key:
            if key_before is not None:
                return "active", key_before
            found = self.by_key(key)
            if found is not None:
                return found
        if text_before is not None:
            return "active", text_before
        return self.by_text(digest)

    def by_text(self, digest: str) -> tuple[str, str] | None:
        """(status, id) of an entry of the memory holding this text: redacted text wins (it
        is refused); then an entry people still see; a text that only a superseded entry
        holds leads to what replaced it."""
        if self.hashes is not None:
            rows = self.hashes.get(digest, [])
        else:
            rows = [(r["status"], r["id"], r["state"]) for r in entries.by_hash(self.index, digest)]
        for status, rid, _ in rows:
            if status == "redacted":
                return "redacted", rid
        for status, rid, _ in rows:
            if status != "superseded":
                return status, rid
        for status, rid, state in rows:
            successors = json.loads(state).get("superseded_by", []) if state else []
            return (status, successors[-1]) if successors else (status, rid)
        return None


def _reinforce(target: str, author: str) -> Record:
    return Record(
        id=new_id(),
        kind="reinforce",
        created=utc_now(),
        author=author,
        source="manual",
        fields={"target": target, "review_reason": "the same text was added again"},
    )


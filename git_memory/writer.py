"""The write path for entries: sanitize, deduplicate, refuse redacted text, append.

Every writer (`add`, `import`, commit capture, transcript capture, distillation)
goes through `write_entries`, so the same checks hold whatever the source. The
index is brought up to date first because it answers "do we have this already?"
in milliseconds at 100k entries. Never prints; may import `store`, `index`,
`sanitize`, `model`, `errors`.
"""

from __future__ import annotations

import itertools
import json
from array import array
from pathlib import Path
from collections import deque
from dataclasses import dataclass, field
from typing import Any, Callable, Iterable, Iterator, NamedTuple

from git_memory.errors import BadInput, SecretFound
from git_memory.index import entries, stats
from git_memory.index.db import open_index
from git_memory.model import Record, check_type, content_hash, new_id, utc_now
from git_memory.sanitize import audit
from git_memory.sanitize.pipeline import sanitize_for_write, sanitize_tags
from git_memory.sanitize.scan import redact_meta, scan_meta
from git_memory.store.branch import STAGED_NAME, MemoryBranch
from git_memory.store.packwrite import compress_blob
from git_memory.store.record_format import dump_record, record_path
from git_memory.store.locate import GitDirs

Progress = Callable[[int, int], None]
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


@dataclass
class WriteOutcome:
    added: list[Record] = field(default_factory=list)
    duplicates: list[tuple[str, str]] = field(default_factory=list)  # (label, existing id)
    rejected: list[tuple[str, str]] = field(default_factory=list)  # (label, reason)
    redacted: list[str] = field(default_factory=list)  # labels whose secrets were replaced
    reinforced: list[str] = field(default_factory=list)
    cut: list[tuple[str, int]] = field(default_factory=list)  # (label, length kept)
    commit: str | None = None


def prepare(
    item: NewEntry, dirs: GitDirs | None, author: str, redact_secrets: bool = False,
    replaced: list[str] | None = None, cut: list[int] | None = None,
) -> Record:
    """Sanitize one new entry into a record (raises BadInput / SecretFound; with
    `redact_secrets`, a secret is replaced by `[REDACTED:rule]` instead; a text cut
    to the length cap appends its new length to `cut`).

    Every field is scanned, not only the text: key, tags, type fields at any depth,
    origin. What a person wrote (key, tags, fields) is refused like the text; the
    origin is metadata the tool derived (branch names, paths), which nobody can fix
    at this point, so a secret there is always replaced and logged. The fields whose
    secrets were replaced are added to `replaced` when given."""
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
    progress: Progress | None = None,
    redact_secrets: bool = False,
    dry_run: bool = False,
) -> WriteOutcome:
    """Append the new, unseen entries in one commit (`dry_run`: say what would be added,
    duplicated or refused, and write nothing, not even the audit log).

    With `strict`, the first bad item raises and nothing is written (single adds);
    otherwise bad items are reported in `rejected` (imports). A duplicate of an
    active entry reinforces it when `reinforce_duplicates` (spec: duplicates are
    not appended twice, they reinforce); text matching a redacted entry is refused.
    """
    branch = MemoryBranch(dirs)
    author = branch.author()
    index = open_index(dirs)
    known = _Known(index, len(items))
    outcome = WriteOutcome()
    seen_hash: dict[str, str] = {}
    seen_key: dict[str, str] = {}
    records: list[Record] = []
    labels: dict[str, str] = {}
    try:
        for number, item in enumerate(items, 1):
            if progress and number % 1000 == 0:
                progress(number, len(items))
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
            existing = _existing(known, record, digest, seen_key, seen_hash)
            if existing is not None:
                status, other = existing
                if status == "redacted":
                    reason = f"matches redacted entry {other}; redacted text is not added again"
                    if strict:
                        raise BadInput(reason)
                    outcome.rejected.append((item.label, reason))
                    continue
                outcome.duplicates.append((item.label, other))
                if reinforce_duplicates and other not in outcome.reinforced:
                    outcome.reinforced.append(other)
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
        _refresh_index(dirs, {r.path: (written[r.path], r) for r in final if r.path in written})
    outcome.added = records
    return outcome


@dataclass
class BulkOutcome:
    """What `write_bulk` did: like WriteOutcome, with the entries added counted, not kept."""

    added: int = 0
    seen: int = 0  # items read
    duplicates: list[tuple[str, str]] = field(default_factory=list)  # (label, existing id)
    rejected: list[tuple[str, str]] = field(default_factory=list)  # (label, reason)
    redacted: list[str] = field(default_factory=list)
    cut: list[tuple[str, int]] = field(default_factory=list)
    commit: str | None = None


class _Staged:
    """The entries of a bulk write between their blob and the commit, held compactly:
    per folder, a list of packed bytes (blob id, record id, file name: what
    `MemoryBranch.append_staged` reads), and what the duplicate checks need by
    position (text hash and key -> position; position -> folder, slot, line).
    A million entries take a few hundred bytes each, not a Record each."""

    def __init__(self) -> None:
        self.folders: dict[str, list[bytes]] = {}
        self.where = array("I")  # position -> folder number
        self.slot = array("I")  # position -> index in that folder's list
        self.line = array("I")  # position -> input line (for labels)
        self.numbers: dict[str, int] = {}  # folder path -> folder number
        self.lists: list[list[bytes]] = []  # folder number -> its entries
        self.hashes: dict[bytes, int] = {}
        self.keys: dict[str, int] = {}
        self.count = 0

    def add(self, path: str, blob: bytes, rid: str, key: str | None, digest: bytes,
            line: int) -> None:
        folder, _, name = path.rpartition("/")
        number = self.numbers.get(folder)
        if number is None:
            number = self.numbers[folder] = len(self.lists)
            self.lists.append(self.folders.setdefault(folder, []))
        items = self.lists[number]
        position = len(self.where)
        self.where.append(number)
        self.slot.append(len(items))
        self.line.append(line)
        items.append(blob + rid.encode("ascii").ljust(26)[:26] + name.encode("utf-8"))
        self.hashes[digest] = position
        if key:
            self.keys[key] = position
        self.count += 1

    def id_at(self, position: int) -> str:
        item = self.lists[self.where[position]][self.slot[position]]
        return item[20:STAGED_NAME].decode("ascii").strip()

    def drop(self, position: int) -> bool:
        """Leave the entry at `position` out of the commit; False when it is out already."""
        items = self.lists[self.where[position]]
        if not items[self.slot[position]]:
            return False
        items[self.slot[position]] = b""
        self.count -= 1
        return True


def write_bulk(
    dirs: GitDirs,
    items: Iterable[NewEntry],
    message: Callable[[int], str],
    *,
    progress: Callable[[], None] | None = None,
    redact_secrets: bool = False,
    workers: int = 0,
) -> BulkOutcome:
    """`write_entries` for an import of any size, streamed: each item is prepared,
    checked against the memory and the items before it, dumped and its blob written
    to one pack as it comes, so what stays in memory is a few hundred bytes per
    entry (`_Staged`), never the items, records or blobs. Then one commit.

    With `workers`, that many processes prepare, dump and compress the items, in
    order, a chunk at a time (at most two chunks per worker in flight, so memory stays
    flat); this process checks them for duplicates and writes them, as it would alone.

    The same checks as `write_entries` with `strict=False, reinforce_duplicates=False`.
    Nothing is written when reading `items` raises (a malformed line): the pack is
    removed and the audit lines of the entries read so far are dropped with it."""
    branch = MemoryBranch(dirs)
    author = branch.author()
    outcome = BulkOutcome()
    staged = _Staged()
    known: dict[str, tuple[str, Record]] | None = {}
    pack = branch.pack_stream()
    try:
        with audit.held() as held:
            made = (_made_in_workers(items, dirs, author, redact_secrets, workers) if workers
                    else (_make(item, dirs, author, redact_secrets) for item in items))
            checked = _stage(dirs, made, outcome, staged, pack, progress, known)
        pack.finish()
    except BaseException:
        pack.abort()
        raise
    audit.write(dirs, held)  # the input was read whole: what the sanitizer did stands
    if staged.count:
        recheck = _StagedRecheck(branch, outcome, staged)
        outcome.commit = branch.append_staged(staged.folders, message(staged.count), checked,
                                              recheck)
        if outcome.commit and known:
            _refresh_index(dirs, known)  # a file the recheck left out is never looked up
    outcome.added = staged.count if outcome.commit else 0
    return outcome


class _Made(NamedTuple):
    """One item prepared for a bulk write: what the checks and the pack need of it.
    A tuple, so that a worker's results cross the process boundary as plain tuples
    (a dataclass pickles its class and a dict of field names per item: twice the cost)."""

    label: str
    id: str
    key: str | None
    content: str
    digest: str  # content_hash of the text
    path: str
    oid: bytes
    size: int
    packed: bytes  # the blob, compressed for the pack
    redacted: bool
    cut: int | None
    record: Record | None = None  # kept for the index only when made in this process


def _make(
    item: NewEntry, dirs: GitDirs, author: str, redact_secrets: bool, in_worker: bool = False
) -> _Made | tuple[str, str]:
    """`prepare` and the file of one item: a _Made, or (label, reason) when it is refused.
    Pure but for the audit lines, which a bulk write holds (audit.held)."""
    replaced: list[str] = []
    cut: list[int] = []
    try:
        record = prepare(item, dirs, author, redact_secrets, replaced, cut)
    except BadInput as exc:
        return item.label, str(exc)
    redacted = bool((redact_secrets and REDACTED_MARK in record.content
                     and REDACTED_MARK not in item.content) or replaced)
    record.path = record_path(record)
    oid, size, packed = compress_blob(dump_record(record).encode("utf-8"))
    return _Made(item.label, record.id, record.key, record.content, content_hash(record.content),
                 record.path, oid, size, packed, redacted, cut[0] if cut else None,
                 None if in_worker else record)


CHUNK = 500  # items per task sent to a worker
_Sent = tuple[str, str, list[str], str, dict[str, Any], "str | None", "str | None",
              dict[str, Any], str, bool]


def _sent(item: NewEntry) -> _Sent:
    """An item as it goes to a worker: a plain tuple of its fields, in NewEntry's order
    (pickled in half the time of the dataclass)."""
    return (item.content, item.type, item.tags, item.source, item.origin, item.key,
            item.created, item.fields, item.label, item.allow_cut)


def _make_chunk(
    chunk: list[_Sent], where: tuple[str, str, str | None], author: str, redact_secrets: bool
) -> tuple[list[tuple[Any, ...]], list[audit.Action]]:
    """A worker's task: `_make` of each item, as plain tuples (a _Made without its record,
    or (label, reason)), and the audit lines they logged (`where`: the GitDirs paths,
    which cross the process boundary as strings)."""
    dirs = GitDirs(Path(where[0]), Path(where[1]), Path(where[2]) if where[2] else None)
    with audit.held() as lines:
        made = [tuple(_make(NewEntry(*sent), dirs, author, redact_secrets, True)[:11])
                for sent in chunk]
    return made, lines


def _made_in_workers(
    items: Iterable[NewEntry], dirs: GitDirs, author: str, redact_secrets: bool, workers: int
) -> Iterator[_Made | tuple[str, str]]:
    """`_make` of every item, in order, by `workers` processes."""
    import multiprocessing  # a large import only

    methods = multiprocessing.get_all_start_methods()
    context = multiprocessing.get_context("fork" if "fork" in methods else None)
    pending: deque[Any] = deque()
    where = (str(dirs.git_dir), str(dirs.common_dir),
             str(dirs.work_tree) if dirs.work_tree is not None else None)
    with context.Pool(workers) as pool:
        iterator = iter(items)
        while True:
            chunk = [_sent(item) for item in itertools.islice(iterator, CHUNK)]
            if chunk:
                pending.append(pool.apply_async(_make_chunk, (chunk, where, author, redact_secrets)))
            while pending and (not chunk or len(pending) > 2 * workers):
                made, lines = pending.popleft().get()
                audit.write(dirs, lines)
                for one in made:  # (label, reason) of a refused item, else a _Made's fields
                    yield _Made(*one) if len(one) > 2 else one  # type: ignore[misc]
            if not chunk:
                return


KEEP_RECORDS = 20000  # up to this many, the records go to the index as they are (`known`)


def _stage(
    dirs: GitDirs, made: Iterable[_Made | tuple[str, str]], outcome: BulkOutcome,
    staged: _Staged, pack: Any, progress: Callable[[], None] | None,
    known_records: dict[str, tuple[str, Record]] | None,
) -> str | None:
    """Check every prepared item against the memory and the items before it, and write
    the blob of each new one; the tip the checks were made against.

    `known_records` collects path -> (blob, record) of a small import made in this process,
    so the index takes them without reading them back (`_refresh_index`); it is emptied
    once it would pass KEEP_RECORDS (then the index's build reads the pack)."""
    index = open_index(dirs)
    try:
        # A memory already large is asked per item: its maps would cost more than the import.
        known = _Known(index, _Known.PRELOAD if stats.sizes(index)["records"] <= 200_000 else 0)
        for item in made:
            outcome.seen += 1
            if progress is not None:
                progress()
            if not isinstance(item, _Made):  # (label, reason): refused
                outcome.rejected.append(item)
                continue
            if item.redacted:
                outcome.redacted.append(item.label)
            digest = bytes.fromhex(item.digest)
            existing = _existing_bulk(known, item, digest, staged)
            if existing is not None:
                status, other = existing
                if status == "redacted":
                    outcome.rejected.append(
                        (item.label, f"matches redacted entry {other}; redacted text is not added again"))
                else:
                    outcome.duplicates.append((item.label, other))
                continue
            pack.add_compressed(item.size, item.packed, item.oid)
            staged.add(item.path, item.oid, item.id, item.key, digest, _line_of(item.label))
            if known_records is not None and item.record is not None:
                if len(known_records) < KEEP_RECORDS:
                    known_records[item.path] = (item.oid.hex(), item.record)
                else:
                    known_records.clear()  # a large import: held no longer
                    known_records = None
            if item.cut is not None:
                outcome.cut.append((item.label, item.cut))
        return index.stamp
    finally:
        index.close()


def _line_of(label: str) -> int:
    tail = label.rsplit(" ", 1)[-1]
    return int(tail) if tail.isdigit() else 0


def _existing_bulk(known: _Known, item: _Made, digest: bytes, staged: _Staged) -> tuple[str, str] | None:
    """`_existing` against the memory and the entries this write staged before."""
    if item.key:
        if item.key in staged.keys:
            return "active", staged.id_at(staged.keys[item.key])
        found = known.by_key(item.key)
        if found is not None:
            return found
    if digest in staged.hashes:
        return "active", staged.id_at(staged.hashes[digest])
    return _by_text(known, item.digest, item.content)


class _StagedRecheck:
    """`_Recheck` for a bulk write: what other writers committed since the checks, against
    the staged entries (by their text hash and key), which it drops in place."""

    def __init__(self, branch: MemoryBranch, outcome: BulkOutcome, staged: _Staged) -> None:
        self.branch, self.outcome, self.staged = branch, outcome, staged

    def __call__(self, old: str | None, new: str) -> bool:
        hashes, keys, redacted = _landed(self.branch, old, new)
        staged = self.staged
        for digest, other in redacted.items():
            position = staged.hashes.get(bytes.fromhex(digest))
            if position is not None and staged.drop(position):
                self.outcome.rejected.append(
                    (f"line {staged.line[position]}",
                     f"matches redacted entry {other}; redacted text is not added again"))
        found = [(staged.hashes.get(bytes.fromhex(d)), other) for d, other in hashes.items()]
        found += [(staged.keys.get(k), other) for k, other in keys.items()]
        for position, other in found:
            if position is not None and staged.drop(position):
                self.outcome.duplicates.append((f"line {staged.line[position]}", other))
        return staged.count > 0


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
        hashes, keys, redacted = _landed(self.branch, old, new)
        kept: list[Record] = []
        for record in pending:
            if record.kind != "entry":
                kept.append(record)
                continue
            digest = content_hash(record.content)
            other = keys.get(record.key or "") or hashes.get(digest)
            if digest in redacted:
                reason = f"matches redacted entry {redacted[digest]}; redacted text is not added again"
                if self.strict:
                    raise BadInput(reason)
                self.outcome.rejected.append((self.labels.get(record.id, ""), reason))
            elif other is not None:
                self.outcome.duplicates.append((self.labels.get(record.id, ""), other))
                if self.reinforce and other not in self.outcome.reinforced:
                    self.outcome.reinforced.append(other)
                    kept.append(_reinforce(other, self.author))
            else:
                kept.append(record)
        self.final = kept
        return kept


def _landed(
    branch: MemoryBranch, old: str | None, new: str
) -> tuple[dict[str, str], dict[str, str], dict[str, str]]:
    """Text hashes, keys and redacted hashes of the records `new` has and `old` lacks."""
    from git_memory.store.record_format import MalformedRecord, parse_record

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


def _refresh_index(dirs: GitDirs, known: dict[str, tuple[str, Record]]) -> None:
    """Bring the index up to the commit just written, while pygit2 is loaded anyway,
    so the next reader (recall, context) finds it warm. The records just written
    (`known`: path -> (blob id, record)) go in as they are, not read back from git:
    at 100k entries that is a third of the index build. The write has landed
    already: an index problem here is left for the next reader to repair."""
    try:
        open_index(dirs, known=known).close()
    except Exception:  # noqa: BLE001 - the index is derived; never fail a landed write
        pass


class _Known:
    """What the memory already holds, by key and by text hash.

    A large batch (an import) loads both maps once; a small one asks the index
    per item, which is cheaper than reading 100k rows for one `add`."""

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

    def by_hash(self, digest: str, text: str) -> list[tuple[str, str, str | None]]:
        if self.hashes is not None:
            return self.hashes.get(digest, [])
        return [(r["status"], r["id"], r["state"]) for r in entries.by_hash(self.index, text)]


def _existing(
    known: _Known, record: Record, digest: str, seen_key: dict[str, str], seen_hash: dict[str, str]
) -> tuple[str, str] | None:
    """(status, id) of an entry this one duplicates, by key first, then by text.

    Redacted text wins (it is refused); then an entry people still see; a text that
    only a superseded entry holds leads to what replaced it."""
    if record.key:
        if record.key in seen_key:
            return "active", seen_key[record.key]
        found = known.by_key(record.key)
        if found is not None:
            return found
    if digest in seen_hash:
        return "active", seen_hash[digest]
    return _by_text(known, digest, record.content)


def _by_text(known: _Known, digest: str, text: str) -> tuple[str, str] | None:
    """(status, id) of an entry of the memory holding this text: redacted text wins (it
    is refused); then an entry people still see; a text that only a superseded entry
    holds leads to what replaced it."""
    rows = known.by_hash(digest, text)
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


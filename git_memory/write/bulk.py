"""Import's write path: any number of entries, streamed into one pack and one commit, with
the checks of `write.append` and a few hundred bytes per entry held in memory."""

from __future__ import annotations

from array import array
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

from git_memory.write.bulk_items import LineSource, Made, make_all
from git_memory.index import stats
from git_memory.index.db import open_index
from git_memory.model import Record
from git_memory.sanitize import audit
from git_memory.store import leftovers
from git_memory.store.branch import STAGED_NAME, MemoryBranch
from git_memory.store.locate import GitDirs
from git_memory.write.append import Known, NewEntry, landed, redacted_reason, refresh_index


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
    """The entries of a bulk write between their blob and the commit, held compactly (a few
    hundred bytes each, not a Record): per folder, packed bytes (blob id, record id, file
    name: what `MemoryBranch.append_staged` reads), and by position what the checks need."""

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

    def earlier(self, key: str | None, digest: bytes) -> tuple[str | None, str | None]:
        """The ids of the staged entries with this key and with this text (None: none)."""
        by_key = self.keys.get(key) if key else None
        by_text = self.hashes.get(digest)
        return (None if by_key is None else self.id_at(by_key),
                None if by_text is None else self.id_at(by_text))

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
    items: Iterable[NewEntry] | LineSource,
    message: Callable[[int], str],
    *,
    progress: Callable[[], None] | None = None,
    redact_secrets: bool = False,
    workers: int = 0,
) -> BulkOutcome:
    """`write_entries(strict=False, reinforce_duplicates=False)` for an import of any size:
    each item is checked and its blob written to one pack as it comes, then one commit.
    With `workers`, that many processes prepare (and, for a LineSource, parse) the items;
    this process checks and writes them as it would alone. When reading `items` raises,
    nothing is written: the pack and the audit lines held so far are dropped."""
    branch = MemoryBranch(dirs)
    author = branch.author()
    outcome = BulkOutcome()
    staged = _Staged()
    known: dict[str, tuple[str, Record]] | None = {}
    # What killed imports left (their temporary packs): theirs only, never a live one's.
    leftovers.remove(dirs)
    pack = branch.pack_stream()
    try:
        with audit.held() as held:
            made = make_all(items, dirs, author, redact_secrets, workers)
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
            refresh_index(dirs, known)  # a file the recheck left out is never looked up
    outcome.added = staged.count if outcome.commit else 0
    return outcome


KEEP_RECORDS = 20000  # up to this many, the records go to the index as they are (`known`)


def _stage(
    dirs: GitDirs, made: Iterable[Made | tuple[str, str]], outcome: BulkOutcome,
    staged: _Staged, pack: Any, progress: Callable[[], None] | None,
    known_records: dict[str, tuple[str, Record]] | None,
) -> str | None:
    """Check every prepared item against the memory and the items before it, and write the
    blob of each new one; the tip the checks were made against. `known_records` collects
    path -> (blob, record) for the index (`refresh_index`) up to KEEP_RECORDS, then empties."""
    index = open_index(dirs)
    try:
        # A memory already large is asked per item: its maps would cost more than the import.
        known = Known(index, Known.PRELOAD if stats.sizes(index)["records"] <= 200_000 else 0)
        for item in made:
            outcome.seen += 1
            if progress is not None:
                progress()
            if not isinstance(item, Made):  # (label, reason): refused
                outcome.rejected.append(item)
                continue
            if item.redacted:
                outcome.redacted.append(item.label)
            digest = bytes.fromhex(item.digest)
            existing = known.existing(item.key, item.digest, *staged.earlier(item.key, digest))
            if existing is not None:
                status, other = existing
                if status == "redacted":
                    outcome.rejected.append((item.label, redacted_reason(other)))
                else:
                    outcome.duplicates.append((item.label, other))
                continue
            pack.add_object(item.oid, item.obj, item.crc)
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


class _StagedRecheck:
    """`_Recheck` for a bulk write: the staged entries that other writers committed since
    the checks are dropped in place."""

    def __init__(self, branch: MemoryBranch, outcome: BulkOutcome, staged: _Staged) -> None:
        self.branch, self.outcome, self.staged = branch, outcome, staged

    def __call__(self, old: str | None, new: str) -> bool:
        hashes, keys, redacted = landed(self.branch, old, new)
        staged = self.staged
        for digest, other in redacted.items():
            position = staged.hashes.get(bytes.fromhex(digest))
            if position is not None and staged.drop(position):
                self.outcome.rejected.append((f"line {staged.line[position]}", redacted_reason(other)))
        found = [(staged.hashes.get(bytes.fromhex(d)), other) for d, other in hashes.items()]
        found += [(staged.keys.get(k), other) for k, other in keys.items()]
        for position, other in found:
            if position is not None and staged.drop(position):
                self.outcome.duplicates.append((f"line {staged.line[position]}", other))
        return staged.count > 0

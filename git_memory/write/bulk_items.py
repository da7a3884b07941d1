"""Import's entries made ready for the pack (parsed, prepared, dumped, hashed, made pack
objects), in this process or, for a large import, by worker processes, in order, a chunk at
a time. `write.bulk` checks and writes what this makes."""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, NamedTuple

from git_memory.errors import BadInput
from git_memory.model import Record, content_hash
from git_memory.parallel import ordered
from git_memory.sanitize import audit
from git_memory.store.locate import GitDirs
from git_memory.store.pack import blob_object
from git_memory.store.record_format import dump_record, record_path
from git_memory.write.append import REDACTED_MARK, NewEntry, prepare


LineParse = Callable[[bytes, int], "NewEntry | tuple[str, str] | None"]


@dataclass
class LineSource:
    """The lines of an import file and how to read one, so that the workers parse them too:
    raw lines cross to a worker as bytes (a parsed entry pickles in several times their time).

    `parse(raw, number)` gives a NewEntry, (label, reason) for a line that cannot be one, or
    None for a blank line; a BadInput it raises stops the import (nothing is written). It
    reaches the workers by name: a module-level function (or a partial of one)."""

    raw: Iterable[bytes]
    parse: LineParse
    rejected: list[tuple[str, str]] = field(default_factory=list)
    lines: int = 0

    def items(self) -> Iterator[NewEntry]:
        for number, raw in enumerate(self.raw, 1):
            self.lines = number
            item = self.parse(raw, number)
            if isinstance(item, NewEntry):
                yield item
            elif item is not None:
                self.rejected.append(item)


class Made(NamedTuple):
    """What the checks and the pack need of one item. A tuple, so a worker's results cross as
    plain tuples (a dataclass pickles its class and a dict of field names per item: twice
    the cost)."""

    label: str
    id: str
    key: str | None
    content: str
    digest: str  # content_hash of the text
    path: str
    oid: bytes
    obj: bytes  # the blob as the pack holds it (store.pack.blob_object)
    crc: int  # the CRC-32 of `obj`, for the pack's index
    redacted: bool
    cut: int | None
    record: Record | None = None  # kept for the index only when made in this process


_NO_BLOB = (b"", b"", 0)


class _Prepared(NamedTuple):
    record: Record
    redacted: bool
    cut: int | None


def _prepared(
    item: NewEntry, dirs: GitDirs, author: str, redact_secrets: bool
) -> _Prepared | tuple[str, str]:
    """`prepare` of one item and its file name, or (label, reason) when it is refused."""
    replaced: list[str] = []
    cut: list[int] = []
    try:
        record = prepare(item, dirs, author, redact_secrets, replaced, cut)
    except BadInput as exc:
        return item.label, str(exc)
    redacted = bool((redact_secrets and REDACTED_MARK in record.content
                     and REDACTED_MARK not in item.content) or replaced)
    record.path = record_path(record)
    return _Prepared(record, redacted, cut[0] if cut else None)


def _make_batch(
    items: list[NewEntry], dirs: GitDirs, author: str, redact_secrets: bool,
    in_worker: bool = False,
) -> list[Made | tuple[str, str]]:
    """A Made for each item, or (label, reason) when it is refused: every item prepared (in
    order, for the audit lines), then every record dumped, every blob made, every text
    hashed. One step over 500 items keeps its code and data in the processor's caches: about
    a tenth less CPU time a line (docs/benchmarks.md, "Import: ... a step at a time")."""
    prepared = [_prepared(item, dirs, author, redact_secrets) for item in items]
    dumped = [dump_record(one.record).encode("utf-8") if isinstance(one, _Prepared) else b""
              for one in prepared]
    blobs = [blob_object(text) if text else _NO_BLOB for text in dumped]
    del dumped
    hashes = [content_hash(one.record.content) if isinstance(one, _Prepared) else ""
              for one in prepared]
    made: list[Made | tuple[str, str]] = []
    for item, one, blob, digest in zip(items, prepared, blobs, hashes):
        if not isinstance(one, _Prepared):
            made.append(one)  # (label, reason): refused
            continue
        record = one.record
        made.append(Made(item.label, record.id, record.key, record.content, digest,
                          record.path, *blob, one.redacted, one.cut,
                          None if in_worker else record))
    return made


CHUNK = 500  # items (or lines) per task sent to a worker
_Sent = tuple[str, str, list[str], str, dict[str, Any], "str | None", "str | None",
              dict[str, Any], str, bool]
_Where = tuple[str, str, "str | None"]  # GitDirs' paths, as they cross to a worker


def make_all(
    items: Iterable[NewEntry] | LineSource, dirs: GitDirs, author: str, redact_secrets: bool,
    workers: int,
) -> Iterator[Made | tuple[str, str]]:
    """`_make_batch` of every item, in order: in this process, or by `workers` processes."""
    if not workers:
        entries = items.items() if isinstance(items, LineSource) else items
        return (_make_batch([item], dirs, author, redact_secrets)[0] for item in entries)
    if isinstance(items, LineSource):
        tasks: Iterator[tuple[Callable[..., Any], tuple[Any, ...]]] = _line_tasks(items)
    else:
        tasks = ((_make_chunk, (chunk,)) for chunk in _chunks(items))
    return _made_in_workers(tasks, dirs, author, redact_secrets, workers,
                            items if isinstance(items, LineSource) else None)


def _sent(item: NewEntry) -> _Sent:
    """An item as it goes to a worker: its fields in NewEntry's order (a tuple pickles in
    half the time of the dataclass)."""
    return (item.content, item.type, item.tags, item.source, item.origin, item.key,
            item.created, item.fields, item.label, item.allow_cut)


def _chunks(items: Iterable[NewEntry]) -> Iterator[list[_Sent]]:
    iterator = iter(items)
    while chunk := [_sent(item) for item in itertools.islice(iterator, CHUNK)]:
        yield chunk


def _line_tasks(source: LineSource) -> Iterator[tuple[Callable[..., Any], tuple[Any, ...]]]:
    """The lines of `source` in chunks, each with the number of its first line."""
    iterator = iter(source.raw)
    first = 1
    while chunk := list(itertools.islice(iterator, CHUNK)):
        yield _parse_chunk, (chunk, first, source.parse)
        first += len(chunk)


def _dirs(where: _Where) -> GitDirs:
    return GitDirs(Path(where[0]), Path(where[1]), Path(where[2]) if where[2] else None)


def _make_chunk(
    chunk: list[_Sent], where: _Where, author: str, redact_secrets: bool
) -> tuple[list[tuple[Any, ...]], list[audit.Action]]:
    """A worker's task: `_make_chunk_items` of the items sent."""
    return _make_chunk_items([NewEntry(*sent) for sent in chunk], where, author, redact_secrets)


_Parsed = tuple[list[tuple[Any, ...]], list[audit.Action], list[tuple[str, str]], int,
                "str | None"]


def _parse_chunk(
    chunk: list[bytes], first: int, parse: LineParse, where: _Where, author: str,
    redact_secrets: bool,
) -> _Parsed:
    """A worker's task on raw lines: every line parsed, then made as by `_make_chunk`; also
    the lines the parse rejected, the number of the last line done, and the message of a
    BadInput that stopped the import there (else None; then nothing is made)."""
    items: list[NewEntry] = []
    rejected: list[tuple[str, str]] = []
    number, stop = first - 1, None
    for number, raw in enumerate(chunk, first):
        try:
            item = parse(raw, number)
        except BadInput as exc:
            stop = str(exc)
            break
        if isinstance(item, NewEntry):
            items.append(item)
        elif item is not None:
            rejected.append(item)
    if stop is not None:  # the import stops at this line: nothing of it is written
        return [], [], rejected, number, stop
    made, lines = _make_chunk_items(items, where, author, redact_secrets)
    return made, lines, rejected, number, None


def _make_chunk_items(
    items: list[NewEntry], where: _Where, author: str, redact_secrets: bool
) -> tuple[list[tuple[Any, ...]], list[audit.Action]]:
    """The items made, as plain tuples (a Made without its record, or (label, reason)), and
    the audit lines they logged."""
    with audit.held() as lines:
        made = _make_batch(items, _dirs(where), author, redact_secrets, True)
    return [tuple(one[:11]) for one in made], lines


def _made_in_workers(
    tasks: Iterator[tuple[Callable[..., Any], tuple[Any, ...]]], dirs: GitDirs, author: str,
    redact_secrets: bool, workers: int, source: LineSource | None,
) -> Iterator[Made | tuple[str, str]]:
    """What the tasks made, in order, by `workers` processes. With a `source`, its rejected
    lines and line count are kept as they come, and a line that stops the import raises
    BadInput here, after every line before it."""
    where = (str(dirs.git_dir), str(dirs.common_dir),
             str(dirs.work_tree) if dirs.work_tree is not None else None)
    sent = ((function, (*args, where, author, redact_secrets)) for function, args in tasks)
    for done in ordered(sent, workers):
        audit.write(dirs, done[1])
        if source is not None:
            source.rejected.extend(done[2])
            source.lines = done[3]
            if done[4] is not None:
                raise BadInput(done[4])
        for one in done[0]:  # (label, reason) of a refused item, else a Made's fields
            yield Made(*one) if len(one) > 2 else one  # type: ignore[misc]

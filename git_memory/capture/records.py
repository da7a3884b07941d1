"""Lossless export lines (a header, then every record with its branch path) and folders
(`export DIR`: each record's file at its path), and reading them back as the same records.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any, Iterable

from git_memory.errors import BadInput
from git_memory.model import Record
from git_memory.store.record_format import MalformedRecord, dump_record, parse_record, record_path

HEADER_KEY = "git_memory_export"
VERSION = 1
_PATH_RE = re.compile(r"^(entries|records)/[A-Za-z0-9._/-]+\.md$")


def header(count: int, ref: str) -> dict[str, Any]:
    return {HEADER_KEY: VERSION, "records": count, "ref": ref}


def to_line(record: Record) -> dict[str, Any]:
    return {"id": record.id, "kind": record.kind, "type": record.type,
            "content": record.content, "tags": record.tags, "created": record.created,
            "author": record.author, "source": record.source, "origin": record.origin,
            "key": record.key, "fields": record.fields, "path": record.path}


def is_export(first_line: bytes) -> bool:
    try:
        data = json.loads(first_line)
    except (ValueError, RecursionError):  # not an export's header: the line's reader says why
        return False
    return isinstance(data, dict) and HEADER_KEY in data


def _checked(record: Record, where: str) -> Record:
    """The record as a file would give it back, checked as the branch's are."""
    try:
        parsed = parse_record(dump_record(record).encode("utf-8"),
                              record.path or record_path(record))
    except MalformedRecord as exc:
        raise BadInput(f"{where}: not a valid record ({exc}); nothing imported") from None
    if not _PATH_RE.match(parsed.path) or ".." in parsed.path.split("/"):
        raise BadInput(f"{where}: path {parsed.path!r} is not under entries/ or records/;"
                       " nothing imported")
    return parsed


def _from_line(data: Any, where: str) -> Record:
    if not isinstance(data, dict):
        raise BadInput(f"{where}: not a JSON object; nothing imported")
    fields = data.get("fields") or {}
    if not isinstance(fields, dict):
        raise BadInput(f"{where}: 'fields' is not an object; nothing imported")
    try:
        record = Record(
            id=str(data["id"]), kind=str(data.get("kind") or "entry"), type=data.get("type"),
            content=str(data.get("content") or ""), tags=list(data.get("tags") or []),
            created=str(data.get("created") or ""), author=str(data.get("author") or ""),
            source=str(data.get("source") or "manual"), origin=dict(data.get("origin") or {}),
            key=data.get("key"), fields=dict(fields), path=str(data.get("path") or ""),
        )
    except (KeyError, TypeError, ValueError) as exc:
        raise BadInput(f"{where}: not a record ({exc.__class__.__name__}: {exc});"
                       " nothing imported") from None
    return _checked(record, where)


def read_lines(lines: Iterable[bytes]) -> list[Record]:
    """The records of a JSON-lines export (header first); BadInput names the first bad line."""
    records: list[Record] = []
    expected = None
    for number, raw in enumerate(lines, 1):
        if not raw.strip():
            continue
        try:
            data = json.loads(raw)
        except ValueError:
            raise BadInput(f"line {number}: not JSON; nothing imported") from None
        except RecursionError:  # json's decoder recurses once per level of nesting
            raise BadInput(f"line {number}: JSON nested too deeply; nothing imported") from None
        if number == 1:
            if data.get(HEADER_KEY) != VERSION:
                raise BadInput(f"line 1: export version {data.get(HEADER_KEY)!r} is not one"
                               f" this version reads ({VERSION}); nothing imported")
            expected = data.get("records")
            continue
        records.append(_from_line(data, f"line {number}"))
    if isinstance(expected, int) and expected != len(records):
        raise BadInput(f"the export says {expected} records but holds {len(records)}"
                       " (cut short?); nothing imported")
    return _unique(records)


def read_folder(folder: Path) -> list[Record]:
    """The records of an `export DIR` tree (files under entries/ and records/)."""
    records = []
    for root in ("entries", "records"):
        for path in sorted((folder / root).rglob("*.md")):
            rel = path.relative_to(folder).as_posix()
            try:
                record = parse_record(path.read_bytes(), rel)
            except MalformedRecord as exc:
                raise BadInput(f"{rel}: not a valid record ({exc}); nothing imported") from None
            records.append(_checked(record, rel))
    if not records:
        raise BadInput(f"{folder} holds no records (entries/ or records/); nothing imported")
    return _unique(records)


def _unique(records: list[Record]) -> list[Record]:
    seen: dict[str, str] = {}
    for record in records:
        if record.id in seen:
            raise BadInput(f"record {record.id} appears twice ({seen[record.id]} and"
                           f" {record.path}); nothing imported")
        seen[record.id] = record.path
    return records

"""Record files: what we write is valid YAML, and hand-edited files still read."""

from __future__ import annotations

import pytest
import yaml

from git_memory.model import Record, new_id
from git_memory.store.record_format import MalformedRecord, dump_record, parse_record, record_path


def _record(**extra) -> Record:
    base = dict(
        id=new_id(), type="decision", content="Use “SQLite” — café\nsecond line",
        tags=["db", "true", "1.5"], created="2026-11-26T03:40:12Z",
        author="Jane Doe <jane@example.com>", source="commit",
        origin={"commit": "3f2a9c1", "branch": "feat/login", "paths": ["src/a.py"]},
        key="decision-use-sqlite", fields={"alternatives": ["postgres"], "rationale": "small: fast"},
    )
    base.update(extra)
    return Record(**base)  # type: ignore[arg-type]


def test_round_trip_and_yaml_agree() -> None:
    record = _record()
    text = dump_record(record)
    parsed = parse_record(text.encode("utf-8"), "p.md")
    assert parsed.content == record.content
    assert parsed.tags == ["db", "true", "1.5"]
    assert parsed.origin == record.origin
    assert parsed.fields == record.fields
    assert parsed.key == record.key and parsed.created == record.created
    head = text.split("\n---\n", 1)[0].removeprefix("---\n")
    meta = yaml.safe_load(head)
    assert meta["tags"] == ["db", "true", "1.5"]  # quoted where YAML would change them
    assert meta["created"] == "2026-11-26T03:40:12Z"
    assert meta["origin"]["paths"] == ["src/a.py"]


def test_hand_edited_yaml_is_read_with_comments_and_plain_scalars() -> None:
    text = (
        "---\nid: 01JDX7Q8M4R2T0V9W3K5N6P1AB        # a comment\ntype: learned\n"
        "tags: [oauth, auth]\ncreated: 2026-11-26T03:40:12Z\nsource: commit\n---\nBody text\n"
    )
    record = parse_record(text.encode(), "x.md")
    assert record.id == "01JDX7Q8M4R2T0V9W3K5N6P1AB"
    assert record.tags == ["oauth", "auth"] and record.created == "2026-11-26T03:40:12Z"


@pytest.mark.parametrize(
    "text, reason",
    [
        (b"no front matter", "no front matter"),
        (b"---\nid: x\ntype: learned\nbody without end", "not closed"),
        (b"---\nid: x\ntype: opinion\n---\nbody\n", "unknown type"),
        (b"---\ntype: learned\n---\nbody\n", "no id"),
        (b"---\nid: x\ntype: learned\n---\n\n", "empty content"),
        (b"---\nid: [unclosed\n---\nbody\n", "not valid YAML"),
        (b"---\nid: x\ntype: learned\n---\nbad \xff\n", "UTF-8"),
    ],
)
def test_malformed_files_say_why(text: bytes, reason: str) -> None:
    with pytest.raises(MalformedRecord, match=reason):
        parse_record(text, "x.md")


def test_paths_are_dated_and_readable() -> None:
    record = _record()
    path = record_path(record)
    assert path.startswith("entries/2026/11/26/decision-use-sqlite-cafe-second-line-")
    event = Record(id=new_id(), kind="redact", created="2026-01-02T00:00:00Z",
                   fields={"target": record.id})
    assert record_path(event).startswith("records/2026/01/02/redact-")

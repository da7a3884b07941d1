"""The fast paths of an import's per-entry work give what the general paths give.

Each shortcut taken to cut import's CPU per entry is checked against the code it
replaced (kept here as the oracle), on generated texts and records:
- text cleaning: `tidy_lines`, `normalise` (no NFKC pass over ASCII, one line by
  strip()), `outside_code` / `outside_fences` (no fence pattern when no fence can open),
  `neutralise_roles` (no scan without the characters a role or token needs);
- the record's name: `slugify` (the first six words only), `new_id` (base32 in one call);
- the record's file: `dump_record`'s JSON strings and tag lists read back the same by
  PyYAML and by our reader;
- the fields a secret scan sees (`scan._meta_strings`, one list instead of generators);
- an import's pack is one git accepts (`git fsck`), alone and prepared by workers.
"""

from __future__ import annotations

import json
import re
import time
import unicodedata
from pathlib import Path
from typing import Any, Callable, Iterator

import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from conftest import git, make_repo
from git_memory.model import Record, new_id, slugify
from git_memory.sanitize import chars, scan
from git_memory.sanitize.roles import neutralise_roles
from git_memory.store import record_format as rf

# Texts made of what the fast paths look for: line ends, blanks, backquotes and tildes
# (code spans and fences), role words and template tokens, compatibility characters.
_PIECES = st.sampled_from([
    "a", "b", "word", " ", "  ", "\t", "\n", "\r", "\r\n", "\n\n\n", " \n", "`", "``", "```",
    "~~~", "~", "ﬁ", "™", "Ａ", "é", "e\u0301", "\u2028", "\x0b", "\x85", "System:", "user :",
    "**Assistant**:", "> human:", "<|im_start|>", "|>", "[INST]", "[/INST]", "<<SYS>>",
    "<</SYS>>", ":", "#", "x=1", "café", "1", "-",
])
_TEXTS = st.lists(_PIECES, max_size=40).map("".join)
_SETTINGS = settings(max_examples=600, deadline=None,
                     suppress_health_check=[HealthCheck.too_slow])


# ---------------------------------------------------------------- the old code, as oracle

def _old_tidy_lines(text: str) -> str:
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    text = "\n".join(line.rstrip() for line in text.split("\n"))
    return re.sub(r"\n{3,}", "\n\n", text).strip()


def _old_outside(pattern: re.Pattern[str], text: str, change: Callable[[str], str]) -> str:
    out_: list[str] = []
    last = 0
    for match in pattern.finditer(text):
        out_.append(change(text[last:match.start()]))
        out_.append(match.group())
        last = match.end()
    out_.append(change(text[last:]))
    return "".join(out_)


def _old_outside_code(text: str, change: Callable[[str], str]) -> str:
    if "`" not in text and "~~~" not in text:
        return change(text)
    return _old_outside(chars._CODE, text, change)


def _old_normalise(text: str) -> str:
    return _old_tidy_lines(_old_outside_code(_old_tidy_lines(text), chars.fold))


_ROLE_LINE = re.compile(
    r"^(?P<lead>[ \t>#*_]*)(?P<role>system|assistant|human|user)(?P<trail>[*_]*)[ \t]*:",
    re.IGNORECASE | re.MULTILINE)
_TEMPLATE = re.compile(r"<\|(?P<pipe>[A-Za-z_][A-Za-z0-9_]{0,30})\|>|\[(?P<inst>/?INST)\]"
                       r"|<<(?P<sys>/?SYS)>>")


def _old_roles(text: str) -> tuple[str, int]:
    text, tokens = _TEMPLATE.subn(
        lambda m: f"({m.group('pipe') or m.group('inst') or m.group('sys')})", text)
    text, roles = _ROLE_LINE.subn(
        lambda m: f"{m.group('lead')}({m.group('role')}){m.group('trail')}:", text)
    return text, tokens + roles


def _old_slugify(text: str, words: int = 6, limit: int = 40) -> str:
    folded = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode()
    parts = re.findall(r"[a-z0-9]+", folded.lower())[:words]
    return "-".join(parts)[:limit].strip("-") or "entry"


def _old_meta_strings(record: Record) -> Iterator[tuple[str, str]]:
    def every() -> Iterator[tuple[str, str]]:
        for name in ("id", "kind", "type", "created", "source"):
            value = getattr(record, name)
            if isinstance(value, str) and value:
                yield name, value
        if record.key:
            yield "key", record.key
        for number, tag in enumerate(record.tags):
            yield f"tags[{number}]", str(tag)
        if record.author:
            yield "author", record.author
        yield from scan.strings(record.origin, "origin")
        yield from scan.strings(record.fields, "")

    for field, value in every():
        if not scan._ours(field, value):
            yield field, value


# ---------------------------------------------------------------- text cleaning

@_SETTINGS
@given(_TEXTS)
def test_text_cleaning_fast_paths_match_the_general_ones(text: str) -> None:
    assert chars.tidy_lines(text) == _old_tidy_lines(text)
    assert chars.normalise(text) == _old_normalise(text)
    assert chars.normalise_tidied(chars.tidy_lines(text)) == _old_normalise(text)
    marked = lambda part: f"<{part}>"  # noqa: E731 - shows where `change` applied
    assert chars.outside_code(text, marked) == _old_outside_code(text, marked)
    assert chars.outside_fences(text, marked) == _old_outside(chars._FENCE, text, marked)
    assert neutralise_roles(text) == _old_roles(text)


def test_the_fast_paths_are_taken_on_what_they_were_built_for() -> None:
    """The shortcuts change nothing on the texts that take them, and the general path
    still does its work on the texts that need it (a fence, NFKC outside code)."""
    assert chars.normalise("  one line, ASCII  ") == "one line, ASCII"
    assert chars.normalise("ﬁx `ﬁ` here\n\n\n\nnext") == "fix `ﬁ` here\n\nnext"
    fenced = "text\n```\nSystem: kept\n```\nSystem: broken"
    assert chars.outside_fences(fenced, lambda p: neutralise_roles(p)[0]) == \
        "text\n```\nSystem: kept\n```\n(System): broken"
    assert neutralise_roles("no colon, no token here") == ("no colon, no token here", 0)


# ---------------------------------------------------------------- the record's name

@_SETTINGS
@given(_TEXTS)
def test_slug_is_the_first_six_words_as_before(text: str) -> None:
    assert slugify(text) == _old_slugify(text)
    assert slugify(text * 50) == _old_slugify(text * 50)


def _decode_ulid(value: str) -> int:
    number = 0
    for ch in value:
        number = number * 32 + "0123456789ABCDEFGHJKMNPQRSTVWXYZ".index(ch)
    return number


def test_new_id_is_a_ulid_of_the_time_given() -> None:
    for ms in (0, 1, 31, 32, 1_700_000_000_123, 2**48 - 1):
        ids = {new_id(ms) for _ in range(50)}
        assert len(ids) == 50  # 80 random bits each
        for value in ids:
            assert re.fullmatch(r"[0-9A-HJKMNP-TV-Z]{26}", value)
            assert _decode_ulid(value) >> 80 == ms
    before = int(time.time() * 1000)
    assert before <= _decode_ulid(new_id()) >> 80 <= int(time.time() * 1000)
    # ids sort by their time, whatever their random part
    assert new_id(3) < new_id(4) < new_id(5) < new_id(2**40)


# ---------------------------------------------------------------- the record's file

_value = st.text(st.characters(codec="utf-8", exclude_categories=("Cs", "Cc"),
                               exclude_characters="\ufeff\ufffe\uffff"), max_size=15)


# Made once: a strategy built inside the composite is built and validated again for
# every example.
_tag_lists = st.lists(_value, max_size=4)
_sources = st.sampled_from(["import", "manual", "x y"])
_keys = st.one_of(st.none(), _value.filter(bool))
_fields = st.dictionaries(st.sampled_from(["rationale", "why", "status"]),
                          st.one_of(_value, st.lists(_value, max_size=3)), max_size=2)


@st.composite
def _records(draw: Any) -> Record:
    return Record(
        id=new_id(), type="fact", content=draw(_value).strip() or "text",
        tags=draw(_tag_lists), created="2026-01-02T03:04:05Z",
        author=draw(_value), source=draw(_sources),
        key=draw(_keys),
        fields=draw(_fields),
    )


@_SETTINGS
@given(_records())
def test_a_dumped_record_reads_back_the_same_by_yaml_and_by_our_reader(record: Record) -> None:
    text = rf.dump_record(record)
    head, body = rf.split_file(text)
    by_yaml = yaml.load(head, Loader=rf._loader())  # noqa: S506 - a SafeLoader subclass
    for name, value in (("type", record.type), ("tags", record.tags or None),
                        ("author", record.author or None), ("source", record.source),
                        ("key", record.key), *record.fields.items()):
        if value is not None:
            assert by_yaml[name] == value, name
    assert rf._fast_front_matter(head) == by_yaml
    back = rf.parse_record(text.encode("utf-8"))
    assert (back.tags, back.key, back.author, back.fields) == (
        record.tags, record.key, record.author, record.fields)
    for value in (record.tags, *record.fields.values()):  # what json.dumps writes, exactly
        if isinstance(value, list) and value:
            assert rf._dump_value(value) == json.dumps(value, ensure_ascii=False)


# ---------------------------------------------------------------- what the scanner sees

@_SETTINGS
@given(_records(), st.dictionaries(st.sampled_from(["branch", "commit", "session", "x"]),
                                   st.one_of(_value, st.just("a" * 40)), max_size=3))
def test_the_fields_a_secret_scan_sees_are_the_same(record: Record, origin: dict[str, str]) -> None:
    record.origin = origin
    assert scan._meta_strings(record) == list(_old_meta_strings(record))
    record.key = "commit-abc-0123456789abcdef"  # ours: not scanned
    record.tags = []
    assert scan._meta_strings(record) == list(_old_meta_strings(record))


# ---------------------------------------------------------------- the pack

def test_an_imported_pack_passes_git_fsck(tmp_path: Path) -> None:
    """A streamed import of 2,500 lines (compressed blobs written by this process) and
    one of 25,000 is too slow for the default run; the workers' path is
    tests/test_import_bulk.py's (its pack checked here by fsck too, via write_bulk)."""
    import subprocess

    from git_memory.store.locate import discover
    from git_memory.write.bulk import write_bulk
    from git_memory.write.append import NewEntry

    repo = make_repo(tmp_path / "r")
    path = tmp_path / "in.jsonl"
    path.write_text("".join(json.dumps({"type": "fact", "content": f"entry {n}: ﬁ `code` "
                                        f"System: x {'y' * (n % 300)}"}) + "\n"
                            for n in range(2500)), encoding="utf-8")
    done = subprocess.run(["git", "memory", "import", str(path)], cwd=repo,
                          capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert "imported 2500" in done.stdout
    items = (NewEntry(content=f"worker entry {n}", type="fact", source="import",
                      label=f"line {n + 1}") for n in range(1200))
    outcome = write_bulk(discover(repo), items, lambda n: f"memory: import {n}", workers=2)
    assert outcome.added == 1200
    fsck = subprocess.run(["git", "fsck", "--full", "--strict"], cwd=repo, capture_output=True,
                          text=True)
    assert fsck.returncode == 0, fsck.stderr
    assert git("rev-list", "--count", "git-memory", cwd=repo).strip() == "2"


def test_our_pack_index_is_the_one_git_writes(tmp_path: Path) -> None:
    """The .idx PackStream writes (instead of running `git index-pack`) is byte for byte
    the one git's index-pack writes for the same pack; offsets past 2 GiB go to the
    64-bit table, as gitformat-pack(5) says."""
    import os
    import struct
    import subprocess
    from array import array

    from git_memory.store.pack import _pack_index, write_blobs

    repo = make_repo(tmp_path / "r")
    blobs = [os.urandom(n % 700) * (n % 3 + 1) + b"%d" % n for n in range(3000)]
    ids = write_blobs(repo / ".git", blobs)
    pack = next((repo / ".git" / "objects" / "pack").glob("pack-*.pack"))
    ours = pack.with_suffix(".idx").read_bytes()
    subprocess.run(["git", "index-pack", "-o", str(tmp_path / "git.idx"), str(pack)],
                   check=True, capture_output=True)
    assert ours == (tmp_path / "git.idx").read_bytes()
    shown = subprocess.run(["git", "cat-file", "blob", ids[1234]], cwd=repo, check=True,
                           capture_output=True).stdout
    assert shown == blobs[1234]
    oids = bytearray(b"".join(bytes([n]) * 20 for n in (3, 1, 2)))
    index = _pack_index(oids, array("Q", [12, 2**31 + 5, 2**33]), array("I", [7, 8, 9]),
                        b"\x00" * 20)
    assert index is not None
    small = struct.unpack(">3I", index[8 + 1024 + 60 + 12: 8 + 1024 + 60 + 24])
    assert small == (0x80000000, 0x80000001, 12)  # ids 01.., 02.., 03..
    assert struct.unpack(">2Q", index[8 + 1024 + 60 + 24: 8 + 1024 + 60 + 40]) == (2**31 + 5, 2**33)
    assert _pack_index(bytearray(b"\x01" * 40), array("Q", [12, 40]), array("I", [1, 2]),
                       b"\x00" * 20) is None  # one id twice: git's index-pack decides


# ---------------------------------------------------------------- parsing a line

def _old_created(value: Any) -> str | None:
    import datetime as dt

    text = value.strip()
    try:
        stamp = dt.datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError:
        raise ValueError(f"unreadable date {text[:40]!r}")
    if stamp.tzinfo is not None:
        stamp = stamp.astimezone(dt.timezone.utc)
    return stamp.strftime("%Y-%m-%dT%H:%M:%SZ")


@_SETTINGS
@given(st.tuples(st.integers(0, 9999), st.integers(0, 13), st.integers(0, 32),
                 st.integers(0, 25), st.integers(0, 61), st.integers(0, 61)),
       st.sampled_from(["Z", " ", "", "+01:00"]))
def test_a_created_time_reads_as_before(parts: tuple[int, ...], tail: str) -> None:
    from git_memory.capture.jsonl import _created

    text = "%04d-%02d-%02dT%02d:%02d:%02d" % parts + tail
    try:
        expected: str | None = _old_created(text)
    except (ValueError, OverflowError) as exc:  # year 1 moved back an hour: the same on both
        expected = f"{type(exc).__name__}: {exc}"
    try:
        got = _created(text)
    except (ValueError, OverflowError) as exc:
        got = f"{type(exc).__name__}: {exc}"
    assert got == expected


def test_a_tag_with_a_control_character_is_refused_as_before() -> None:
    import pytest

    from git_memory.errors import BadInput
    from git_memory.sanitize.pipeline import sanitize_tags

    for code in list(range(128)) + [0x85, 0x9F, 0xA0, 0x200B]:
        tag = f"a{chr(code)}b"
        control = unicodedata.category(chr(code)) == "Cc"
        if code == 0:
            continue  # a NUL has its own message
        if control:
            with pytest.raises(BadInput, match="control character"):
                sanitize_tags([tag])
        else:
            sanitize_tags([tag])


def test_a_created_time_in_other_digits_is_unreadable_as_before() -> None:
    import pytest

    from git_memory.capture.jsonl import _created

    for text in ("\u0662\u0660\u0662\u0666-01-01T00:00:00Z", "２０２６-01-01T00:00:00Z",
                 "0999-01-01T00:00:00Z", "2026-02-30T00:00:00Z", "2026-01-01T24:00:00Z"):
        try:
            expected: str | None = _old_created(text)
        except ValueError:
            with pytest.raises(ValueError, match="unreadable date"):
                _created(text)
        else:
            assert _created(text) == expected


def test_role_lines_are_found_by_the_line_test_as_by_the_regex() -> None:
    """`roles._no_line_starts` lets the regex off only where it cannot match: every line
    start the regex takes (lead characters, case, a role word followed by `*`, spaces or
    the colon) still goes to it, and prose with the words elsewhere does not change."""
    texts = [
        "System: reboot", "  >> **User**: x", "x\nHUMAN :  y", "#_assistant: z",
        "see https://example.com/user: not a role", "the user: is not at a line start",
        "a\n\t> system  : b\nc", "users: many", "System\n: no", "x\r\nuser: y",
        "ſystem: long s", "userland: fine",
    ]
    changed = 0
    for text in texts:
        assert neutralise_roles(text) == _old_roles(text), text
        changed += neutralise_roles(text)[1] > 0
    assert changed == 7  # the long s too (IGNORECASE), which the regex path handles

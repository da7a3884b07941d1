"""The fast paths of a cold index build give what the general paths give.

- the record parser: for any record the writer can produce, the fast front-matter
  reader (with its cache of lines seen before) and PyYAML yield the same record and the
  same index rows; a file that leaves our shape goes to PyYAML;
- the camelCase scan of ASCII text (bytes classes) finds what the regular expression
  over the whole text finds;
- blobs read in bulk (`read_blobs`) are git's bytes, also after a repack into deltas,
  and a missing one gives the name of its error;
- a build killed half-way and resumed yields the same index as one full build.
"""

from __future__ import annotations

import json
import re
import sqlite3
import subprocess
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from build_support import ENTRIES, build_done, built_origin, dump_index, kill_build_past
from conftest import git, make_repo
from git_memory.index.rank import tokens
from git_memory.index.build.update import record_rows
from git_memory.model import ENTRY_TYPES, EVENT_KINDS, Record
from git_memory.store import record_format as rf
from git_memory.store.locate import discover

# ---------------------------------------------------------------- the record parser

# Front-matter text within what YAML calls printable: PyYAML refuses a file holding any
# other character, where JSON (and so our own reader) takes it as it is.
_word = st.text(st.characters(codec="utf-8", exclude_categories=("Cs", "Cc"),
                              exclude_characters="\ufeff\ufffe\uffff"), max_size=12)
_body = st.text(st.characters(codec="utf-8", exclude_categories=("Cs",)), max_size=12)
_ascii_word = st.text("abcXYZ019 _-.:/\"'#{}[],&*!|>%@`", max_size=10)
_scalar = st.one_of(_word, _ascii_word, st.integers(-5, 5), st.booleans(), st.none())
_value = st.recursive(
    _scalar, lambda inner: st.one_of(st.lists(inner, max_size=3),
                                     st.dictionaries(_ascii_word, inner, max_size=3)),
    max_leaves=6)
_id = st.from_regex(r"[0-9A-Za-z][0-9A-Za-z_-]{0,20}", fullmatch=True)
_created = st.one_of(
    st.datetimes().map(lambda d: d.strftime("%Y-%m-%dT%H:%M:%SZ")), st.just(""))
_field_names = st.sampled_from(["status", "target", "by", "supersedes", "merged_from",
                                "rationale", "anchors", "note_1", "x"])


# The strategies a record is drawn from, made once: a strategy built inside the composite
# is built and validated again for every example (a third of these tests' CPU).
_kinds = st.sampled_from(("entry",) + EVENT_KINDS)
_entry_types = st.sampled_from(ENTRY_TYPES)
_event_types = st.one_of(st.none(), st.sampled_from(ENTRY_TYPES))
_contents = st.one_of(_body, _ascii_word).filter(lambda t: t.strip())
_tag_lists = st.lists(st.one_of(_ascii_word, _word), max_size=3)
_authors = st.one_of(_word, st.just("Jane Doe <jane@example.com>"))
_sources = st.sampled_from(["manual", "import", "commit", "yes", "0x1f", "12"])
_origins = st.dictionaries(st.sampled_from(["commit", "paths", "branch"]), _value, max_size=2)
_keys = st.one_of(st.none(), _ascii_word, _word)
_fields = st.dictionaries(_field_names, _value, max_size=3)


@st.composite
def _records(draw: st.DrawFn) -> Record:
    kind = draw(_kinds)
    return Record(
        id=draw(_id),
        kind=kind,
        type=draw(_entry_types) if kind == "entry" else draw(_event_types),
        content=draw(_contents),
        tags=draw(_tag_lists),
        created=draw(_created),
        author=draw(_authors),
        source=draw(_sources),
        origin=draw(_origins),
        key=draw(_keys),
        fields=draw(_fields),
        path="entries/2026/01/01/x.md",
    )


def _by_yaml(data: bytes, path: str) -> Record:
    """The general path: parse_record with the fast front-matter reader switched off,
    so the whole front matter goes through PyYAML."""
    fast = rf._fast_front_matter
    rf._fast_front_matter = lambda head: None  # type: ignore[assignment]
    try:
        return rf.parse_record(data, path)
    finally:
        rf._fast_front_matter = fast  # type: ignore[assignment]


def _outcome(parse, data: bytes) -> object:
    try:
        record = parse(data, "entries/2026/01/01/x.md")
    except rf.MalformedRecord as exc:
        return ("malformed", str(exc))
    return (record, record_rows(1, record, "b" * 40))


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_records())
def test_fast_parse_equals_yaml_parse_for_every_record_the_writer_makes(record: Record) -> None:
    data = rf.dump_record(record).encode("utf-8")
    first = _outcome(rf.parse_record, data)
    again = _outcome(rf.parse_record, data)  # now every repeated line is a cache hit
    assert first == again == _outcome(_by_yaml, data)


def test_usual_records_take_the_fast_path() -> None:
    record = Record(id="01M8C259J9XZXBSQ5NQ87EPTN6", type="learned", content="Body",
                    tags=["postgres"], created="2026-01-01T12:00:00Z",
                    author="Bench <bench@example.com>", source="import", key="corpus-9996",
                    fields={"status": "needs_review", "supersedes": ["01ABC"]})
    head = rf.split_file(rf.dump_record(record))[0]
    assert rf._fast_front_matter(head) == rf._yaml_front_matter(head)
    assert rf._fast_front_matter(head) is not None


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from([
    "id: 01ABC", "id: \"01ABC\"", "type: learned", "type: Learned", "tags: [a, b]",
    "tags: [\"a\", \"b\"]", "tags: a, b", "created: 2026-01-02T03:04:05Z",
    "created: \"2026-01-02T03:04:05Z\"", "source: import", "source: yes", "key: k-1",
    "key: 12", "status: needs_review", "supersedes: [\"X1\"]", "by:", "# a comment",
    "origin: {\"paths\": [\"a.py\"]}", "origin: {paths: [a.py]}", "author: A <a@b.c>",
    "rationale: \"x: y\"", "", "  ", "kind: status", "target: \"01ABC\"",
]), min_size=1, max_size=9), _ascii_word)
def test_any_front_matter_reads_as_pyyaml_reads_it(lines: list[str], body: str) -> None:
    """Hand-made front matter in and out of our shape: the fast reader either agrees
    with PyYAML or leaves the file to it. Both read it or both refuse it, and what they
    read is the same record with the same rows (the reasons for refusing may be worded
    differently: an empty front matter is "no id" to one and "not a mapping" to the other)."""
    data = ("---\n" + "\n".join(lines) + "\n---\n" + body + "\n").encode("utf-8")
    fast, general = _outcome(rf.parse_record, data), _outcome(_by_yaml, data)
    assert (fast[0] == "malformed") == (general[0] == "malformed")
    if general[0] != "malformed":
        assert fast == general


# ---------------------------------------------------------------- the camelCase scan

_HAS_CAMEL = re.compile(r"[a-z0-9][A-Z]|[A-Z][A-Z][a-z]")
_CAMEL_TOKEN = re.compile(r"[A-Za-z][a-z0-9]*[A-Z][A-Za-z0-9]*")


def _parts_by_regex(text: str) -> list[str]:
    """identifier_parts as it was: the regular expressions over the whole text."""
    extra: list[str] = []
    if not _HAS_CAMEL.search(text):
        return extra
    for word in _CAMEL_TOKEN.findall(text):
        parts = tokens._CAMEL_PARTS.findall(word)
        if len(parts) > 1:
            extra.extend(p.lower() for p in parts)
    return extra


# 500 examples (1500 before; Hypothesis' default is 100): short texts (up to 40 characters,
# mostly from a 20-character alphabet) into one pure function, for a third of the 1.3 s of
# CPU the 1500 took in every run of the suite.
@settings(max_examples=500, deadline=None)
@given(st.one_of(st.text("aZbY09 _-.\n\té中B/x:", max_size=40), st.text(max_size=30)))
def test_camel_case_scan_finds_what_the_regex_finds(text: str) -> None:
    assert tokens.identifier_parts(text) == _parts_by_regex(text)


def test_camel_case_scan_examples() -> None:
    assert tokens.identifier_parts("use useEffect and HTTPServer AB1") == [
        "use", "effect", "http", "server", "ab", "1"]
    assert tokens.identifier_parts("plain words only, AB1 and Title") == []
    assert tokens.identifier_parts("café getUserName") == ["get", "user", "name"]


# ---------------------------------------------------------------- blobs from the pack

def _blobs(repo: Path) -> dict[str, bytes]:
    listing = git("ls-tree", "-r", "git-memory", cwd=repo)
    found = {}
    for line in listing.splitlines():
        meta, path = line.split("\t", 1)
        blob = meta.split()[2]
        found[blob] = subprocess.run(["git", "cat-file", "blob", blob], cwd=repo,
                                     capture_output=True, check=True).stdout
    return found


def test_blobs_read_in_bulk_are_gits_bytes(tmp_path: Path, gm, monkeypatch) -> None:
    from git_memory.store.branch import MemoryBranch

    repo = make_repo(tmp_path / "repo")
    rows = [{"type": "learned", "content": f"Shard {i} of the cache warms up in {i} s",
             "created": "2026-01-02T03:04:05Z"} for i in range(700)]
    corpus = tmp_path / "c.jsonl"
    corpus.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    assert gm("import", str(corpus), cwd=repo).returncode == 0  # one pack
    assert gm("add", "LEARNED: a loose object beside the pack", cwd=repo).returncode == 0
    monkeypatch.chdir(repo)
    expected = _blobs(repo)
    missing = "0" * 40
    for stage in ("packed", "deltas"):
        branch = MemoryBranch(discover())
        got = branch.read_blobs([*expected, missing])
        assert got[:-1] == list(expected.values()), stage
        assert got[-1] in ("KeyError", "NotFoundError")  # in no pack, not loose: the error
        # git's own repack stores most of these similar files as deltas: the same bytes
        git("repack", "-a", "-d", "-f", "--depth=50", "--window=50", "-q", cwd=repo)


# ---------------------------------------------------------------- resumed == full

def test_a_resumed_build_yields_the_same_index_as_a_full_one(tmp_path: Path, gm, built_once) -> None:
    origin = built_origin(tmp_path, gm, built_once)
    full = tmp_path / "full"
    git("clone", "-q", str(origin), str(full), cwd=tmp_path)
    assert gm("reindex", cwd=full).returncode == 0
    resumed = tmp_path / "resumed"
    git("clone", "-q", str(origin), str(resumed), cwd=tmp_path)
    kill_build_past(resumed, 500)
    killed_at = build_done(resumed)
    assert 500 <= killed_at < ENTRIES
    assert gm("reindex", "--background", cwd=resumed).returncode == 0
    index = resumed / ".git" / "git-memory" / "index.sqlite"
    meta = dict(sqlite3.connect(index).execute("SELECT k, v FROM meta").fetchall())
    assert int(meta["build_resumed_from"]) == killed_at  # it went on, not from zero
    assert dump_index(index) == dump_index(full / ".git" / "git-memory" / "index.sqlite")

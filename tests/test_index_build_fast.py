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

import fcntl
import json
import os
import re
import signal
import sqlite3
import subprocess
import time
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from conftest import copy_repo, git, make_repo
from git_memory.index import tokens
from git_memory.index.write import record_rows
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

ENTRIES = 1500


def _origin(tmp_path: Path, gm, built_once) -> Path:
    """The memory the build tests clone: made once per run (`built_once`: an import of
    ENTRIES entries and two curation records, about 1 s of CPU) and copied to
    tmp_path/"origin", the test's own to change."""
    made = built_once("index-build-fast-origin", lambda folder: _make_origin(folder, gm))
    return copy_repo(made / "origin", tmp_path / "origin")


def _make_origin(tmp_path: Path, gm) -> None:
    origin = make_repo(tmp_path / "origin")
    rows = [{"type": ("learned", "decision")[i % 2],
             "created": f"2025-{1 + i % 12:02d}-{1 + i % 28:02d}T10:00:{i % 60:02d}Z",
             "tags": [f"t{i % 7}"],
             "content": f"Cache shard {i} warms up in {i % 97} s after the deploy of svc{i}"}
            for i in range(ENTRIES)]
    corpus = tmp_path / "corpus.jsonl"
    corpus.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    assert gm("import", str(corpus), cwd=origin).returncode == 0
    # curation records too: the fold runs over the resumed index as over the full one
    listed = json.loads(gm("list", "--json", "-n", "3", cwd=origin).stdout)
    assert gm("flag", listed[0]["id"], "--status", "needs_review", "--reason", "check",
              cwd=origin).returncode == 0
    assert gm("supersede", listed[1]["id"], listed[2]["id"], "--reason", "newer",
              cwd=origin).returncode == 0


def _dump(index: Path) -> list[object]:
    conn = sqlite3.connect(index)
    try:
        return [
            conn.execute("SELECT * FROM records ORDER BY rowid").fetchall(),
            conn.execute("SELECT rowid, * FROM fts ORDER BY rowid").fetchall(),
            conn.execute("SELECT * FROM problems ORDER BY path").fetchall(),
            conn.execute("SELECT k, v FROM meta WHERE k != 'build_resumed_from' ORDER BY k")
            .fetchall(),
            conn.execute("SELECT rowid FROM fts WHERE fts MATCH 'cache OR svc7' ORDER BY rowid")
            .fetchall(),
        ]
    finally:
        conn.close()


def _done(repo: Path) -> int:
    path = repo / ".git" / "git-memory" / "index.sqlite.build"
    try:
        conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True, timeout=5)
        try:
            row = conn.execute("SELECT v FROM meta WHERE k = 'build_done'").fetchone()
        finally:
            conn.close()
        return int(row[0]) if row else 0
    except sqlite3.Error:
        return 0


def kill_build_past(clone: Path, files: int) -> None:
    """Start the detached build in `clone`, slowed (small batches, a pause after each),
    and kill its process group (SIGKILL) once its stamp says at least `files` are in."""
    slow = {**os.environ, "GIT_MEMORY_BUILD_BATCH": "250", "GIT_MEMORY_BUILD_PAUSE": "0.3"}
    proc = subprocess.Popen(["git", "memory", "reindex", "--background"], cwd=clone, env=slow,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                            start_new_session=True)
    deadline = time.monotonic() + 60
    while _done(clone) < files and time.monotonic() < deadline:
        time.sleep(0.05)
    os.killpg(proc.pid, signal.SIGKILL)
    proc.wait()
    _wait_lock_free(clone)


def _wait_lock_free(clone: Path) -> None:
    """Until the killed build's lock is free: `wait` reaps only the group's leader, and
    its forked workers and full-text writer, which share the lock's open file, may still
    be exiting for some milliseconds (a build started then finds the lock held and, as
    it should, leaves the build to the one it thinks is running)."""
    path = clone / ".git" / "git-memory" / "index.build.lock"
    deadline = time.monotonic() + 10
    with open(path, "a+") as handle:
        while True:
            try:
                fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                assert time.monotonic() < deadline, "the killed build's lock stayed held"
                time.sleep(0.01)
                continue
            fcntl.flock(handle, fcntl.LOCK_UN)
            return


def test_a_resumed_build_yields_the_same_index_as_a_full_one(tmp_path: Path, gm, built_once) -> None:
    origin = _origin(tmp_path, gm, built_once)
    full = tmp_path / "full"
    git("clone", "-q", str(origin), str(full), cwd=tmp_path)
    assert gm("reindex", cwd=full).returncode == 0
    resumed = tmp_path / "resumed"
    git("clone", "-q", str(origin), str(resumed), cwd=tmp_path)
    kill_build_past(resumed, 500)
    killed_at = _done(resumed)
    assert 500 <= killed_at < ENTRIES
    assert gm("reindex", "--background", cwd=resumed).returncode == 0
    index = resumed / ".git" / "git-memory" / "index.sqlite"
    meta = dict(sqlite3.connect(index).execute("SELECT k, v FROM meta").fetchall())
    assert int(meta["build_resumed_from"]) == killed_at  # it went on, not from zero
    assert _dump(index) == _dump(full / ".git" / "git-memory" / "index.sqlite")

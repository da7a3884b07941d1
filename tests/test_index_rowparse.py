"""The direct parse of our record layout to index rows (index.rowparse) is the general path.

- every plain entry the writer can make (record_format.dump_record) goes straight to its
  rows, and they are the rows record_format.parse_record then write.record_rows give;
- every other record the writer makes, and hand edits of any of them (lines swapped,
  spaces, quotes, comments, blank lines), either gives those same rows or is left to
  the general path (None), never other rows;
- the same holds for the texts of every note of the data sets in tests/data;
- the ASCII shortcut of model.normalise_for_dedup gives what NFKC, casefold and the
  whitespace collapse give.
"""

from __future__ import annotations

import json
import unicodedata
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from git_memory.index.rowparse import fast_rows
from git_memory.index.write import record_rows
from git_memory.model import ENTRY_TYPES, Record, content_hash, normalise_for_dedup
from git_memory.store import record_format as rf
from test_index_build_fast import _ascii_word, _body, _created, _id, _records, _word

DATA = Path(__file__).parent / "data"
PATH, BLOB = "entries/2026/01/01/x.md", "b" * 40


def _general(data: bytes) -> object:
    """The reference: parse_record (PyYAML for what leaves our shape), then record_rows."""
    try:
        record = rf.parse_record(data, PATH)
    except rf.MalformedRecord as exc:
        return ("malformed", str(exc))
    row, text, _ = record_rows(7, record, BLOB)
    return row, text


def _same_or_left(data: bytes) -> tuple[object, object]:
    fast = fast_rows(7, data, PATH, BLOB)
    if fast is not None:
        assert fast == _general(data)
    return fast, _general(data)


# Made once: a strategy built inside the composite is built and validated again for
# every example (a third of these tests' CPU).
_PLAIN_IDS = st.one_of(_id, st.just("01M8C25835W1P45X0EC95ARPVQ"), st.just("12345"),
                       st.just("true"), st.just("0x1f"))
_PLAIN_TYPES = st.sampled_from(ENTRY_TYPES)
_PLAIN_CONTENTS = st.one_of(_body, _ascii_word, st.text(max_size=40)).filter(str.strip)
_PLAIN_TAGS = st.lists(st.one_of(_ascii_word, _word), max_size=3)
_PLAIN_AUTHORS = st.one_of(_word, st.just("Jane Doe <jane@example.com>"), st.just(""))
_PLAIN_SOURCES = st.sampled_from(["manual", "import", "commit", "yes", "0x1f", "12", ""])
_PLAIN_KEYS = st.one_of(st.none(), _ascii_word, _word, st.just("corpus-17"))


@st.composite
def _plain_entries(draw: st.DrawFn) -> Record:
    """Entries as the writer makes them for an import or `add` without origin or fields:
    the layout the fast path is for (any id, type, tags, time, author, source, key)."""
    return Record(
        id=draw(_PLAIN_IDS),
        type=draw(_PLAIN_TYPES),
        content=draw(_PLAIN_CONTENTS),
        tags=draw(_PLAIN_TAGS),
        created=draw(_created),
        author=draw(_PLAIN_AUTHORS),
        source=draw(_PLAIN_SOURCES),
        key=draw(_PLAIN_KEYS),
        path=PATH,
    )


def _canonical(record: Record) -> bool:
    """Whether the writer's file for `record` is one the fast path must take: every
    value written as the general reader's fast front matter reads it without PyYAML."""
    data = rf.dump_record(record).encode("utf-8")
    head = rf.split_file(data.decode("utf-8"))[0]
    return rf._fast_front_matter(head) is not None and not isinstance(_general(data)[0], str)


@settings(max_examples=600, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_plain_entries())
def test_a_plain_entry_goes_straight_to_the_rows_the_general_path_gives(record: Record) -> None:
    data = rf.dump_record(record).encode("utf-8")
    fast, general = _same_or_left(data)
    if _canonical(record) and record.id == record.id.strip():
        assert fast is not None, data  # the usual file: taken by the fast path
    again = fast_rows(7, data, PATH, BLOB)  # the lines seen before, from the cache
    assert again == fast


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_records())
def test_any_record_the_writer_makes_gives_the_same_rows_or_is_left_alone(record: Record) -> None:
    data = rf.dump_record(record).encode("utf-8")
    fast, _ = _same_or_left(data)
    head = rf.split_file(data.decode("utf-8"))[0]
    if record.kind != "entry" or "\norigin: " in head or any(
            f"\n{name}: " in head for name, value in record.fields.items() if value is not None):
        assert fast is None  # not a plain entry: the general path reads it


_EDITS = st.sampled_from(["swap", "space", "quote", "unquote", "comment", "blank", "dup",
                          "crlf", "tab", "drop", "upper"])


@settings(max_examples=600, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_plain_entries(), _EDITS, st.integers(0, 8))
def test_a_hand_edited_entry_gives_the_same_rows_or_is_left_alone(
        record: Record, edit: str, at: int) -> None:
    lines = rf.dump_record(record).split("\n")
    head = lines.index("---", 1)
    i = 1 + at % max(head - 1, 1)
    line = lines[i]
    name, _, value = line.partition(": ")
    if edit == "swap" and i + 1 < head:
        lines[i], lines[i + 1] = lines[i + 1], lines[i]
    elif edit == "space":
        lines[i] = f"{name}:  {value} "
    elif edit == "quote":
        lines[i] = f"{name}: {json.dumps(value)}"
    elif edit == "unquote":
        lines[i] = f"{name}: {value.strip(chr(34))}"
    elif edit == "comment":
        lines.insert(i, "# a note")
    elif edit == "blank":
        lines.insert(i, "")
    elif edit == "dup":
        lines.insert(i, line)
    elif edit == "crlf":
        lines[i] = line + "\r"
    elif edit == "tab":
        lines[i] = line.replace(": ", ":\t", 1)
    elif edit == "drop":
        del lines[i]
    elif edit == "upper":
        lines[i] = f"{name}: {value.upper()}"
    _same_or_left("\n".join(lines).encode("utf-8"))


def test_bytes_that_are_no_record_are_left_to_the_general_path() -> None:
    good = rf.dump_record(Record(id="01ABCDEFGH", type="fact", content="Body text",
                                 created="2026-01-01T00:00:00Z", source="import"))
    assert fast_rows(1, good.encode(), PATH, BLOB) is not None
    for bad in (good.replace("---\nid", "--- \nid"), good.replace("\n---\n", "\n----\n"),
                good.replace("Body text", "   "), good.replace("Body", "Bo\x00dy"),
                good.replace("2026-01-01T00", "2026-02-30T00"), good + "x" * rf.MAX_RECORD_BYTES):
        assert fast_rows(1, bad.encode(), PATH, BLOB) is None, bad[:80]
    assert fast_rows(1, good.encode("utf-16"), PATH, BLOB) is None
    assert fast_rows(1, b"---\nid: \xff\xfe\n", PATH, BLOB) is None


def test_the_key_line_read_apart_keeps_the_writers_order() -> None:
    """The `key` line (the last one the writer writes) is read apart from the lines
    kept by their text: a key anywhere else, or twice, still leaves the file to the
    general path, and a key YAML would read as a number is not taken."""
    good = rf.dump_record(Record(id="01ABCDEFGH", type="fact", content="Body text",
                                 created="2026-01-01T00:00:00Z", source="import",
                                 key="corpus-17"))
    fast, general = _same_or_left(good.encode())
    assert fast is not None and fast[0][9] == "corpus-17"
    lines = good.split("\n")
    key = lines.index("key: corpus-17")
    twice = lines[: key + 1] + ["key: corpus-18"] + lines[key + 1 :]
    early = lines[:key - 1] + [lines[key], lines[key - 1]] + lines[key + 1 :]
    for bad in ("\n".join(twice), "\n".join(early), good.replace("corpus-17", "1234")):
        fast, general = _same_or_left(bad.encode())
        assert fast is None, bad


def test_rows_made_with_the_builds_decay_hold_the_decayed_confidence() -> None:
    """With a build's Decay, the row holds what Decay.rows would put there, in one go."""
    from git_memory.index.decay import Decay

    decay = Decay("2026-06-01T00:00:00Z")
    for created, source in (("2026-01-01T00:00:00Z", "import"), ("2020-03-04T05:06:07Z", "manual"),
                            ("2026-05-31T23:59:59Z", "odd-source")):
        data = rf.dump_record(Record(id="01ABCDEFGH", type="fact", content="Body text",
                                     created=created, source=source)).encode()
        plain = fast_rows(1, data, PATH, BLOB)
        decayed = fast_rows(1, data, PATH, BLOB, decay)
        assert plain is not None and decayed is not None
        assert decayed[0] == decay.row(plain[0]) and decayed[1] == plain[1]
        assert decayed[0][17] != plain[0][17] or created.startswith("2026-05")


def _data_set_texts() -> list[tuple[str, list[str]]]:
    texts: list[tuple[str, list[str]]] = []
    for line in (DATA / "til-jbranchaud" / "notes.jsonl").read_text(encoding="utf-8").splitlines():
        note = json.loads(line)
        texts.append((f"{note['title']}: {note['body']}", [note["topic"]]))
    for line in (DATA / "faq-public" / "faq.jsonl").read_text(encoding="utf-8").splitlines():
        note = json.loads(line)
        texts.append((note["doc"], [note["source"]]))
    for path in sorted((DATA / "lavra-knowledge").glob("*.jsonl")):
        for line in path.read_text(encoding="utf-8").splitlines():
            note = json.loads(line)
            note = json.loads(note) if isinstance(note, str) else note
            texts.append((note["content"], [str(t) for t in note.get("tags") or []]))
    return texts


def test_every_note_of_the_data_sets_gives_the_general_rows() -> None:
    texts = _data_set_texts()
    assert len(texts) > 1000
    taken = 0
    for n, (text, tags) in enumerate(texts):
        record = Record(id=f"01M8C2580H6B134MM1X{n:07d}", type=ENTRY_TYPES[n % len(ENTRY_TYPES)],
                        content=text, tags=tags, created=f"2026-0{1 + n % 9}-1{n % 10}T10:00:00Z",
                        author="Bench <bench@example.com>", source=("import", "manual")[n % 2],
                        key=f"corpus-{n}" if n % 3 else None, path=PATH)
        fast, general = _same_or_left(rf.dump_record(record).encode("utf-8"))
        taken += fast is not None
    assert taken == len(texts)  # all in the writer's layout: every one takes the fast path


# 500 examples (2000 before; Hypothesis' default is 100): short strings (up to 30
# characters, mostly from alphabets of 15 and 128 characters) into one pure function, for a
# quarter of the 1.5-2 s of CPU the 2000 took in every run of the suite.
@settings(max_examples=500, deadline=None)
@given(st.one_of(st.text("aZ .!;,:\t\n\r\x0b\x0c\x1c\x1f", max_size=30),
                 st.text(st.characters(max_codepoint=127), max_size=30), st.text(max_size=20)))
def test_the_ascii_shortcut_of_the_dedup_form_is_the_general_form(text: str) -> None:
    general = " ".join(unicodedata.normalize("NFKC", text).casefold().split()).rstrip(".!;,: ")
    assert normalise_for_dedup(text) == general
    assert content_hash(text) == content_hash(text + " ")


def test_the_inlined_plain_word_test_is_record_formats() -> None:
    """rowparse._plain (ids and keys, without copying them where it can) says what
    record_format._is_plain says, for every word of up to three characters over letters
    that spell YAML's words and number prefixes, and for longer ones that matter."""
    import itertools

    from git_memory.index.rowparse import _plain

    alphabet = "019aAbBoOxXyYnNtTrRuUeElLfFsS_-"
    words = ["".join(t) for n in (1, 2, 3) for t in itertools.product(alphabet, repeat=n)]
    words += ["true", "True", "TRUE", "null", "NULL", "false", "False", "FALSE", "yes", "off",
              "0x1f", "0X1F", "0o17", "0b101", "00x1", "01M8C25835W1P45X0EC95ARPVQ",
              "corpus-17", "12345", "1-2_3", "falsey", "Nully"]
    for word in filter(rf.ID_RE.match, words):
        assert _plain(word) == rf._is_plain(word), word

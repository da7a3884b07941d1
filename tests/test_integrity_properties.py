"""Property-based tests (Hypothesis) for issue #12: the record parser, the fold, the
sanitizer and the recall query parser hold their promises for any input."""

from __future__ import annotations

import sqlite3
import string

import pytest

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from git_memory.errors import BadInput
from git_memory.fold import fold
from git_memory.index.rank.search import fts_query
from git_memory.index.rank.tokens import query_words
from git_memory.model import ENTRY_TYPES, Record, new_id
from git_memory.sanitize.pipeline import clean
from git_memory.sanitize.secrets import find_secret
from git_memory.store.record_format import MalformedRecord, dump_record, parse_record

FAST = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])

# -- the record parser ------------------------------------------------------------------

yaml_scalars = st.one_of(
    st.text(max_size=20), st.integers(), st.floats(allow_nan=True), st.booleans(), st.none(),
    st.sampled_from(["2026-02-30", "2026-13-01T00:00:00Z", "0000-00-00", "~", "!!binary x",
                     "&a [*a]", "{", "[[", "'", '"', "|\n  x", ">-", "1e309", "0x1F"]),
)
lines = st.lists(
    st.tuples(st.sampled_from(["id", "type", "kind", "tags", "created", "origin", "key",
                               "author", "source", "target", "x"]),
              yaml_scalars),
    max_size=8,
)


@FAST
@given(st.binary(max_size=400))
def test_any_bytes_parse_or_raise_malformed(data: bytes) -> None:
    try:
        record = parse_record(data, "p.md")
    except MalformedRecord:
        return
    assert record.id and isinstance(record.content, str)


@FAST
@given(lines, st.text(max_size=80), st.integers(min_value=0, max_value=3000))
def test_any_front_matter_parses_or_raises_malformed(
    fields: list[tuple[str, object]], body: str, depth: int
) -> None:
    head = "".join(f"{k}: {v}\n" for k, v in fields)
    head += "deep: " + "[" * depth + "]" * depth + "\n"
    data = f"---\n{head}---\n{body}\n".encode("utf-8", "surrogatepass")
    try:
        record = parse_record(data, "p.md")
    except MalformedRecord:
        return
    assert isinstance(record.tags, list) and isinstance(record.origin, dict)
    if record.created:
        assert len(record.created) == 20 and record.created.endswith("Z")


words = st.text(alphabet=string.ascii_letters + string.digits + " .,é™ü", min_size=1, max_size=60)


@FAST
@given(st.sampled_from(ENTRY_TYPES), words.filter(lambda t: t.strip()),
       st.lists(st.text(alphabet=string.ascii_lowercase, min_size=1, max_size=10), max_size=4),
       st.dictionaries(st.sampled_from(["rationale", "alternatives", "lavra_bead"]),
                       st.one_of(words, st.lists(words, max_size=3)), max_size=3))
def test_what_we_write_reads_back_the_same(type_: str, content: str, tags: list[str],
                                           fields: dict) -> None:
    record = Record(id=new_id(), type=type_, content=content.strip(), tags=tags,
                    created="2026-11-26T03:40:12Z", fields=fields)
    back = parse_record(dump_record(record).encode(), "p.md")
    assert (back.id, back.type, back.content, back.tags, back.fields) == (
        record.id, record.type, record.content, record.tags, record.fields)


# -- the fold ---------------------------------------------------------------------------

IDS = ["A", "B", "C", "D", "E"]
stamps = st.sampled_from([f"2026-01-0{d}T00:00:00Z" for d in range(1, 6)] + ["", "junk"])
event_records = st.builds(
    lambda kind, target, other, created, n: Record(
        id=f"R{n}", kind=kind, created=created,
        fields={"target": target, "by": other, "status": "canonical", "review_reason": "why"}),
    st.sampled_from(["supersede", "status", "reinforce", "contradict", "redact", "purge"]),
    st.sampled_from(IDS + ["UNKNOWN"]), st.sampled_from(IDS + ["MISSING", ""]), stamps,
    st.integers(min_value=0, max_value=10_000),
)


def _snapshot(result) -> dict:  # type: ignore[no-untyped-def]
    return {eid: (s.status, sorted(s.supersedes), sorted(s.superseded_by), s.confidence,
                  s.reinforcements, s.contradictions) for eid, s in result.states.items()}


@FAST
@given(st.lists(event_records, max_size=12, unique_by=lambda r: r.id), st.randoms())
def test_the_fold_agrees_in_any_order_and_never_fails(events: list[Record], rnd) -> None:
    entries = {eid: Record(id=eid, type="fact", content=eid, created="2026-01-01T00:00:00Z")
               for eid in IDS}
    first = fold(entries, list(events))
    shuffled = list(events)
    rnd.shuffle(shuffled)
    second = fold(entries, shuffled)
    assert _snapshot(first) == _snapshot(second)
    assert sorted(first.problems) == sorted(second.problems)
    for state in first.states.values():  # no supersede cycle survives
        assert not (set(state.supersedes) & set(state.superseded_by))


# -- the sanitizer ----------------------------------------------------------------------

texts = st.text(
    alphabet=st.characters(blacklist_categories=("Cs",), max_codepoint=0x2FFFF), max_size=300)
secretish = st.sampled_from(["", " AKIA" + "Q" * 16, " ghp_" + "a1" * 18,
                             " password = hunter2hunter2", " `\uff21KIA" + "Q" * 16 + "`"])


@FAST
@given(texts, secretish)
def test_clean_is_idempotent_and_never_leaves_a_secret(text: str, secret: str) -> None:
    for redact in (False, True):
        try:
            once, _ = clean(text + secret, redact=redact)
        except BadInput:
            continue
        assert find_secret(once) is None
        twice, _ = clean(once, redact=redact)
        assert twice == once


# -- the recall query parser ------------------------------------------------------------

@FAST
@given(texts)
def test_any_query_is_safe_fts5_syntax(query: str) -> None:
    found = query_words(query)
    assert len(found) <= 32 and all(w and not any(c.isspace() for c in w) for w in found)
    conn = sqlite3.connect(":memory:")
    conn.execute("CREATE VIRTUAL TABLE t USING fts5(c, tokenize = 'porter unicode61')")
    conn.execute("INSERT INTO t(c) VALUES ('some text')")
    if found:
        conn.execute("SELECT rowid FROM t WHERE t MATCH ?", (fts_query(found),)).fetchall()


def test_deep_flow_nesting_is_refused_before_the_yaml_scanner_sees_it(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """PyYAML's scanner is quadratic in `[[[[` nesting: a hostile record of a few thousand
    brackets took minutes. It must be refused by counting, without being parsed."""
    import yaml

    def no_yaml(*_: object, **__: object) -> None:
        raise AssertionError("the YAML parser was reached")

    # `[a, b]` is YAML, not JSON: the file takes the YAML path, as a hand-edited one does.
    hostile = f"---\nid: 01ABC\ntype: learned\ntags: [a, b]\ndeep: {'[' * 2000}{']' * 2000}\nx: 'a b'\n---\nbody\n"
    monkeypatch.setattr(yaml, "load", no_yaml)
    with pytest.raises(MalformedRecord, match="nested deeper than 32"):
        parse_record(hostile.encode(), "p.md")
    monkeypatch.undo()
    fine = f"---\nid: 01ABC\ntype: learned\ntags: [a, b]\ndeep: {'[' * 20}1{']' * 20}\nx: 'a b'\n---\nbody\n"
    assert parse_record(fine.encode(), "p.md").content == "body"

"""The scan of a record's fields (`scan.scan_meta`, `scan_record`) gives the findings it
gave when it scanned the joined fields first, now that it looks each field up among the
strings known clean (an import's records repeat most of their fields).

`_reference` is the code it replaced, word for word; both run on records whose fields
come from the fake-secrets corpus (tests/data/secrets/corpus.jsonl: 803 credentials and
392 near misses), the til notes' first lines, and fields that only hold a secret when
read together (a name in one field, its value in the next).
"""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

from git_memory.model import Record
from git_memory.sanitize import scan
from git_memory.sanitize.scan import Finding, _meta_strings, _one_token, cleaned, find_secret

DATA = Path(__file__).resolve().parent / "data"
CORPUS = DATA / "secrets" / "corpus.jsonl"
TIL = DATA / "til-jbranchaud" / "notes.jsonl"


def _reference(pairs: list[tuple[str, str]], record: str) -> list[Finding]:
    """scan._scan_pairs as it was: one scan of the joined fields, then field by field."""
    if not pairs:
        return []
    if find_secret(cleaned("\n".join(text for _, text in pairs))) is None:
        pairs = [(field, text) for field, text in pairs if _one_token(text)]
    found = (scan.scan_string(text, field, record) for field, text in pairs)
    return [f for f in found if f is not None]


def _secret_texts() -> list[str]:
    return [json.loads(line)["text"] for line in CORPUS.open(encoding="utf-8")]


def _til_lines() -> list[str]:
    out = []
    for line in TIL.open(encoding="utf-8"):
        content = json.loads(line)["body"]
        out.append(content.split("\n", 1)[0][:200])
    return out


# Fields that hold nothing alone and something together, or the other way round.
_SPLIT = [
    ["password", "= hunter2hunter2x"],
    ["export AWS_SECRET_ACCESS_KEY", "=wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"],
    ["github", "ghp_0123456789abcdefghijklmnopqrstuvwxyzAB"],
    ["Authorization: Bearer", "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.c2lnbmF0dXJlc2lnbmF0"],
    ["https://user", "s3cr3tpass@example.com/"],
    ["token", "a8f5f167f44f4964e6c998dee827110c"],
    ["kind: Secret\ndata:", "  password: c2VjcmV0cGFzc3dvcmQ="],
]


def _records(texts: list[str], rng: random.Random) -> list[Record]:
    records = []
    for number, text in enumerate(texts):
        other = rng.choice(texts)
        shape = number % 5
        if shape == 0:  # the text as the key
            rec = Record(id=f"01J{number:023d}", type="fact", content="x", key=text)
        elif shape == 1:  # as a tag, beside a clean one
            rec = Record(id=f"01J{number:023d}", type="fact", content="x", tags=["ack", text])
        elif shape == 2:  # as a type field, with another text in the origin
            rec = Record(id=f"01J{number:023d}", type="fact", content="x",
                         fields={"why": text}, origin={"branch": other})
        elif shape == 3:  # as the author, with a key from another row
            rec = Record(id=f"01J{number:023d}", type="fact", content="x", author=text,
                         key=other[:80])
        else:  # split over two fields
            rec = Record(id=f"01J{number:023d}", type="fact", content="x",
                         fields={"a": text[: len(text) // 2], "b": text[len(text) // 2:]})
        records.append(rec)
    for number, (first, second) in enumerate(_SPLIT):
        records.append(Record(id=f"01K{number:023d}", type="fact", content="x",
                              fields={"name": first, "value": second}))
        records.append(Record(id=f"01L{number:023d}", type="fact", content="x",
                              tags=[first, second]))
    return records


@pytest.mark.parametrize("warm", [False, True])
def test_field_scan_matches_the_joined_scan_first(warm: bool) -> None:
    """Every record's findings (field, rule, line, hash) are the reference's, with the
    strings known clean remembered from scratch and after a first pass (`warm`)."""
    rng = random.Random(16)
    texts = _secret_texts() + _til_lines()
    records = _records(texts, rng)
    scan._CLEAN.clear()
    if warm:
        for record in records:
            scan.scan_meta(record)
        assert scan._CLEAN  # the clean fields were remembered
    differ = []
    flagged = 0
    for record in records:
        pairs = _meta_strings(record)
        want = _reference(pairs, record.id)
        flagged += bool(want)
        if scan.scan_meta(record) != want:
            differ.append(record.id)
        full = [("content", "see the notes")] + pairs
        if scan.scan_record(record) != _reference(full, record.id):
            differ.append(f"{record.id} (record)")
    assert not differ, differ[:10]
    assert flagged > 500  # the corpus's secrets are found in the fields


def test_the_split_fields_are_judged_as_before() -> None:
    """A name and its value in two fields: found (or not) exactly as the joined scan did."""
    scan._CLEAN.clear()
    found_any = False
    for first, second in _SPLIT:
        record = Record(id="01J" + "0" * 23, type="fact", content="x",
                        fields={"name": first, "value": second})
        want = _reference(_meta_strings(record), record.id)
        assert scan.scan_meta(record) == want
        found_any = found_any or bool(want)
    assert found_any


def test_the_clean_strings_are_bounded() -> None:
    scan._CLEAN.clear()
    for number in range(scan._CLEAN_MAX + 10):
        scan.scan_meta(Record(id="01J" + "0" * 23, type="fact", content="x",
                              key=f"note-{number}"))
    assert 0 < len(scan._CLEAN) <= scan._CLEAN_MAX
    long = "word " * 100
    scan.scan_meta(Record(id="01J" + "0" * 23, type="fact", content="x", fields={"a": long}))
    assert long not in scan._CLEAN  # only short strings are remembered

"""A generator of realistic entries for the scale tests (no tests here).

Each entry is built from one of the til notes in tests/data (MIT): the note's title and the
start of its body, a type in turn, the note's topic as its tag, and a variant number so that
no two entries are the same once the notes run out. Output is the `git memory import
--format jsonl` shape.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

from conftest import DATA

NOTES = DATA / "til-jbranchaud" / "notes.jsonl"
TYPES = ("learned", "decision", "fact", "pattern", "investigation", "failure", "deviation")


def corpus_entries(count: int) -> list[dict]:
    notes = [json.loads(line) for line in NOTES.open(encoding="utf-8")]
    rows = []
    for n in range(count):
        note = notes[n % len(notes)]
        body = " ".join(note["body"].split())[:320]
        rows.append({
            "key": f"corpus-{n}",
            "type": TYPES[n % len(TYPES)],
            "content": f"{note['title']}: {body} (variant {n // len(notes)})",
            "tags": [note["topic"]],
            # Spread over a year and a day so that ordering by date is not ordering by key.
            "created": f"2026-{1 + n % 12:02d}-{1 + n % 28:02d}T{n % 24:02d}:00:00Z",
        })
    return rows


def write_corpus(path: Path, count: int, extra: list[dict] = []) -> Path:  # noqa: B006
    rows = corpus_entries(count) + list(extra)
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows),
                    encoding="utf-8")
    return path

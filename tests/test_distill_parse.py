"""Distillation input and output: the bounded summary and tolerant parsing (pure functions)."""

from __future__ import annotations

import pytest

from git_memory.agents.distill_io import entries, parse_output, summary
from git_memory.agents.markers import find_markers
from git_memory.agents.transcript import read_transcript
from git_memory.errors import BadInput
from agents_support import TRANSCRIPTS

BIG = (TRANSCRIPTS / "-Users-dain-workspace-coderabbit-review-helper"
       / "cb2e607c-c758-415a-8b45-c49e4631906a.jsonl")


@pytest.mark.parametrize("cap", [800, 3000, 24000])
def test_summary_never_exceeds_the_cap_and_keeps_both_ends(cap):
    transcript = read_transcript(BIG)
    text = summary(transcript, "main", cap)
    assert len(text) <= cap
    assert "Reply with JSON only" in text
    assert "USER: How can I make this possible to install as a library" in text
    if cap < 24000:
        assert "messages left out" in text
        assert transcript.messages[-1].text[:40] in text  # the most recent message kept


@pytest.mark.parametrize("output", [
    '{"learnings": ["a"], "handoff": "h"}',
    'Sure!\n```json\n{"learnings": ["a"], "handoff": "h"}\n```\nAnything else?',
    'Here you go: {"note": 1} and then {"learnings": ["a"], "handoff": "h"} -- done',
    '```\n{"learnings": ["a"], "handoff": "h"}\n```',
])
def test_parse_output_tolerates_fences_and_chatter(output):
    assert parse_output(output) == {"learnings": ["a"], "handoff": "h"}


@pytest.mark.parametrize("output", ["", "no json here", '{"unrelated": true}', "{broken"])
def test_parse_output_without_a_result_is_refused(output):
    with pytest.raises(BadInput):
        parse_output(output)


def test_entries_are_needs_review_with_fields_and_stable_keys():
    result = {"decisions": [{"decision": "Use uv", "rationale": "fast"}, 3, ""],
              "failures": [{"content": "Broke CI", "prevention": "pin the tool"}],
              "learnings": ["x"], "handoff": ["one", {"text": "two"}]}
    made = entries(result, "sid", {"session": "sid"})
    assert [(e.type, e.content) for e in made] == [
        ("decision", "Use uv"), ("failure", "Broke CI"), ("learned", "x"),
        ("handoff", "- one\n- two")]
    assert all(e.fields["status"] == "needs_review" and e.source == "distill" for e in made)
    assert made[0].fields["rationale"] == "fast" and made[1].fields["prevention"] == "pin the tool"
    assert [e.key for e in entries(result, "sid", {})] == [e.key for e in made]


def test_markers_at_line_starts_only():
    text = ("intro LEARNED: not at start\n- **DECISION:** use uv\n  for installs\n\n"
            "> FACT: quoted\n```\nPATTERN: in code\n```\n1. list\nHANDOFF: next step\n- other")
    assert find_markers(text) == [("decision", "use uv\nfor installs"), ("handoff", "next step")]

"""Distillation that knows what is already known (issue #15, point 2).

The prompt holds the existing entries nearest the session (found with recall's ranking
from the session's words), within a budget; an item that repeats an existing entry
(the same or nearly the same text) reinforces it instead of adding a copy. Real git,
the real worker; only the LLM is a fake command, which writes the prompt it received
to a file and answers what the test put in `answer.json`.
"""

from __future__ import annotations

import json
from pathlib import Path

from conftest import err, git, out
from agents_support import _reinforce_files, _session_copy
from agents_support import _distil, _fake

DOCS = "Keep work documents in work/ and technical reference docs in dev-docs/, apart"
OTHER = "Postgres vacuum runs nightly on the reporting replica"


def _add(gm, text: str) -> str:
    result = gm("add", text)
    assert result.returncode == 0, err(result)
    return out(result).strip()


def _entries(gm) -> list[dict]:
    return json.loads(out(gm("list", "--json")))


def _reinforcements(repo: Path, target: str) -> list[str]:
    """The reinforce records on the branch aimed at `target` (their file contents)."""
    found = []
    for name in _reinforce_files(repo):
        text = git("show", f"git-memory:{name}", cwd=repo)
        if f"target: {target}" in text:
            found.append(text)
    return found


def test_an_echoed_entry_adds_nothing_and_reinforces_it(git_repo, gm, tmp_path):
    existing = _add(gm, f"LEARNED: {DOCS}")
    unrelated = _add(gm, f"FACT: {OTHER}")
    fake = _fake(git_repo, tmp_path, {"learnings": [DOCS]})
    before = {e["id"] for e in _entries(gm)}
    log = _distil(gm, git_repo, _session_copy(tmp_path, "echo0001-s"))
    assert "0 entries added, 1 reinforced" in log
    assert {e["id"] for e in _entries(gm)} == before  # nothing added
    reinforced = _reinforcements(git_repo, existing)
    assert len(reinforced) == 1
    assert "source: distill" in reinforced[0] and "same text" in reinforced[0]
    shown = json.loads(out(gm("show", existing, "--json")))
    assert shown["confidence"] > 0.8  # manual 0.80 + one reinforcement
    prompt = (fake / "prompt-0.txt").read_text()
    assert existing in prompt  # the prompt named the existing entry by its id
    assert "Already in memory" in prompt and DOCS[:40] in prompt
    assert unrelated not in prompt  # not about this session's topic
    assert prompt.index(existing) < prompt.index("USER: Ok, so there's")


def test_a_near_duplicate_reinforces_and_a_new_item_is_added(git_repo, gm, tmp_path):
    existing = _add(gm, f"LEARNED: {DOCS}")
    reworded = "Work documents belong in work/, technical reference docs in dev-docs/"
    _fake(git_repo, tmp_path, {"learnings": [reworded, "Bullet lists help the review"]})
    log = _distil(gm, git_repo, _session_copy(tmp_path, "near0001-s"))
    assert "1 entry added, 1 reinforced" in log
    distilled = [e for e in _entries(gm) if e["source"] == "distill"]
    assert [e["content"] for e in distilled] == ["Bullet lists help the review"]
    assert distilled[0]["status"] == "needs_review"
    reinforced = _reinforcements(git_repo, existing)
    assert len(reinforced) == 1 and "near duplicate (similarity" in reinforced[0]


def test_the_same_session_reinforces_an_entry_once(git_repo, gm, tmp_path):
    existing = _add(gm, f"LEARNED: {DOCS}")
    _fake(git_repo, tmp_path, {"learnings": [DOCS]})
    session = _session_copy(tmp_path, "once0001-s")
    _distil(gm, git_repo, session, "first")
    grown = _session_copy(tmp_path, "once0001-s", "and one more thing about the docs")
    log = _distil(gm, git_repo, grown, "again")
    assert "0 entries added, 0 reinforced" in log
    assert len(_reinforcements(git_repo, existing)) == 1
    # Another session saying it is new evidence.
    _distil(gm, git_repo, _session_copy(tmp_path, "other001-s"), "other")
    assert len(_reinforcements(git_repo, existing)) == 2


def test_what_the_session_recorded_itself_is_not_evidence(git_repo, gm, tmp_path):
    """The session's own LEARNED: markers are captured from it; the command repeating
    one of them is dropped, not counted as a confirmation."""
    session = _session_copy(tmp_path, "self0001-s")
    assert gm("session", "import", str(session)).returncode == 0
    own = next(e for e in _entries(gm) if e["source"] == "session")
    _fake(git_repo, tmp_path, {"learnings": [own["content"] + "."]})
    log = _distil(gm, git_repo, session)
    assert "0 entries added, 0 reinforced, 1 already recorded" in log
    assert _reinforcements(git_repo, own["id"]) == []


def test_the_budget_bounds_the_entries_shown(git_repo, gm, tmp_path):
    ids = [_add(gm, f"LEARNED: work docs convention number {n} for the project reference")
           for n in range(5)]
    fake = _fake(git_repo, tmp_path, {"learnings": ["Something else entirely, about caching"]})
    git("config", "memory.distillKnownEntries", "2", cwd=git_repo)
    _distil(gm, git_repo, _session_copy(tmp_path, "budget01-s"), "a")
    shown = [i for i in ids if i in (fake / "prompt-0.txt").read_text()]
    assert len(shown) == 2
    git("config", "memory.distillKnownEntries", "12", cwd=git_repo)
    git("config", "memory.distillKnownChars", "300", cwd=git_repo)  # the header and one line
    _distil(gm, git_repo, _session_copy(tmp_path, "budget02-s"), "b")
    prompt = (fake / "prompt-1.txt").read_text()
    block = prompt[prompt.index("Already in memory"):prompt.index("The session:")]
    assert len(block) <= 300 and sum(i in block for i in ids) == 1
    git("config", "memory.distillKnownEntries", "0", cwd=git_repo)
    _distil(gm, git_repo, _session_copy(tmp_path, "budget03-s"), "c")
    assert "Already in memory" not in (fake / "prompt-2.txt").read_text()


def test_lines_reading_alike_are_listed_once(git_repo, gm, tmp_path):
    """Entries whose first 160 characters agree would show the command the same line twice:
    the best one is listed, the budget goes to the next different entry."""
    head = "The work docs convention keeps project reference documents apart " * 3
    twins = [_add(gm, f"LEARNED: {head}(variant {n})") for n in range(2)]
    other = _add(gm, f"LEARNED: {DOCS}")
    fake = _fake(git_repo, tmp_path, {"learnings": ["Nothing like the others, about caches"]})
    _distil(gm, git_repo, _session_copy(tmp_path, "twins001-s"))
    prompt = (fake / "prompt-0.txt").read_text()
    # Never both (recall's ranking, since the recall-rank merge, may rank neither).
    assert sum(t in prompt for t in twins) <= 1 and other in prompt

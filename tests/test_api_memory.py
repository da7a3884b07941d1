"""`Memory` (git_memory/api/memory.py) in-process, on real repositories: where it opens, that
`import git_memory` stays cheap, and that a refused write changes nothing."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from git_memory import Memory
from git_memory.errors import BadInput, NotARepository, SecretFound, UsageProblem


def test_outside_a_repository_it_says_so(tmp_path: Path) -> None:
    with pytest.raises(NotARepository):
        Memory(tmp_path)


def test_import_git_memory_does_not_load_the_library() -> None:
    code = ("import sys, git_memory; assert 'git_memory.api.memory' not in sys.modules;"
            " from git_memory import Memory; assert 'git_memory.api.memory' in sys.modules;"
            " print(Memory.__module__)")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "git_memory.api.memory"


def _tip(repo: Path) -> str:
    return subprocess.run(["git", "rev-parse", "-q", "--verify", "refs/heads/git-memory"],
                          cwd=repo, capture_output=True, text=True).stdout.strip()


def test_a_refused_write_changes_nothing(git_repo: Path) -> None:
    with Memory(git_repo) as memory:
        first = memory.add("LEARNED: the flamingo cache warms at 6am").id
        tip = _tip(git_repo)
        with pytest.raises(BadInput, match="cannot supersede itself"):
            memory.supersede(first, first, reason="a loop")
        with pytest.raises(BadInput, match="reason is required"):
            memory.flag(first, status="needs_review", reason="")
        with pytest.raises(SecretFound):
            memory.add("LEARNED: the token is ghp_" + "aB3dE5fG7hJ9kL1mN3pQ5rS7tU9vW1xY3zA5")
        with pytest.raises(UsageProblem):
            memory.recall("")
        assert _tip(git_repo) == tip
        assert [e["id"] for e in memory.list()] == [first]


def test_one_memory_sees_a_write_made_by_another(git_repo: Path) -> None:
    with Memory(git_repo) as reader, Memory(git_repo) as writer:
        assert reader.recall("heron") == []
        added = writer.add("LEARNED: the heron gateway retries twice")
        assert [e["id"] for e in reader.recall("heron")] == [added.id]
        assert reader.show(added.id)["content"].startswith("the heron gateway")


def test_related_and_review_queue_are_typed(git_repo: Path) -> None:
    with Memory(git_repo) as memory:
        a = memory.add("FACT: src/parser.py reads the keys", tags=["parser"]).id
        b = memory.add("FAILURE: src/parser.py rejects tabs", tags=["parser"]).id
        near = memory.related(a)
        assert [n.id for n in near] == [b] and near[0].reasons
        proposed = memory.propose("LEARNED: tabs need escaping", "tabs")
        assert proposed.ref.endswith("git-memory-proposals/tabs") and proposed.duplicate_of is None
        assert memory.review_queue() == []  # a proposal waits on its branch, not in the queue

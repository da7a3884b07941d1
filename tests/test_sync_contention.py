"""A team syncing at once: many clones of one bare remote run `git memory sync` together.

Every sync must exit 0 (a refused push is retried with a random, growing back-off for a
budget in time, `memory.syncTimeout`), the remote must end holding every entry anyone
added, and no update of the remote may be forced (its reflog: each value descends from
the one before; the remote also refuses non-fast-forwards). The figures (wall time of
each round, attempts per sync) are printed: `pytest -s` shows them.
"""

from __future__ import annotations

import json
import subprocess
import time
from pathlib import Path

import pytest

from conftest import err, git, out
from sync_world import (
    assert_never_forced, clone, entry_ids, is_ancestor, make_remote, rev, write_hook,
)


def _team(gm, root: Path, size: int) -> tuple[Path, list[Path], set[str]]:
    """A bare remote whose memory holds two entries, and `size` clones of it made after."""
    bare = make_remote(root)
    first = clone(bare, root / "first")
    shared = {_add(gm, first, f"LEARNED: shared fact {n} about the staging cluster")
              for n in range(2)}
    assert gm("sync", cwd=first).returncode == 0
    return bare, [clone(bare, root / f"clone{n:02d}") for n in range(size)], shared


def _add(gm, repo: Path, text: str) -> str:
    result = gm("add", text, cwd=repo)
    assert result.returncode == 0, err(result)
    return out(result).strip()


def _sync_together(clones: list[Path]) -> tuple[list[int], list[int], list[str]]:
    """Start `git memory sync --json` in every clone at once; exit codes, attempts of the
    ones that succeeded, stderr of the ones that did not."""
    procs = [subprocess.Popen(["git", "memory", "sync", "--json"], cwd=repo,
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE)
             for repo in clones]
    codes, attempts, errors = [], [], []
    for proc in procs:
        stdout, stderr = proc.communicate(timeout=600)  # a hang bound, not a benchmark
        codes.append(proc.returncode)
        if proc.returncode == 0:
            attempts.append(json.loads(stdout)["attempts"])
        else:
            errors.append(stderr.decode("utf-8", "replace").strip())
    return codes, attempts, errors


def _rounds(gm, tmp_path: Path, size: int, rounds: int) -> None:
    bare, clones, expected = _team(gm, tmp_path, size)
    codes: list[int] = []
    attempts: list[int] = []
    tips = [rev(bare)]
    for number in range(rounds):
        for n, repo in enumerate(clones):
            expected.add(_add(gm, repo, f"LEARNED: clone {n} found fact {number} about widget {n}"))
        started = time.monotonic()
        round_codes, round_attempts, errors = _sync_together(clones)
        wall = time.monotonic() - started
        assert errors == []
        codes += round_codes
        attempts += round_attempts
        tips.append(rev(bare))
        print(f"\n{size} clones, round {number + 1}: {wall:.1f} s wall, attempts per sync"
              f" {sorted(round_attempts)} (mean {sum(round_attempts) / len(round_attempts):.1f})")
        # Each clone ends on a commit the remote holds: what it pushed, or what it fetched.
        for repo in clones:
            assert is_ancestor(bare, rev(repo), rev(bare))
    assert codes == [0] * (size * rounds)
    fresh = clone(bare, tmp_path / "fresh")
    found = entry_ids(gm, fresh)
    assert len(found) == len(expected) == 2 + size * rounds
    assert found == expected
    assert_never_forced(bare)
    for old, new in zip(tips, tips[1:]):
        assert is_ancestor(bare, old, new)


def test_six_clones_syncing_at_once_all_get_through(gm, tmp_path: Path) -> None:
    _rounds(gm, tmp_path, 6, 1)


@pytest.mark.slow  # sixty sync processes on a shared machine: a minute or more
def test_twenty_clones_three_rounds_all_get_through(gm, tmp_path: Path) -> None:
    _rounds(gm, tmp_path, 20, 3)


def _racing(gm, tmp_path: Path, races: int | None = None) -> tuple[Path, Path, Path]:
    """A remote and clones A and B; B gets in before each of A's first `races` pushes
    (None: every push): A's pre-push hook adds and syncs an entry in B, so that push of
    A's is refused. Each race leaves a line in `races.log` beside the clones."""
    bare, (a, b), _ = _team(gm, tmp_path, 2)
    _add(gm, a, "LEARNED: clone a has a fact of its own about the cache")
    log = tmp_path / "races.log"
    guard = f"[ $(cat '{log}' 2>/dev/null | wc -l) -lt {races} ] || exit 0\n" if races else ""
    write_hook(a / ".git", "pre-push", guard + f"echo race >> '{log}' && cd '{b}' &&"
               " unset GIT_MEMORY_SYNC GIT_DIR &&"
               " git memory add \"LEARNED: race $(date +%s%N)\" >/dev/null &&"
               " git memory sync >/dev/null")
    return bare, a, b


def test_more_refusals_than_the_old_five_attempts_still_get_through(gm, tmp_path: Path) -> None:
    bare, a, b = _racing(gm, tmp_path, races=6)
    result = gm("sync", "--json", cwd=a)
    assert result.returncode == 0, err(result)
    report = json.loads(out(result))
    assert report["attempts"] == 7 and report["action"] == "merge"
    assert (tmp_path / "races.log").read_text().count("race") == 6
    assert entry_ids(gm, a) >= entry_ids(gm, b)  # A holds B's six racing entries too
    assert rev(bare) == rev(a)
    assert_never_forced(bare)


def test_gives_up_when_the_time_budget_is_spent(gm, tmp_path: Path) -> None:
    bare, a, _ = _racing(gm, tmp_path)
    git("config", "memory.syncTimeout", "0", cwd=a)  # one attempt, no retry
    before = rev(a)
    result = gm("sync", cwd=a)
    assert result.returncode == 1
    lines = err(result).strip().splitlines()
    assert len(lines) == 1, lines
    assert lines[0].startswith("error: origin kept moving: gave up after 1 attempt in ")
    assert "(memory.syncTimeout is 0 s)" in lines[0] and "nothing was lost" in lines[0]
    assert rev(a) == before
    assert_never_forced(bare)


def test_a_bad_timeout_is_one_line_and_changes_nothing(gm, tmp_path: Path) -> None:
    bare, a, _ = _racing(gm, tmp_path)
    git("config", "memory.syncTimeout", "soon", cwd=a)
    before, remote_before = rev(a), rev(bare)
    result = gm("sync", cwd=a)
    assert result.returncode != 0
    lines = err(result).strip().splitlines()
    assert len(lines) == 1 and "memory.synctimeout" in lines[0].lower(), lines
    assert (rev(a), rev(bare)) == (before, remote_before)

"""Reverts (docs/curation.md, "Reverts"): a revert of a captured commit flags its entries
for review naming the revert; a revert of the revert clears the flag. Real git, real
hooks (`git memory install`), real `git revert`."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

from conftest import err, git, out, tip
from hooks_support import commit, head

LEARNED = "Cache warm-up\n\nLEARNED: the cache must be warmed before the first request\n"


def _revert(repo: Path, rev: str = "HEAD") -> subprocess.CompletedProcess:
    done = subprocess.run(["git", "revert", "--no-edit", rev], cwd=repo, capture_output=True,
                          text=True)
    assert done.returncode == 0, done.stderr
    return done


def _show(gm, repo: Path, ref: str) -> dict:
    done = gm("show", ref, "--json", cwd=repo)
    assert done.returncode == 0, err(done)
    return json.loads(out(done))


def _curate(gm, repo: Path) -> tuple[str, dict]:
    text = gm("curate", "--dry-run", cwd=repo)
    as_json = gm("curate", "--dry-run", "--json", cwd=repo)
    assert text.returncode == 0 and as_json.returncode == 0, err(text) + err(as_json)
    return out(text), json.loads(out(as_json))


def _captured(gm, repo: Path, message: str = LEARNED, name: str = "cache.py") -> str:
    """Install the hooks, commit `message` and return the one entry it captured."""
    assert gm("install", cwd=repo).returncode == 0
    done = commit(repo, message, name)
    assert "captured 1 entry" in done.stderr
    listed = json.loads(out(gm("list", "--json", cwd=repo)))
    assert len(listed) == 1 and listed[0]["origin"]["commit"] == head(repo)
    return str(listed[0]["id"])


def test_a_reverted_commit_flags_its_entries_naming_the_revert(git_repo: Path, gm) -> None:
    eid = _captured(gm, git_repo)
    captured_from = head(git_repo)
    done = _revert(git_repo)
    revert = head(git_repo)
    assert f"{revert[:12]} reverts {captured_from[:12]}: 1 entry captured from it flagged" in done.stderr

    shown = _show(gm, git_repo, eid)
    assert shown["status"] == "needs_review"
    assert shown["reverted_by"] == revert
    assert shown["reverted"] == {"by": revert, "reverts": captured_from, "was": "active"}
    assert any(revert[:12] in reason for reason in shown["reasons"])
    text = out(gm("show", eid, cwd=git_repo))
    assert f"reverted:    by commit {revert}" in text

    recalled = gm("recall", "cache warmed", cwd=git_repo)
    assert f"[needs_review] [reverted by {revert[:12]}]" in out(recalled)
    (hit,) = json.loads(out(gm("recall", "cache warmed", "--json", cwd=git_repo)))
    assert hit["reverted_by"] == revert

    listing, proposal = _curate(gm, git_repo)
    assert f"{eid[-8:].lower()}: captured from {captured_from[:12]}, which commit {revert[:12]}" \
        " reverted" in listing
    assert f"git memory review reject {eid[-8:].lower()}" in listing
    (item,) = proposal["reverted"]
    assert (item["id"], item["reverted_by"], item["reverts"]) == (eid, revert, captured_from)
    assert proposal["changes"] == []  # proposed, never part of what --apply would write

    # The flag is a record on the memory branch, so a teammate's clone sees it too.
    log = git("log", "-1", "--format=%B", "git-memory", cwd=git_repo)
    assert f"Status: {eid} -> needs_review" in log


def test_a_revert_of_the_revert_clears_the_flag_and_restores_the_status(git_repo: Path, gm) -> None:
    eid = _captured(gm, git_repo)
    assert gm("review", "accept", eid, cwd=git_repo).returncode == 0  # canonical before
    _revert(git_repo)
    first = head(git_repo)
    assert _show(gm, git_repo, eid)["reverted"]["was"] == "canonical"
    done = _revert(git_repo)
    assert "revert flag cleared on 1 entry" in done.stderr

    shown = _show(gm, git_repo, eid)
    assert shown["status"] == "canonical"
    assert "reverted_by" not in shown and "reverted" not in shown
    assert "reverted by" not in out(gm("recall", "cache warmed", cwd=git_repo))
    assert _curate(gm, git_repo)[1]["reverted"] == []

    _revert(git_repo)  # and reverted once more: flagged again, by the third revert
    third = head(git_repo)
    assert third != first
    shown = _show(gm, git_repo, eid)
    assert (shown["status"], shown["reverted_by"]) == ("needs_review", third)


def test_a_review_after_the_revert_is_left_alone_by_a_revert_of_it(git_repo: Path, gm) -> None:
    eid = _captured(gm, git_repo)
    _revert(git_repo)
    assert gm("review", "accept", eid, "--reason", "still holds", cwd=git_repo).returncode == 0
    assert _curate(gm, git_repo)[1]["reverted"] == []  # decided: no longer proposed
    before = tip(git_repo)
    _revert(git_repo)
    assert tip(git_repo) == before  # the person's decision stands
    assert _show(gm, git_repo, eid)["status"] == "canonical"


def test_a_revert_of_a_commit_without_markers_changes_nothing(git_repo: Path, gm) -> None:
    eid = _captured(gm, git_repo)
    commit(git_repo, "Refactor: nothing learned", "other.py")
    before = tip(git_repo)
    done = _revert(git_repo)
    assert "git-memory" not in done.stderr
    assert tip(git_repo) == before
    assert _show(gm, git_repo, eid)["status"] == "active"


def test_a_revert_on_another_branch_leaves_the_entry_alone(git_repo: Path, gm) -> None:
    """Documented: the entry names the branch it was learned on, where the change still
    holds; a revert elsewhere is said in one line and flags nothing."""
    eid = _captured(gm, git_repo)
    captured_from = head(git_repo)
    branch = git("branch", "--show-current", cwd=git_repo).strip()
    git("checkout", "-q", "-b", "experiment", cwd=git_repo)
    before = tip(git_repo)
    done = _revert(git_repo, captured_from)
    assert f"entry {eid[-8:].lower()} was captured on branch {branch}, not this one" in done.stderr
    assert tip(git_repo) == before
    assert _show(gm, git_repo, eid)["status"] == "active"


def test_capture_over_a_range_flags_reverts_once(git_repo: Path, gm) -> None:
    """Without hooks (a fresh clone, CI): `git memory capture` reads the reverts too, and a
    second run writes nothing."""
    commit(git_repo, LEARNED, "cache.py")
    captured_from = head(git_repo)
    _revert(git_repo)
    revert = head(git_repo)
    assert gm("capture", cwd=git_repo).returncode == 0
    (entry,) = json.loads(out(gm("list", "--json", cwd=git_repo)))
    assert (entry["status"], entry["reverted_by"]) == ("needs_review", revert)
    assert entry["origin"]["commit"] == captured_from
    before = tip(git_repo)
    assert gm("capture", f"{captured_from}~1..HEAD", cwd=git_repo).returncode == 0
    assert tip(git_repo) == before


def test_a_message_claiming_to_revert_a_missing_commit_is_harmless(git_repo: Path, gm) -> None:
    eid = _captured(gm, git_repo)
    tree = git("rev-parse", "HEAD^{tree}", cwd=git_repo).strip()
    before = tip(git_repo)
    for named in ("0123456789abcdef0123456789abcdef01234567", "deadbee", tree):
        done = commit(git_repo, f'Revert "nothing"\n\nThis reverts commit {named}.\n', "x.py")
        assert "git-memory" not in done.stderr, done.stderr  # no crash, no flag, no line
    assert tip(git_repo) == before
    assert _show(gm, git_repo, eid)["status"] == "active"

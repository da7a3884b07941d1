"""Promotion and demotion (issue #16 point 3): real repositories, personal memory isolated.

An entry reinforced in two repositories (this one and a memory.sources one) is proposed
for promotion by `curate --dry-run`; applying it (the command the dry run prints) puts a
copy with `promoted_from` (repository, id, commit) in personal memory. Also: promotion by
confidence, `--to team`, and demotion of a copy whose original was contradicted.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from conftest import err, git, make_repo, out

TEXT = "LEARNED: the CI runners have two cores, so run pytest with -n 2"


@pytest.fixture(autouse=True)
def data_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    home = tmp_path / "xdg-data"
    monkeypatch.setenv("XDG_DATA_HOME", str(home))
    return home


def _dry_run(gm, repo: Path) -> dict:
    result = gm("curate", "--dry-run", "--json", cwd=repo)
    assert result.returncode == 0, err(result)
    return json.loads(out(result))


def _personal_entries(gm, repo: Path) -> list[dict]:
    result = gm("list", "--personal", "--json", cwd=repo)
    assert result.returncode == 0, err(result)
    return json.loads(out(result))


def test_entry_in_two_repositories_is_proposed_and_promoted(tmp_path, gm):
    first = make_repo(tmp_path / "first")
    second = make_repo(tmp_path / "second")
    assert gm("add", TEXT, cwd=first).returncode == 0
    mine = out(gm("add", TEXT, cwd=second)).strip()
    assert gm("add", "LEARNED: second deploys on fridays only", cwd=second).returncode == 0
    git("config", "--add", "memory.sources", f"first={first}", cwd=second)
    assert gm("sync", cwd=second).returncode == 0
    moves = _dry_run(gm, second)["promotions"]
    assert [(m["action"], m["id"], m["to"]) for m in moves] == [("promote", mine, "personal")]
    assert "2 repositories" in moves[0]["why"] and "first" in moves[0]["why"]
    text = out(gm("curate", "--dry-run", cwd=second))
    command = moves[0]["command"]
    assert command in text
    applied = subprocess.run(command.split(), cwd=second, capture_output=True)
    assert applied.returncode == 0, err(applied)
    copy_id = out(applied).strip()
    personal = _personal_entries(gm, second)
    assert [(e["id"], e["content"]) for e in personal] == [(copy_id, TEXT.split(": ", 1)[1])]
    came = personal[0]["fields"]["promoted_from"]
    assert came["id"] == mine
    assert came["repository"] == str(second)
    assert came["commit"] == git("rev-parse", "refs/heads/git-memory", cwd=second).strip()
    # The copy is in personal memory's own branch, with its provenance in the file.
    personal_git = tmp_path / "xdg-data" / "git-memory" / "personal.git"
    assert mine in git("log", "-p", "refs/heads/git-memory", cwd=personal_git)
    # Proposed once: personal memory now holds it.
    assert _dry_run(gm, second)["promotions"] == []


def test_confidence_reached_by_reinforcement_is_proposed(git_repo, gm):
    entry = out(gm("add", TEXT)).strip()
    assert _dry_run(gm, git_repo)["promotions"] == []  # typed once: 0.8 is not confirmed
    assert gm("reinforce", entry, "--reason", "held again today").returncode == 0
    moves = _dry_run(gm, git_repo)["promotions"]
    assert [(m["action"], m["id"]) for m in moves] == [("promote", entry)]
    assert "confidence 0.85 after 1 reinforcement" in moves[0]["why"]


def test_promote_to_team_and_back_refusals(tmp_path, gm):
    repo = make_repo(tmp_path / "repo")
    personal_id = out(gm("add", "--personal", "LEARNED: pnpm, not npm", cwd=repo)).strip()
    local = out(gm("add", "LEARNED: repo uses tox", cwd=repo)).strip()
    refused = gm("promote", local, "--to", "team", cwd=repo)
    assert refused.returncode != 0 and "already this repository's memory" in err(refused)
    again = gm("promote", personal_id, "--to", "personal", cwd=repo)
    assert again.returncode != 0 and "already in personal memory" in err(again)
    done = gm("promote", personal_id, "--to", "team", "--json", cwd=repo)
    assert done.returncode == 0, err(done)
    result = json.loads(out(done))
    assert result["promoted_from"]["id"] == personal_id
    assert result["promoted_from"]["repository"].endswith("personal.git")
    tree = git("log", "-p", "refs/heads/git-memory", cwd=repo)
    assert "pnpm, not npm" in tree and personal_id in tree  # on the team branch now
    missing = gm("promote", "ZZZZZZZZ", "--to", "personal", cwd=repo)
    assert missing.returncode != 0 and len(err(missing).splitlines()) == 1


def test_contradicted_original_proposes_demotion(git_repo, gm):
    entry = out(gm("add", TEXT)).strip()
    copy = out(gm("promote", entry, "--to", "personal")).strip()
    assert gm("contradict", entry, "--reason", "runners have four cores now").returncode == 0
    moves = _dry_run(gm, git_repo)["promotions"]
    assert [(m["action"], m["id"], m["to"]) for m in moves] == [("demote", copy, "personal")]
    assert "was contradicted" in moves[0]["why"]
    done = gm("demote", copy[-8:])
    assert done.returncode == 0, err(done)
    personal = _personal_entries(gm, git_repo)
    assert [(e["id"], e["status"]) for e in personal] == [(copy, "needs_review")]
    assert _dry_run(gm, git_repo)["promotions"] == []
    plain = gm("demote", entry)
    assert plain.returncode != 0 and "was not promoted" in err(plain)

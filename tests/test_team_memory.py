"""Team memory without extra steps (issue #16 point 1): what `git fetch` brings, recall sees.

Two clones of a real bare remote: A adds and syncs; B only runs `git pull` (or `git
fetch`), and B's recall, context and list show A's entry labelled `origin`; a redaction
A makes hides the entry in B with no memory command run in B; a `--single-branch`
clone gets the memory after `git memory install` and a `git fetch`. Also the index's
union rules: nothing doubles after a sync, a purge's blob never comes back from a
source, and a teammate's supersede holds on our own entry.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from arch_rules import fenced
from conftest import err, git, out
from sync_world import clone, copy_world, make_remote

TEXT = "LEARNED: the staging database refuses connections without sslmode=require"


def _make_world(root: Path, gm) -> None:
    remote = make_remote(root)
    a = clone(remote, root / "a")
    clone(remote, root / "b")
    added = gm("add", TEXT, cwd=a)
    assert added.returncode == 0, err(added)
    synced = gm("sync", cwd=a)
    assert synced.returncode == 0, err(synced)
    (root / "entry-id").write_text(out(added).strip(), encoding="utf-8")


@pytest.fixture
def world(tmp_path: Path, gm, built_once):
    """A bare remote and two clones of it; A holds one entry, synced to the remote.

    Made once for the run (built_once) and copied into this test's folder: the clones'
    `origin` is the copy's remote (the only path a clone keeps in its config)."""
    made = built_once("team-memory-world", lambda root: _make_world(root, gm))
    copy_world(made, tmp_path, ("remote.git", "seed", "a", "b"))
    for name in ("a", "b"):
        assert git("remote", "get-url", "origin", cwd=tmp_path / name).strip() == str(
            tmp_path / "remote.git")
    return (tmp_path / "remote.git", tmp_path / "a", tmp_path / "b",
            (made / "entry-id").read_text(encoding="utf-8"))


def _recall(gm, repo: Path, query: str = "staging sslmode") -> list[dict]:
    result = gm("recall", query, "--json", cwd=repo)
    assert result.returncode == 0, err(result)
    return json.loads(out(result))


def test_git_pull_alone_brings_a_teammates_entry_labelled_origin(world, gm):
    remote, a, b, entry_id = world
    assert _recall(gm, b) == []  # B's index is built before the pull: nothing yet
    git("pull", "-q", cwd=b)  # no memory command in B
    hits = _recall(gm, b)
    assert [h["id"] for h in hits] == [entry_id]
    assert hits[0]["from"] == "origin"
    text = out(gm("recall", "staging sslmode", cwd=b))
    assert "[origin]" in text and "sslmode" in text
    listed = json.loads(out(gm("list", "--json", cwd=b)))
    assert [(e["id"], e["from"]) for e in listed] == [(entry_id, "origin")]
    assert "[origin]" in out(gm("list", cwd=b))
    context = out(gm("context", cwd=b))
    assert "sslmode" in context and "from origin" in context


def test_a_redaction_fetched_by_b_hides_the_entry_without_a_memory_command(world, gm):
    remote, a, b, entry_id = world
    git("fetch", "-q", cwd=b)
    assert [h["id"] for h in _recall(gm, b)] == [entry_id]
    redacted = gm("redact", entry_id, "--reason", "wrong host", cwd=a)
    assert redacted.returncode == 0, err(redacted)
    assert gm("sync", cwd=a).returncode == 0
    git("fetch", "-q", cwd=b)
    assert _recall(gm, b) == []
    listed = json.loads(out(gm("list", "--all", "--json", cwd=b)))
    assert [(e["id"], e["status"], e["content"]) for e in listed] == [
        (entry_id, "redacted", "(redacted)")]


def test_after_sync_nothing_doubles_and_local_entries_are_unlabelled(world, gm):
    remote, a, b, entry_id = world
    git("fetch", "-q", cwd=b)
    mine = out(gm("add", "LEARNED: staging sslmode is also needed by the replica", cwd=b)).strip()
    assert gm("sync", cwd=b).returncode == 0
    listed = json.loads(out(gm("list", "--json", cwd=b)))
    assert sorted((e["id"], e["from"]) for e in listed) == sorted(
        [(entry_id, None), (mine, None)])
    git("fetch", "-q", cwd=a)  # A sees B's entry through origin before any memory command
    listed = json.loads(out(gm("list", "--json", cwd=a)))
    assert sorted((e["id"], e["from"]) for e in listed) == sorted(
        [(entry_id, None), (mine, "origin")])
    assert gm("sync", cwd=a).returncode == 0
    listed = json.loads(out(gm("list", "--json", cwd=a)))
    assert len(listed) == 2 and {e["from"] for e in listed} == {None}


def test_a_supersede_from_origin_holds_on_our_own_entry(world, gm):
    remote, a, b, entry_id = world
    assert gm("pull", cwd=b).returncode == 0  # B holds the entry locally now
    newer = out(gm("add", "LEARNED: staging needs sslmode=verify-full since the move", cwd=a)).strip()
    done = gm("supersede", entry_id, newer, "--reason", "stricter now", cwd=a)
    assert done.returncode == 0, err(done)
    assert gm("sync", cwd=a).returncode == 0
    git("fetch", "-q", cwd=b)
    hits = _recall(gm, b, "staging sslmode")
    assert [h["id"] for h in hits] == [newer]
    shown = json.loads(out(gm("list", "--all", "--json", cwd=b)))
    assert {e["id"]: e["status"] for e in shown}[entry_id] == "superseded"


def test_single_branch_clone_gets_memory_after_install_and_fetch(world, gm, tmp_path):
    remote, a, b, entry_id = world
    single = tmp_path / "single"
    git("clone", "-q", "--single-branch", "--branch", "main", str(remote), str(single),
        cwd=tmp_path)
    git("fetch", "-q", cwd=single)
    assert _recall(gm, single) == []  # the default single-branch refspec skips memory
    installed = gm("install", cwd=single)
    assert installed.returncode == 0, err(installed)
    assert "origin: fetch now brings the memory branch" in out(installed)
    refspecs = git("config", "--get-all", "remote.origin.fetch", cwd=single).split()
    assert "+refs/heads/git-memory:refs/remotes/origin/git-memory" in refspecs
    assert "+refs/heads/main:refs/remotes/origin/main" in refspecs  # kept
    git("fetch", "-q", cwd=single)
    hits = _recall(gm, single)
    assert [(h["id"], h["from"]) for h in hits] == [(entry_id, "origin")]
    again = gm("install", cwd=single)
    assert "origin: fetch already brings the memory branch" in out(again)
    assert git("config", "--get-all", "remote.origin.fetch", cwd=single).split() == refspecs


def test_hot_path_stays_light_with_remote_source_and_personal_memory(world, gm, tmp_path,
                                                                      monkeypatch):
    remote, a, b, entry_id = world
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    assert gm("add", "--personal", "LEARNED: staging sslmode notes live in my wiki",
              cwd=b).returncode == 0
    git("fetch", "-q", cwd=b)
    assert len(_recall(gm, b)) == 2  # origin's and personal: the index is current now
    result, problems = fenced(
        "from git_memory.entry import main\nrc = main(['recall', '--json', 'staging sslmode'])", b)
    assert result.returncode == 0, result.stderr
    assert sorted(h["from"] for h in json.loads(result.stdout)) == ["origin", "personal"]
    assert problems == []  # tests/arch_rules.py's HOT_PATH and HEAVY


def test_mcp_memory_sees_a_fetch_without_reopening_by_hand(world, gm, monkeypatch):
    from git_memory.commands.mcp_tools import Tools
    from git_memory.store.locate import discover

    remote, a, b, entry_id = world
    monkeypatch.chdir(b)
    memory = Tools(discover(b))
    try:
        assert memory.recall("staging sslmode")["count"] == 0
        git("fetch", "-q", cwd=b)
        found = memory.recall("staging sslmode")
        assert [(r["id"], r["from"]) for r in found["results"]] == [(entry_id, "origin")]
        assert "from origin" in found["text"]
    finally:
        memory.close()


def test_doctor_names_a_remote_that_does_not_fetch_memory(world, gm, tmp_path):
    remote, a, b, entry_id = world
    single = tmp_path / "single"
    git("clone", "-q", "--single-branch", "--branch", "main", str(remote), str(single),
        cwd=tmp_path)
    checked = gm("doctor", cwd=single)
    assert checked.returncode == 1
    assert "fail  remote origin does not fetch the memory branch" in out(checked)
    assert gm("install", cwd=single).returncode == 0
    git("fetch", "-q", cwd=single)
    checked = gm("doctor", "--json", cwd=single)
    report = json.loads(out(checked))
    assert report["remotes"] == [{"remote": "origin", "fetches_memory": True,
                                  "refspec": "+refs/heads/git-memory:refs/remotes/origin/git-memory"}]
    assert [s["from"] for s in report["sources"]] == ["origin"]
    assert checked.returncode == 0, out(checked)


def test_curation_commands_leave_read_only_entries_alone(tmp_path, gm, monkeypatch):
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    from conftest import make_repo

    repo = make_repo(tmp_path / "repo")
    personal = out(gm("add", "--personal", "LEARNED: pnpm, not npm", cwd=repo)).strip()
    refused = gm("flag", personal, "--status", "needs_review", "--reason", "doubt", cwd=repo)
    assert refused.returncode == 1
    assert "read only here" in err(refused) and len(err(refused).splitlines()) == 1
    assert git("rev-parse", "--verify", "-q", "refs/heads/git-memory", cwd=repo,
               check=False) == ""  # nothing written to the project


def test_our_redaction_of_a_fetched_entry_hides_it_before_any_merge(world, gm):
    remote, a, b, entry_id = world
    git("fetch", "-q", cwd=b)
    done = gm("redact", entry_id, "--reason", "wrong host", cwd=b)  # only origin holds it
    assert done.returncode == 0, err(done)
    assert _recall(gm, b) == []
    assert gm("sync", cwd=b).returncode == 0  # the redaction travels; A's copy hides too
    git("fetch", "-q", cwd=a)
    assert _recall(gm, a) == []

"""What the hooks check: secrets at commit-msg and pre-push, anchors at checkout and merge."""

from __future__ import annotations

import json
import os
import subprocess
import time
from pathlib import Path

import pytest

from conftest import err, git, out, tip
from hooks_support import audit_items, commit, entries, fake_aws_key, fake_github_token, head, local_flags
from hooks_support import _hand_written_memory_commit

SYNC = {"GIT_MEMORY_HOOK_SYNC": "1"}


def _git_env(*args: str, cwd: Path, env: dict[str, str] | None = None) -> subprocess.CompletedProcess:
    return subprocess.run(["git", *args], cwd=cwd, capture_output=True, text=True,
                          env={**os.environ, **(env or {})})


# -- commit-msg ------------------------------------------------------------------------

def test_commit_msg_refuses_a_secret_in_a_marker(git_repo: Path, gm) -> None:
    assert gm("install").returncode == 0
    before = head(git_repo)
    key = fake_aws_key()
    result = commit(git_repo, f"Deploy\n\nLEARNED: the deploy key is {key} for now", "a.py",
                    check=False)
    assert result.returncode != 0
    assert "aws-access-key-id" in result.stderr and "LEARNED: marker on line 3" in result.stderr
    assert key not in result.stderr + result.stdout
    assert head(git_repo) == before and tip(git_repo) is None
    refused = [a for a in audit_items(git_repo) if a["action"] == "refused"]
    assert refused and refused[0]["rule"] == "aws-access-key-id" and refused[0]["source"] == "commit-msg"
    assert key not in (git_repo / ".git" / "git-memory" / "audit.jsonl").read_text()


def test_commit_msg_ignores_secrets_outside_markers(git_repo: Path, gm) -> None:
    """Only knowledge markers are our business; the rest of the message is the user's."""
    assert gm("install").returncode == 0
    commit(git_repo, f"Rotate {fake_aws_key()}\n\nFACT: keys rotate monthly", "a.py")
    assert [e["content"] for e in entries(git_repo)] == ["keys rotate monthly"]


def test_commit_msg_sees_through_a_zero_width_space(git_repo: Path, gm) -> None:
    assert gm("install", "--hooks", "commit-msg").returncode == 0
    key = fake_aws_key()
    hidden = key[:6] + "\u200b" + key[6:]
    result = commit(git_repo, f"LEARNED: key {hidden}", "a.py", check=False)
    assert result.returncode != 0 and "aws-access-key-id" in result.stderr


def test_commit_msg_sees_through_a_form_feed_in_pure_ascii(git_repo: Path, gm) -> None:
    """An ASCII control character splitting a key must still start the Python check."""
    assert gm("install", "--hooks", "commit-msg").returncode == 0
    key = fake_aws_key()
    result = commit(git_repo, f"LEARNED: key {key[:2]}\f{key[2:]}\r\n", "a.py", check=False)
    assert result.returncode != 0 and "aws-access-key-id" in result.stderr


def test_add_refuses_a_github_token(git_repo: Path, gm) -> None:
    token = fake_github_token()
    result = gm("add", f"LEARNED: CI uses {token} to publish")
    assert result.returncode == 1
    assert err(result).startswith("error: ") and "github-token" in err(result)
    assert token not in err(result) + out(result)
    assert tip(git_repo) is None
    assert [a["rule"] for a in audit_items(git_repo)] == ["github-token"]


# -- pre-push --------------------------------------------------------------------------

@pytest.fixture
def remote(git_repo: Path, tmp_path: Path) -> Path:
    bare = tmp_path / "remote.git"
    git("init", "-q", "--bare", str(bare), cwd=tmp_path)
    git("remote", "add", "origin", str(bare), cwd=git_repo)
    return bare


def test_pre_push_refuses_a_memory_branch_holding_a_secret(git_repo: Path, gm, remote: Path) -> None:
    assert gm("install").returncode == 0
    assert gm("add", "FACT: a clean entry first").returncode == 0
    git("push", "-q", "origin", "git-memory", cwd=git_repo)
    clean_tip = tip(git_repo)
    key = fake_aws_key()
    dirty = _hand_written_memory_commit(git_repo, f"the key is {key}", clean_tip)
    git("update-ref", "refs/heads/git-memory", dirty, cwd=git_repo)
    result = _git_env("push", "origin", "git-memory", cwd=git_repo)
    assert result.returncode != 0
    assert "push refused" in result.stderr and "aws-access-key-id" in result.stderr
    assert "entries/learned-by-hand.md" in result.stderr and "the way out" in result.stderr
    assert key not in result.stderr + result.stdout
    assert git("rev-parse", "git-memory", cwd=remote).strip() == clean_tip
    # Other branches still push, and so does the memory branch once it is fixed.
    git("push", "-q", "origin", "main", cwd=git_repo)
    git("update-ref", "refs/heads/git-memory", clean_tip, cwd=git_repo)
    assert gm("add", "FACT: a second clean entry").returncode == 0
    git("push", "-q", "origin", "git-memory", cwd=git_repo)
    assert git("rev-parse", "git-memory", cwd=remote).strip() == tip(git_repo)


def test_pre_push_scans_a_new_memory_branch_and_a_renamed_push(git_repo: Path, gm, remote: Path) -> None:
    assert gm("install", "--hooks", "pre-push").returncode == 0
    dirty = _hand_written_memory_commit(git_repo, f"token {fake_github_token()}", None)
    git("branch", "scratch", dirty, cwd=git_repo)
    result = _git_env("push", "origin", "scratch:refs/heads/git-memory", cwd=git_repo)
    assert result.returncode != 0 and "github-token" in result.stderr
    assert fake_github_token() not in result.stderr
    assert git("branch", "--list", cwd=remote).strip() == ""


# -- post-checkout / post-merge ----------------------------------------------------------

def _anchored_repo(repo: Path, gm) -> dict[str, str]:
    """Three captured entries: on a.py only, on b.py + c.py, on d.py; ids by file."""
    assert gm("install").returncode == 0
    commit(repo, "LEARNED: a.py parses the header first", "a.py")
    commit(repo, "LEARNED: b.py and c.py share one cache", "b.py", "c.py")
    commit(repo, "LEARNED: d.py stays put", "d.py")
    ids = {}
    for entry in entries(repo):
        ids["+".join(entry["origin"]["paths"])] = entry["id"]
    return ids


def test_checkout_flags_stale_and_needs_review_and_clears_them(git_repo: Path, gm) -> None:
    ids = _anchored_repo(git_repo, gm)
    git("checkout", "-q", "-b", "cleanup", cwd=git_repo)
    git("rm", "-q", "a.py", "b.py", cwd=git_repo)
    git("commit", "-q", "-m", "remove a and b", cwd=git_repo)
    git("checkout", "-q", "main", cwd=git_repo)
    result = _git_env("checkout", "-q", "cleanup", cwd=git_repo, env=SYNC)
    assert result.returncode == 0, result.stderr
    flags = local_flags(git_repo / ".git")
    assert flags[ids["a.py"]][0] == "stale" and "a.py" in flags[ids["a.py"]][1]
    assert flags[ids["b.py+c.py"]][0] == "needs_review" and "1 of 2" in flags[ids["b.py+c.py"]][1]
    assert ids["d.py"] not in flags
    rules = [a["rule"] for a in audit_items(git_repo) if a["source"] == "post-checkout"]
    assert sorted(rules) == ["anchor-needs-review", "anchor-stale"]
    # Flags are local: the memory branch holds nothing about them.
    listed = git("ls-tree", "-r", "--name-only", "git-memory", cwd=git_repo)
    assert "flag" not in listed and len(listed.split()) == 5  # 3 entries, README, .gitattributes
    _git_env("checkout", "-q", "main", cwd=git_repo, env=SYNC)
    assert local_flags(git_repo / ".git") == {}


def test_checkout_returns_at_once_and_flags_in_the_background(git_repo: Path, gm) -> None:
    ids = _anchored_repo(git_repo, gm)
    git("checkout", "-q", "-b", "gone", cwd=git_repo)
    git("rm", "-q", "d.py", cwd=git_repo)
    git("commit", "-q", "-m", "drop d", cwd=git_repo)
    git("checkout", "-q", "main", cwd=git_repo)
    git("checkout", "-q", "gone", cwd=git_repo)  # no SYNC: the shim detaches the work
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline:
        if local_flags(git_repo / ".git").get(ids["d.py"], ("",))[0] == "stale":
            break
        time.sleep(0.1)
    assert local_flags(git_repo / ".git")[ids["d.py"]][0] == "stale"


def test_merge_that_deletes_an_anchor_flags_it(git_repo: Path, gm) -> None:
    ids = _anchored_repo(git_repo, gm)
    git("checkout", "-q", "-b", "topic", cwd=git_repo)
    git("rm", "-q", "a.py", cwd=git_repo)
    git("commit", "-q", "-m", "drop a", cwd=git_repo)
    _git_env("checkout", "-q", "main", cwd=git_repo, env=SYNC)
    result = _git_env("merge", "-q", "--no-edit", "topic", cwd=git_repo, env=SYNC)
    assert result.returncode == 0, result.stderr
    assert local_flags(git_repo / ".git")[ids["a.py"]][0] == "stale"


def test_a_burst_of_checkouts_runs_one_check_and_one_waiter(git_repo: Path, gm) -> None:
    import fcntl

    ids = _anchored_repo(git_repo, gm)
    git("rm", "-q", "d.py", cwd=git_repo)
    git("commit", "-q", "-m", "drop d", cwd=git_repo)
    memory_dir = git_repo / ".git" / "git-memory"
    with open(memory_dir / "anchors.wait.lock", "a+") as waiter:
        fcntl.flock(waiter, fcntl.LOCK_EX)  # another check is already waiting its turn
        result = gm("hook", "post-checkout", "0" * 40, head(git_repo), "1")
        assert result.returncode == 0
        assert ids["d.py"] not in local_flags(git_repo / ".git")  # left it to the waiter
    assert gm("hook", "post-checkout", "0" * 40, head(git_repo), "1").returncode == 0
    assert local_flags(git_repo / ".git")[ids["d.py"]][0] == "stale"


def test_recall_ranks_a_stale_entry_below_a_live_one(git_repo: Path, gm) -> None:
    assert gm("install").returncode == 0
    commit(git_repo, "LEARNED: the parser cache must be flushed on reload", "parser.py")
    commit(git_repo, "LEARNED: the parser cache must be flushed on reload of config", "config.py")
    stale_id = next(e["id"] for e in entries(git_repo) if e["origin"]["paths"] == ["parser.py"])
    git("checkout", "-q", "-b", "cleanup", cwd=git_repo)
    git("rm", "-q", "parser.py", cwd=git_repo)
    git("commit", "-q", "-m", "drop parser", cwd=git_repo)
    _git_env("checkout", "-q", "main", cwd=git_repo, env=SYNC)
    _git_env("checkout", "-q", "cleanup", cwd=git_repo, env=SYNC)
    assert local_flags(git_repo / ".git")[stale_id][0] == "stale"
    ranked = json.loads(out(gm("recall", "parser cache flushed reload", "--json")))
    order = [hit["id"] for hit in ranked]
    assert order.index(stale_id) == len(order) - 1


# -- audit ---------------------------------------------------------------------------------

def test_audit_shows_every_action_with_its_rule(git_repo: Path, gm) -> None:
    assert gm("add", "LEARNED: tidy\u200b text\u202e here").returncode == 0
    assert gm("add", f"FACT: {fake_aws_key()}").returncode == 1
    text = out(gm("audit"))
    assert "invisible-characters removed" in text and "1 zero-width, 1 bidi" in text
    assert "aws-access-key-id refused" in text and fake_aws_key() not in text
    items = json.loads(out(gm("audit", "--json", "--rule", "aws-access-key-id")))
    assert [i["rule"] for i in items] == ["aws-access-key-id"]
    assert len(json.loads(out(gm("audit", "--json", "-n", "1")))) == 1


def test_audit_empty(git_repo: Path, gm) -> None:
    result = gm("audit")
    assert result.returncode == 0 and "empty" in err(result)
    assert json.loads(out(gm("audit", "--json"))) == []


def test_anchors_with_spaces_and_non_ascii_names_go_stale(git_repo: Path, gm) -> None:
    assert gm("install").returncode == 0
    names = ["docs/release notes.md", "src/café/naïve.py", "設定/アプリ.toml"]
    for name in names:
        commit(git_repo, f"LEARNED: {name} holds the details", name)
    commit(git_repo, "LEARNED: keep.py stays", "keep.py")
    ids = {e["origin"]["paths"][0]: e["id"] for e in entries(git_repo)}
    assert sorted(ids) == sorted([*names, "keep.py"])  # captured with their real names
    git("checkout", "-q", "-b", "gone", cwd=git_repo)
    git("rm", "-q", *names, cwd=git_repo)
    git("commit", "-q", "-m", "drop them", cwd=git_repo)
    git("checkout", "-q", "main", cwd=git_repo)
    assert _git_env("checkout", "-q", "gone", cwd=git_repo, env=SYNC).returncode == 0
    flags = local_flags(git_repo / ".git")
    for name in names:
        assert flags[ids[name]][0] == "stale" and name in flags[ids[name]][1], name
    assert ids["keep.py"] not in flags
    _git_env("checkout", "-q", "main", cwd=git_repo, env=SYNC)
    assert local_flags(git_repo / ".git") == {}

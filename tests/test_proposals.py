"""Review of new knowledge like code: `add --propose`, agent proposals, `diff` with the
old and new texts, applying a proposal branch or merging it with plain git, and a stale
proposal's duplicate caught by `doctor` and merged by the next `curate`. Real git."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from conftest import err, git, make_repo, out, tip

from git_memory.commands.mcp_tools import Tools
from git_memory.errors import BadInput
from git_memory.store.locate import discover

OLD = "FACT: the api runs on port 8080"
NEW = "FACT: the api listens on port 9090 since the move to the new cluster"
PROPOSALS = "refs/heads/git-memory-proposals/"


def add(gm, *args: str, cwd: Path | None = None) -> str:  # type: ignore[no-untyped-def]
    result = gm("add", *args, cwd=cwd)
    assert result.returncode == 0, err(result)
    return out(result).strip()


def proposal_refs(repo: Path) -> list[str]:
    return git("for-each-ref", "--format=%(refname)", PROPOSALS, cwd=repo).split()


def listing(gm, cwd: Path) -> list[dict]:  # type: ignore[no-untyped-def]
    result = gm("list", "--all", "--json", cwd=cwd)
    assert result.returncode == 0, err(result)
    return sorted(json.loads(out(result)), key=lambda e: e["id"])


def merge_plainly(repo: Path, branch: str) -> None:
    """What a hosting service's merge button does: git merge in a checkout of the branch."""
    checkout = repo.parent / f"{repo.name}-memory"
    git("worktree", "add", "-q", str(checkout), "git-memory", cwd=repo)
    git("merge", "-q", "--no-edit", branch, cwd=checkout)


def test_add_propose_writes_the_proposal_branch_and_appends_to_it(git_repo: Path, gm) -> None:
    old = add(gm, OLD)
    memory = tip(git_repo)
    first = add(gm, "--propose", "ports", "--supersedes", old[-8:], "--reason", "port moved", NEW)
    second = add(gm, "--propose", "ports", "LEARNED: the load balancer drains for 30 seconds")
    assert tip(git_repo) == memory  # the memory branch is untouched
    assert proposal_refs(git_repo) == [PROPOSALS + "ports"]
    log = git("log", "--format=%H %P%n%B", f"git-memory..{PROPOSALS}ports", cwd=git_repo)
    assert log.count("Proposal-Branch: ports") == 2  # two commits, one on the other
    assert f"Supersedes: {old} (by {first})" in log
    assert git("merge-base", "git-memory", f"{PROPOSALS}ports", cwd=git_repo).strip() == memory
    files = git("diff", "--name-only", f"git-memory...{PROPOSALS}ports", cwd=git_repo).split()
    assert len(files) == 3 and any(first[-8:].lower() in f for f in files)
    assert any(second[-8:].lower() in f for f in files)
    assert json.loads(out(gm("recall", "load balancer drains", "--json"))) == []
    # Text already on the memory, or already proposed, is not proposed again.
    before = git("rev-parse", f"{PROPOSALS}ports", cwd=git_repo)
    again = gm("add", "--propose", "ports", NEW)
    assert again.returncode == 0 and out(again).strip() == first
    assert "nothing proposed" in err(again)
    known = gm("add", "--propose", "ports", OLD)
    assert out(known).strip() == old and "on the memory branch" in err(known)
    assert git("rev-parse", f"{PROPOSALS}ports", cwd=git_repo) == before


@pytest.fixture
def with_old(shared_repo, gm) -> Path:  # type: ignore[no-untyped-def]
    """A repository whose memory holds OLD: added once per worker, copied per test."""
    return shared_repo("proposals-with-old", lambda repo: add(gm, OLD))


@pytest.mark.parametrize("name", ["", "a..b", "has space", "x.lock", "-x", "a/", "tilde~1"])
def test_a_bad_proposal_name_is_one_line_and_writes_nothing(with_old: Path, gm, name: str) -> None:
    git_repo = with_old
    memory = tip(git_repo)
    result = gm("add", "--propose", name, NEW)
    assert result.returncode == 1
    lines = err(result).strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: ") and "proposal name" in lines[0]
    assert tip(git_repo) == memory and proposal_refs(git_repo) == []
    applied = gm("curate", "--apply", "--yes", "--proposal", f"git-memory-proposals/{name}")
    assert applied.returncode == 1 and tip(git_repo) == memory


def test_options_that_only_go_with_propose_are_refused(git_repo: Path, gm) -> None:
    old = add(gm, OLD)
    memory = tip(git_repo)
    for args in (("--supersedes", old, NEW), ("--propose", "p", "--supersedes", old, NEW),
                 ("--propose", "p", "--reason", "why", NEW),
                 ("--propose", "p", "--supersedes", "nosuchid", "--reason", "r", NEW)):
        result = gm("add", *args)
        assert result.returncode in (1, 2), args
        assert len(err(result).strip().splitlines()) == 1, (args, err(result))
    assert tip(git_repo) == memory and proposal_refs(git_repo) == []


def test_agent_writes_in_propose_mode_go_to_the_named_proposal(git_repo: Path, gm) -> None:
    add(gm, OLD)
    git("config", "memory.agentWrites", "propose", cwd=git_repo)
    memory = tip(git_repo)
    tools = Tools(discover())
    try:
        one = tools.add("DECISION: agents propose, people merge", proposal="agent-review")
        two = tools.propose("PATTERN: one writer per ref", proposal="agent-review")
        own = tools.add("LEARNED: proposals are branches")
        again = tools.add("DECISION: agents propose, people merge", proposal="agent-review")
        with pytest.raises(BadInput, match="not a valid proposal name"):
            tools.add("LEARNED: never written", proposal="bad..name")
    finally:
        tools.close()
    assert one["ref"] == two["ref"] == PROPOSALS + "agent-review"
    assert own["ref"].startswith(PROPOSALS + "agent-")  # a branch of its own by default
    assert again["duplicate_of"] == one["id"]
    assert tip(git_repo) == memory
    assert sorted(proposal_refs(git_repo)) == sorted([PROPOSALS + "agent-review", own["ref"]])
    log = git("log", "-p", f"git-memory..{PROPOSALS}agent-review", cwd=git_repo)
    assert "agents propose, people merge" in log and "one writer per ref" in log
    assert "source: agent" in log and "never written" not in log


def test_a_proposal_renders_with_both_texts_and_merges_plainly_as_it_applies(
    tmp_path: Path, gm
) -> None:
    repo = make_repo(tmp_path / "repo")
    old = add(gm, OLD, cwd=repo)
    new = add(gm, "--propose", "ports", "--supersedes", old, "--reason", "port moved", NEW,
              cwd=repo)
    other = add(gm, "LEARNED: the memory moved on meanwhile", cwd=repo)
    spec = "git-memory..git-memory-proposals/ports"

    narrow = out(gm("diff", spec, cwd=repo))
    assert "+2 -0 records" in narrow
    assert f"supersede {old[-8:].lower()} by {new[-8:].lower()} (port moved)" in narrow
    assert f"- old {old[-8:].lower()} FACT" in narrow and "- the api runs on port 8080" in narrow
    assert f"+ new {new[-8:].lower()} FACT" in narrow
    assert "+ the api listens on port 9090 since the move to the new cluster" in narrow
    wide = out(gm("diff", spec, cwd=repo, env={"COLUMNS": "160"}))
    [row] = [line for line in wide.splitlines() if "│" in line and "8080" in line]
    assert row.index("the api runs on port 8080") < row.index("│") < row.index("9090")
    data = json.loads(out(gm("diff", spec, "--json", cwd=repo)))
    by_kind = {r["kind"]: r for r in data["added"]}
    assert by_kind["supersede"]["fields"]["target"] == old  # ids kept ...
    assert by_kind["supersede"]["old"] == [{"id": old, "type": "fact",
                                            "content": OLD.split(": ", 1)[1]}]  # ... texts added
    assert by_kind["supersede"]["new"][0]["content"] == NEW.split(": ", 1)[1]
    assert by_kind["entry"]["old"] == [] and by_kind["entry"]["duplicate_of"] is None

    twin = tmp_path / "twin"
    shutil.copytree(repo, twin, symlinks=True)
    merge_plainly(repo, "git-memory-proposals/ports")
    applied = gm("curate", "--apply", "--yes", "--proposal", "git-memory-proposals/ports",
                 cwd=twin)
    assert applied.returncode == 0, err(applied)
    assert "2 records" in out(applied)
    merged, through_us = listing(gm, repo), listing(gm, twin)
    assert merged == through_us
    assert {e["id"]: e["status"] for e in merged} == {
        old: "superseded", new: "active", other: "active"}
    shown = [json.loads(out(gm("show", old, "--json", cwd=where))) for where in (repo, twin)]
    assert shown[0] == shown[1] and shown[0]["current"] == [new]
    again = gm("curate", "--apply", "--yes", "--proposal", "git-memory-proposals/ports", cwd=twin)
    assert again.returncode == 1 and "nothing applied" in err(again)


def test_a_merge_proposal_shows_its_sources_next_to_the_new_text(git_repo: Path, gm) -> None:
    a = add(gm, "LEARNED: OAuth redirect URI must match exactly, trailing slash included")
    b = add(gm, "LEARNED: The OAuth redirect URI has to match exactly, including the trailing"
                " slash")
    assert gm("curate", "--propose", "oauth").returncode == 0
    data = json.loads(out(gm("diff", "git-memory..git-memory-proposals/oauth", "--json")))
    [merged] = data["added"]
    assert [t["id"] for t in merged["old"]] == [a, b]
    assert all("redirect URI" in t["content"] for t in merged["old"])
    assert merged["new"][0]["id"] == merged["id"]
    log = git("log", "-1", "--format=%B", "git-memory-proposals/oauth", cwd=git_repo)
    assert "Proposal-Branch: oauth" in log


def test_a_stale_proposal_merged_plainly_is_caught_and_curated(tmp_path: Path, gm) -> None:
    repo = make_repo(tmp_path / "repo")
    old = add(gm, OLD, cwd=repo)
    proposed = add(gm, "--propose", "stale", "--supersedes", old, "--reason", "moved", NEW,
                   cwd=repo)
    meanwhile = add(gm, NEW, cwd=repo)  # the memory learned the same thing directly
    assert meanwhile != proposed
    shown = out(gm("diff", "git-memory..git-memory-proposals/stale", cwd=repo))
    assert f"already holds this text as {meanwhile[-8:].lower()}" in shown
    twin = tmp_path / "twin"
    shutil.copytree(repo, twin, symlinks=True)
    assert gm("doctor", cwd=repo).returncode == 0

    merge_plainly(repo, "git-memory-proposals/stale")
    doctor = gm("doctor", cwd=repo)
    assert doctor.returncode == 1
    [line] = [x for x in out(doctor).splitlines() if x.startswith("dup ")]
    assert proposed in line and meanwhile in line and "from proposal stale" in line
    report = json.loads(out(gm("doctor", "--json", cwd=repo)))
    [group] = report["duplicate_texts"]
    assert group["proposals"] == ["stale"]
    assert {e["id"]: e["merge"] for e in group["entries"]} == {proposed: True, meanwhile: False}

    dry = json.loads(out(gm("curate", "--dry-run", "--json", cwd=repo)))
    [change] = dry["changes"]
    assert change["action"] == "duplicate" and sorted(change["ids"]) == sorted([proposed, meanwhile])
    applied = gm("curate", "--apply", "--yes", "--proposal", dry["proposal"], cwd=repo)
    assert applied.returncode == 0, err(applied)
    assert gm("doctor", cwd=repo).returncode == 0
    live = [e for e in listing(gm, repo) if e["status"] != "superseded"]
    assert [e["content"] for e in live] == [NEW.split(": ", 1)[1]]

    # Applied through our own command instead, the duplicate never lands: the proposal's
    # entry is dropped and its supersede points at the entry the memory already had.
    result = gm("curate", "--apply", "--yes", "--json", "--proposal",
                "git-memory-proposals/stale", cwd=twin)
    assert result.returncode == 0, err(result)
    done = json.loads(out(result))
    assert done["dropped"] == [{"id": proposed, "duplicate_of": meanwhile}]
    assert gm("doctor", cwd=twin).returncode == 0
    statuses = {e["id"]: e["status"] for e in listing(gm, twin)}
    assert statuses == {old: "superseded", meanwhile: "active"}

"""`git memory curate`: candidates, proposal hash, apply, hooks, proposal branches."""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path

from conftest import err, git, make_repo, out, tip

from git_memory.curation.in_git_hook import running_hook
from git_memory.index.db import open_index
from git_memory.index.rank.search import search
from git_memory.store.locate import discover

NEAR_A = "LEARNED: OAuth redirect URI must match exactly, trailing slash included"
NEAR_B = "LEARNED: The OAuth redirect URI has to match exactly, including the trailing slash"


def add(gm, text: str, cwd: Path | None = None) -> str:  # type: ignore[no-untyped-def]
    result = gm("add", text, cwd=cwd)
    assert result.returncode == 0, err(result)
    return out(result).strip()


def dry(gm, cwd: Path | None = None) -> dict:  # type: ignore[no-untyped-def]
    result = gm("curate", "--dry-run", "--json", cwd=cwd)
    assert result.returncode == 0, err(result)
    return json.loads(out(result))


def view(gm, cwd: Path | None = None) -> list[tuple]:  # type: ignore[no-untyped-def]
    entries = json.loads(out(gm("list", "--json", "--all", cwd=cwd)))
    return sorted((e["id"], e["status"], e["content"], e["confidence"], tuple(e["merged_from"]))
                  for e in entries)


def test_near_duplicates_are_merged_and_show_leads_to_the_canonical_entry(
    git_repo: Path, gm
) -> None:
    a, b = add(gm, NEAR_A), add(gm, NEAR_B)
    other = add(gm, "FACT: deploys run on fridays")
    text = out(gm("curate", "--dry-run"))
    assert "near duplicate" in text and "similarity 0.89" in text
    assert "shared terms:" in text and "oauth" in text and "redirect" in text
    proposal = dry(gm)
    [change] = proposal["changes"]
    assert change["action"] == "near_duplicate" and change["ids"] == [a, b]
    assert change["score"] >= 0.6 and "slash" in change["shared_terms"]
    [record] = change["records"]
    assert f'merged_from: ["{a}", "{b}"]' in record["text"]  # the exact file it will write
    assert proposal["proposal"] in text
    before = tip(git_repo)
    applied = gm("curate", "--apply", "--proposal", proposal["proposal"], "--yes")
    assert applied.returncode == 0, err(applied)
    assert tip(git_repo) != before
    written = git("show", f"git-memory:{record['path']}", cwd=git_repo)
    assert written == record["text"]  # byte for byte what the dry run showed
    entries = json.loads(out(gm("list", "--json")))
    assert sorted(e["id"] for e in entries) == sorted([record["id"], other])
    canonical = next(e for e in entries if e["id"] == record["id"])
    assert canonical["status"] == "canonical" and canonical["merged_from"] == [a, b]
    shown = json.loads(out(gm("show", a[-8:], "--json")))
    assert shown["status"] == "superseded" and shown["current"] == [record["id"]]
    assert f"git memory show {record['id'][-8:].lower()}" in out(gm("show", a))
    index = open_index(discover())  # what recall ranks: the canonical entry, once
    try:
        hits = [h.row["id"] for h in search(index, "oauth redirect uri trailing slash")]
    finally:
        index.close()
    assert hits == [record["id"]]
    recalled = json.loads(out(gm("recall", "--json", "oauth redirect uri trailing slash")))
    assert [h["id"] for h in recalled] == [record["id"]]  # the command people use, too
    log = git("log", "-1", "--format=%B", "git-memory", cwd=git_repo)
    assert f"Merged-From: {a}, {b}" in log and "Review-Reason: curate: near duplicates" in log
    assert dry(gm)["changes"] == []  # nothing left to curate


def test_proposal_hash_is_stable_and_refused_after_the_memory_changed(
    git_repo: Path, gm
) -> None:
    add(gm, NEAR_A)
    add(gm, NEAR_B)
    first, again = dry(gm), dry(gm)
    assert first["proposal"] == again["proposal"]
    assert first["changes"] == again["changes"]
    add(gm, "FACT: an unrelated entry arrives in between")
    moved = tip(git_repo)
    stale = gm("curate", "--apply", "--proposal", first["proposal"], "--yes")
    assert stale.returncode == 1
    assert err(stale).startswith(f"error: proposal {first['proposal']} no longer matches")
    assert "changed since it was reviewed" in err(stale)
    assert tip(git_repo) == moved
    fresh = dry(gm)
    assert fresh["proposal"] != first["proposal"]
    ok = gm("curate", "--apply", "--proposal", fresh["proposal"][:10], "--yes")
    assert ok.returncode == 0, err(ok)


def test_apply_asks_first_and_needs_a_hash(git_repo: Path, gm) -> None:
    add(gm, NEAR_A)
    add(gm, NEAR_B)
    digest = dry(gm)["proposal"]
    before = tip(git_repo)
    assert gm("curate", "--apply", "--yes").returncode == 2
    assert gm("curate", "--proposal", digest).returncode == 2
    assert gm("curate", "--apply", "--propose", "x", "--proposal", digest).returncode == 2
    declined = gm("curate", "--apply", "--proposal", digest, input="n\n")
    assert declined.returncode == 1 and "nothing applied" in err(declined)
    assert gm("curate", "--apply", "--proposal", digest, input="").returncode == 1
    assert tip(git_repo) == before
    accepted = gm("curate", "--apply", "--proposal", digest, "--json", input="y\n")
    assert accepted.returncode == 0, err(accepted)
    assert json.loads(out(accepted))["applied"] is True  # the question went to stderr
    assert tip(git_repo) != before


def _hook(repo: Path, body: str) -> None:
    hook = repo / ".git" / "hooks" / "post-commit"
    hook.parent.mkdir(exist_ok=True)
    hook.write_text("#!/bin/sh\n" + body, encoding="utf-8")
    hook.chmod(hook.stat().st_mode | stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH)


def test_apply_from_an_installed_hook_is_refused(git_repo: Path, gm, tmp_path: Path) -> None:
    add(gm, NEAR_A)
    add(gm, NEAR_B)
    digest = dry(gm)["proposal"]
    before = tip(git_repo)
    report = tmp_path / "hook"
    for name, export in (("ours", "export GIT_MEMORY_HOOK=post-commit\n"), ("foreign", "")):
        _hook(git_repo, export + f"git memory curate --apply --yes --proposal {digest}"
              f" >{report}.{name}.out 2>{report}.{name}.err\necho $? >{report}.{name}.rc\n")
        (git_repo / f"{name}.txt").write_text(name)
        git("add", ".", cwd=git_repo)
        git("commit", "-q", "-m", f"work {name}", cwd=git_repo)
        assert Path(f"{report}.{name}.rc").read_text().strip() == "1", name
        message = Path(f"{report}.{name}.err").read_text()
        assert message.startswith("error: refused: curate --apply never runs from a git hook")
        assert "post-commit" in message
        assert tip(git_repo) == before, name
    os.unlink(git_repo / ".git" / "hooks" / "post-commit")
    assert gm("curate", "--apply", "--yes", "--proposal", digest).returncode == 0


def test_running_hook_reads_our_marker() -> None:
    assert running_hook({"GIT_MEMORY_HOOK": "post-merge"}) == "post-merge"
    assert running_hook({}) is None  # pytest is not a hook


def merge_memory(into: Path, other: Path, work: Path) -> None:
    """Plain git: fetch another clone's memory branch and merge it in a checkout."""
    git("fetch", "-q", str(other), "git-memory:refs/remotes/other/git-memory", cwd=into)
    if not work.exists():
        git("worktree", "add", "-q", str(work), "git-memory", cwd=into)
    git("merge", "-q", "--no-edit", "refs/remotes/other/git-memory", cwd=work)


def test_other_candidates_duplicates_stale_contradicted_low_confidence(
    tmp_path: Path, gm
) -> None:
    repo = make_repo(tmp_path / "repo")
    assert gm("init", cwd=repo).returncode == 0
    clone = tmp_path / "clone"
    git("clone", "-q", str(repo), str(clone), cwd=tmp_path)
    keep = add(gm, "FACT: Builds use Python 3.11", cwd=repo)
    dup = add(gm, "FACT: builds   use python 3.11!", cwd=clone)  # same text, elsewhere
    merge_memory(repo, clone, tmp_path / "checkout")
    stale = add(gm, "FACT: The linter config lives in setup.cfg", cwd=repo)
    doubted = add(gm, "FACT: Releases are tagged by the bot", cwd=repo)
    imported = tmp_path / "in.jsonl"  # imported text starts less trusted than typed text
    imported.write_text(json.dumps({"type": "learned", "content": "Cache keys hold the lockfile"}))
    assert gm("import", str(imported), cwd=repo).returncode == 0
    weak = next(e[0] for e in view(gm, cwd=repo) if e[2] == "Cache keys hold the lockfile")
    assert gm("contradict", doubted, "--reason", "humans tag now", cwd=repo).returncode == 0
    for n in range(2):  # as much for as against, but little confidence left
        assert gm("contradict", weak, "--reason", f"no {n}", cwd=repo).returncode == 0
        assert gm("reinforce", weak, cwd=repo).returncode == 0
    os.chdir(repo)
    index = open_index(discover())  # the checkout checks write local flags here
    index.conn.execute("INSERT INTO local_flags(id, flag, reason, checked) VALUES (?,?,?,?)",
                       (stale, "stale", "setup.cfg no longer exists", "2026-01-03T00:00:00Z"))
    index.close()
    changes = {c["action"]: c for c in dry(gm, cwd=repo)["changes"]}
    assert set(changes) == {"duplicate", "stale", "contradicted", "low_confidence"}
    assert changes["duplicate"]["ids"] == [keep, dup]
    assert f"target: {dup}" in changes["duplicate"]["records"][0]["text"]
    assert f"by: {keep}" in changes["duplicate"]["records"][0]["text"]
    assert changes["stale"]["ids"] == [stale]
    assert "setup.cfg no longer exists" in changes["stale"]["why"]
    assert changes["contradicted"]["ids"] == [doubted]
    assert changes["low_confidence"]["ids"] == [weak]
    assert "confidence 0.30" in changes["low_confidence"]["why"]
    digest = dry(gm, cwd=repo)["proposal"]
    assert gm("curate", "--apply", "--yes", "--proposal", digest, cwd=repo).returncode == 0
    after = {e[0]: e[1] for e in view(gm, cwd=repo)}
    assert after[dup] == "superseded" and after[keep] == "active"
    assert after[stale] == after[doubted] == after[weak] == "needs_review"


def test_a_proposal_branch_merged_with_plain_git_gives_the_same_view_as_apply(
    tmp_path: Path, gm
) -> None:
    repo = make_repo(tmp_path / "origin")
    add(gm, NEAR_A, cwd=repo)
    add(gm, NEAR_B, cwd=repo)
    add(gm, "FACT: the staging database is reset every night at two", cwd=repo)
    add(gm, "FACT: staging database gets reset every night around two", cwd=repo)
    twin = tmp_path / "twin"
    git("clone", "-q", str(repo), str(twin), cwd=tmp_path)
    digest = dry(gm, cwd=repo)["proposal"]
    proposed = gm("curate", "--propose", "tidy", cwd=repo)
    assert proposed.returncode == 0, err(proposed)
    assert "git-memory-proposals/tidy" in out(proposed)
    commits = git("log", "--format=%s", "git-memory..git-memory-proposals/tidy", cwd=repo)
    assert len(commits.splitlines()) == 2  # one commit per change, for review
    again = gm("curate", "--propose", "tidy", cwd=repo)
    assert again.returncode == 1 and "already exists" in err(again)
    rendered = out(gm("diff", "git-memory..git-memory-proposals/tidy", cwd=repo))
    assert rendered.count("merged from") == 2
    checkout = tmp_path / "memory-checkout"
    git("worktree", "add", "-q", str(checkout), "git-memory", cwd=repo)
    git("merge", "-q", "--no-edit", "git-memory-proposals/tidy", cwd=checkout)
    applied = gm("curate", "--apply", "--yes", "--proposal", digest, cwd=twin)
    assert applied.returncode == 0, err(applied)
    merged_view, applied_view = view(gm, cwd=repo), view(gm, cwd=twin)
    assert merged_view == applied_view
    assert sum(1 for e in merged_view if e[1] == "canonical") == 2
    assert sum(1 for e in merged_view if e[1] == "superseded") == 4
    assert dry(gm, cwd=repo)["changes"] == []


def test_a_proposal_branch_merges_after_the_memory_moved_on(tmp_path: Path, gm) -> None:
    repo = make_repo(tmp_path / "repo")
    a, b = add(gm, NEAR_A, cwd=repo), add(gm, NEAR_B, cwd=repo)
    assert gm("curate", "--propose", "late", cwd=repo).returncode == 0
    later = add(gm, "FACT: a newer entry written meanwhile", cwd=repo)
    checkout = tmp_path / "memory-checkout"
    git("worktree", "add", "-q", str(checkout), "git-memory", cwd=repo)
    git("merge", "-q", "--no-edit", "git-memory-proposals/late", cwd=checkout)
    statuses = {e[0]: e[1] for e in view(gm, cwd=repo)}
    assert statuses[a] == statuses[b] == "superseded" and statuses[later] == "active"
    shown = out(gm("diff", "git-memory~1..git-memory-proposals/late", cwd=repo))
    assert "since their merge base" in shown and "+1 -0 record" in shown
    assert list(statuses.values()).count("canonical") == 1


def test_diff_renders_records_readably(git_repo: Path, gm) -> None:
    a = add(gm, "FACT: the api runs on port 8080")
    start = tip(git_repo)
    b = add(gm, "FACT: the api runs on port 9090")
    assert gm("supersede", a, b, "--reason", "port moved").returncode == 0
    text = out(gm("diff", f"{start}..git-memory"))
    assert "+2 -0 records" in text
    assert "FACT: the api runs on port 9090" in text
    assert f"supersede {a[-8:].lower()} by {b[-8:].lower()} (port moved)" in text
    data = json.loads(out(gm("diff", start, "--json")))
    assert {r["kind"] for r in data["added"]} == {"entry", "supersede"}
    bad = gm("diff", "nosuchrev..git-memory")
    assert bad.returncode == 1 and "unknown revision" in err(bad)


def test_curate_with_no_memory_says_so(git_repo: Path, gm) -> None:
    result = gm("curate", "--dry-run")
    assert result.returncode == 1 and "no memory branch yet" in err(result)


def test_apply_from_a_core_hooks_path_hook_is_refused(git_repo: Path, gm, tmp_path: Path) -> None:
    add(gm, NEAR_A)
    add(gm, NEAR_B)
    digest = dry(gm)["proposal"]
    before = tip(git_repo)
    hooks = git_repo / ".githooks"
    hooks.mkdir()
    hook = hooks / "post-commit"
    rc = tmp_path / "rc"
    hook.write_text(f"#!/bin/sh\ngit memory curate --apply --yes --proposal {digest} 2>/dev/null\n"
                    f"echo $? >{rc}\n")
    hook.chmod(0o755)
    git("config", "core.hooksPath", ".githooks", cwd=git_repo)
    git("commit", "-q", "--allow-empty", "-m", "work", cwd=git_repo)
    assert rc.read_text().strip() == "1"
    assert tip(git_repo) == before

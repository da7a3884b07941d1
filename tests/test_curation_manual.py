"""Manual curation commands through real `git memory` processes on real repositories."""

from __future__ import annotations

import json
from pathlib import Path

from conftest import err, git, out, tip


def add(gm, text: str, *tags: str) -> str:  # type: ignore[no-untyped-def]
    args = ["add", text]
    for tag in tags:
        args += ["--tag", tag]
    result = gm(*args)
    assert result.returncode == 0, err(result)
    return out(result).strip()


def listing(gm, *extra: str) -> dict[str, dict]:  # type: ignore[no-untyped-def]
    result = gm("list", "--json", *extra)
    assert result.returncode == 0, err(result)
    return {e["id"]: e for e in json.loads(out(result))}


def test_supersede_hides_old_and_show_leads_both_ways(git_repo: Path, gm) -> None:
    old = add(gm, "DECISION: use tabs for indentation")
    new = add(gm, "DECISION: use four spaces for indentation")
    result = gm("supersede", old[-8:], new, "--reason", "team switched to spaces")
    assert result.returncode == 0, err(result)
    visible = listing(gm)
    assert new in visible and old not in visible
    assert listing(gm, "--all")[old]["status"] == "superseded"
    shown = out(gm("show", old[-8:]))
    assert "replaced by" in shown and new[-8:].lower() in shown
    assert f"git memory show {new[-8:].lower()}" in shown
    assert "team switched to spaces" in shown
    back = json.loads(out(gm("show", new, "--json")))
    assert back["replaces_chain"] == [old]
    assert json.loads(out(gm("show", old, "--json")))["current"] == [new]
    log = git("log", "-1", "--format=%B", "git-memory", cwd=git_repo)
    assert f"Supersedes: {old}" in log and "Review-Reason: team switched to spaces" in log
    assert "Review-Reason: team switched to spaces" in out(gm("log"))


def test_show_follows_a_chain_of_supersedes(git_repo: Path, gm) -> None:
    a, b, c = (add(gm, f"FACT: the build takes {n} minutes") for n in ("ten", "eight", "five"))
    assert gm("supersede", a, b, "--reason", "faster runners").returncode == 0
    assert gm("supersede", b, c, "--reason", "cache").returncode == 0
    data = json.loads(out(gm("show", a, "--json")))
    assert data["replaced_by_chain"] == [b, c]
    assert data["current"] == [c]
    assert json.loads(out(gm("show", c, "--json")))["replaces_chain"] == [b, a]


def test_reason_is_required_and_checked(git_repo: Path, gm) -> None:
    a = add(gm, "FACT: alpha one")
    b = add(gm, "FACT: beta two")
    before = tip(git_repo)
    missing = gm("supersede", a, b)
    assert missing.returncode == 2 and "--reason" in err(missing)
    for args in (["supersede", a, b], ["contradict", a], ["redact", a],
                 ["flag", a, "--status", "needs_review"],
                 ["merge", a, b, "--content", "alpha and beta"]):
        empty = gm(*args, "--reason", "   ")
        assert empty.returncode == 1, args
        assert err(empty).startswith("error: a reason is required")
        assert err(empty).count("\n") == 1
    assert tip(git_repo) == before


def test_bad_ids_and_cycles_write_nothing(git_repo: Path, gm) -> None:
    a = add(gm, "FACT: gamma three")
    b = add(gm, "FACT: delta four")
    assert gm("supersede", a, b, "--reason", "newer").returncode == 0
    before = tip(git_repo)
    for args in (["supersede", "nosuchid", b], ["supersede", b, a], ["supersede", a, a],
                 ["reinforce", "zzzzzzzz"], ["merge", a, a, "--content", "x"]):
        result = gm(*args, "--reason", "r")
        assert result.returncode == 1, (args, err(result))
        assert err(result).startswith("error: ")
    assert "cycle" in err(gm("supersede", b, a, "--reason", "r"))
    assert gm("flag", a, "--status", "bogus", "--reason", "r").returncode == 2
    assert gm("merge", a, "--content", "x", "--reason", "r").returncode == 2
    assert tip(git_repo) == before


def test_merge_makes_one_canonical_entry(git_repo: Path, gm) -> None:
    a = add(gm, "LEARNED: retry the flaky upload twice", "ci")
    b = add(gm, "PATTERN: flaky uploads pass on retry", "upload")
    result = gm("merge", a, b, "--content", "Retry flaky uploads up to twice",
                "--reason", "same lesson")
    assert result.returncode == 0, err(result)
    merged_id = out(result).strip()
    visible = listing(gm)
    assert list(visible) == [merged_id]
    merged = visible[merged_id]
    assert merged["status"] == "canonical"
    assert merged["type"] == "learned"  # from the first
    assert sorted(merged["tags"]) == ["ci", "upload"]
    assert merged["merged_from"] == [a, b]
    assert merged["fields"]["review_reason"] == "same lesson"
    log = git("log", "-1", "--format=%B", "git-memory", cwd=git_repo)
    assert f"Merged-From: {a}, {b}" in log and "Review-Reason: same lesson" in log


def test_flag_reinforce_contradict_change_status_and_confidence(git_repo: Path, gm) -> None:
    a = add(gm, "FACT: the staging database is reset nightly")
    start = listing(gm)[a]["confidence"]
    assert start == 0.8
    assert gm("reinforce", a).returncode == 0
    assert listing(gm)[a]["confidence"] == 0.85
    assert gm("contradict", a, "--reason", "it was weekly last month").returncode == 0
    assert listing(gm)[a]["confidence"] == 0.65
    assert gm("flag", a, "--status", "needs_review", "--reason", "check").returncode == 0
    entry = listing(gm)[a]
    assert entry["status"] == "needs_review" and entry["confidence"] == 0.55
    shown = json.loads(out(gm("show", a, "--json")))
    assert (shown["reinforcements"], shown["contradictions"]) == (1, 1)
    assert "confidence:  0.55" in out(gm("show", a))
    assert gm("flag", a, "--status", "active", "--reason", "checked").returncode == 0
    assert listing(gm)[a]["status"] == "active"
    assert gm("flag", a, "--status", "canonical", "--reason", "verified").returncode == 0
    assert listing(gm)[a]["status"] == "canonical"
    log = git("log", "--format=%B", "-4", "git-memory", cwd=git_repo)
    assert "Review-Reason: it was weekly last month" in log
    assert f"Status: {a} -> canonical" in log


def test_ids_by_key(git_repo: Path, gm, tmp_path: Path) -> None:
    data = tmp_path / "in.jsonl"
    data.write_text(json.dumps({"type": "fact", "content": "keyed entry", "key": "k-1"}) + "\n")
    assert gm("import", str(data)).returncode == 0
    assert gm("contradict", "k-1", "--reason", "wrong").returncode == 0
    assert json.loads(out(gm("show", "k-1", "--json")))["contradictions"] == 1


def test_merge_text_goes_through_the_sanitizer(git_repo: Path, gm) -> None:
    a = add(gm, "FACT: the deploy key lives in the vault")
    b = add(gm, "FACT: deploy keys are kept in the vault")
    before = tip(git_repo)
    fake = "AKIA" + "Q" * 16  # built at run time: never a real-looking secret in the repo
    result = gm("merge", a, b, "--content", f"deploy key {fake} is in the vault", "--reason", "r")
    assert result.returncode == 1 and "secret" in err(result) and fake not in err(result)
    assert tip(git_repo) == before

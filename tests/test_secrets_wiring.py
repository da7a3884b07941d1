"""Issue #11, every field and every path: one secret scan before anything is written.

Each test puts PATH_SECRET (tests/secrets_support.py) where one path would store it and
checks what that path does: refuse with the rule, the field and the line where a person
can fix the text (add, commit message, curation reasons), replace it by
`[REDACTED:rule]` and log it where nobody can (a transcript, a distillation, an incoming
record, a branch name), and in every case that no stored object, index row, audit line
or log of ours holds the value.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import err, git, make_repo, out, tip
from hooks_support import commit
from secrets_support import PATH_RULE, PATH_SECRET, assert_nowhere, local_files_holding
from agents_support import _lines, _with_two_learned, _write
from secrets_support import _hand_record, _record

SECRET = PATH_SECRET


def _entries(gm, *extra: str) -> list[dict]:
    result = gm("list", "--json", *extra)
    assert result.returncode == 0, err(result)
    return json.loads(out(result))


def _audit(repo: Path) -> str:
    return (repo / ".git" / "git-memory" / "audit.jsonl").read_text(encoding="utf-8")


# -- add -----------------------------------------------------------------------------------

def test_add_refuses_a_secret_in_the_text_or_a_tag_naming_field_and_line(git_repo, gm):
    before = tip(git_repo)
    result = gm("add", f"LEARNED: first line\nthe token is {SECRET}")
    assert result.returncode == 1
    assert f"content line 2 contains a secret ({PATH_RULE})" in err(result)
    result = gm("add", "--tag", SECRET, "LEARNED: a clean text")
    assert result.returncode == 1 and f"tags[0] contains a secret ({PATH_RULE})" in err(result)
    assert SECRET not in err(result) + out(result)
    assert tip(git_repo) == before  # nothing written
    assert '"refused"' in _audit(git_repo) and "sha256 " in _audit(git_repo)
    assert_nowhere(git_repo, SECRET)


def test_add_redact_secrets_keeps_the_entry_without_the_value(git_repo, gm):
    result = gm("add", "--redact-secrets", "--tag", SECRET, f"LEARNED: rotate {SECRET} monthly")
    assert result.returncode == 0, err(result)
    (entry,) = _entries(gm)
    assert entry["content"] == f"rotate [REDACTED:{PATH_RULE}] monthly"
    assert entry["tags"] == [f"[redacted:{PATH_RULE}]"]
    assert_nowhere(git_repo, SECRET)


# -- import: jsonl, lavra, markdown ------------------------------------------------------

def test_import_jsonl_scans_key_tags_and_type_fields_at_any_depth(git_repo, gm, tmp_path):
    lines = [
        {"type": "decision", "content": "clean one", "key": f"k-{SECRET}"},
        {"type": "decision", "content": "clean two", "tags": ["ok", SECRET]},
        {"type": "decision", "content": "clean three",
         "rationale": {"why": ["because", f"the token {SECRET} said so"]}},
        {"type": "decision", "content": "clean four", "origin": {"branch": f"x/{SECRET}"}},
        {"type": "decision", "content": "clean five"},
    ]
    path = tmp_path / "in.jsonl"
    path.write_text("".join(json.dumps(x) + "\n" for x in lines), encoding="utf-8")
    result = gm("import", "--json", "--skip-secrets", str(path))
    assert result.returncode == 0, err(result)
    summary = json.loads(out(result))
    reasons = {r["where"]: r["reason"] for r in summary["rejects"]}
    assert f"key contains a secret ({PATH_RULE})" in reasons["line 1"]
    assert f"tags[1] contains a secret ({PATH_RULE})" in reasons["line 2"]
    assert f"rationale.why[1] contains a secret ({PATH_RULE})" in reasons["line 3"]
    # The origin is metadata: replaced, never refused.
    assert summary["imported"] == 2 and summary["redacted"] == ["line 4"]
    four = next(e for e in _entries(gm) if e["content"] == "clean four")
    assert four["origin"]["branch"] == f"x/[REDACTED:{PATH_RULE}]"
    assert_nowhere(git_repo, SECRET)
    # Without --skip-secrets (the default) all are kept, every field cleaned.
    path.write_text("".join(json.dumps({**x, "content": x["content"] + " again"}) + "\n"
                            for x in lines[:3]), encoding="utf-8")
    summary = json.loads(out(gm("import", "--json", str(path))))
    assert summary["imported"] == 3 and summary["rejected"] == 0
    three = next(e for e in _entries(gm) if e["content"] == "clean three again")
    assert three["fields"]["rationale"]["why"][1] == f"the token [REDACTED:{PATH_RULE}] said so"
    assert_nowhere(git_repo, SECRET)


def test_import_lavra_and_markdown(git_repo, gm, tmp_path):
    lavra = tmp_path / "knowledge.jsonl"
    lavra.write_text(json.dumps(json.dumps({
        "key": "learned-x", "type": "learned", "content": "clean lavra text",
        "tags": ["learned", SECRET], "ts": 1771032072, "bead": "b-1"})) + "\n"
        + json.dumps({"key": "learned-y", "type": "learned", "content": "clean",
                      "bead": SECRET, "ts": 1771032072}) + "\n", encoding="utf-8")
    summary = json.loads(out(gm("import", "--format", "lavra", "--json", "--skip-secrets",
                                str(lavra))))
    assert summary["rejected"] == 2 and summary["imported"] == 0
    assert {r["reason"].split(" contains")[0] for r in summary["rejects"]} == {
        "refused: tags[0]", "refused: lavra_bead"}
    notes = tmp_path / "CLAUDE.md"
    notes.write_text(f"# Notes\n\n- LEARNED: keep it short\n\n## Deploy {SECRET}\n\n"
                     "- FACT: deploys run at noon\n- FACT: the token is {SECRET}\n"
                     .replace("{SECRET}", SECRET), encoding="utf-8")
    summary = json.loads(out(gm("import", "--format", "markdown", "--json", "--skip-secrets",
                                str(notes))))
    assert summary["imported"] == 1 and summary["rejected"] == 2
    assert all("contains a secret" in r["reason"] for r in summary["rejects"])
    assert_nowhere(git_repo, SECRET)


# -- commit messages: commit-msg refuses, post-commit captures ---------------------------

def test_commit_msg_refuses_naming_marker_line_and_rule(git_repo, gm):
    assert gm("install").returncode == 0
    result = commit(git_repo, f"Fix\n\nLEARNED: the deploy needs\n  the token {SECRET}\n",
                    "a.py", check=False)
    assert result.returncode != 0
    assert f"LEARNED: marker on line 4 of the message carries a secret ({PATH_RULE})" \
        in result.stderr
    assert SECRET not in result.stderr + result.stdout
    # The #tag of a marker is scanned too.
    result = commit(git_repo, f"Fix\n\nFACT: tagged #{SECRET}\n", "a.py", check=False)
    assert result.returncode != 0 and PATH_RULE in result.stderr
    assert tip(git_repo) is None
    assert_nowhere(git_repo, SECRET)


def test_post_commit_capture_on_a_branch_named_after_the_token(git_repo, gm):
    assert gm("install").returncode == 0
    name = f"feature/{SECRET}"
    assert subprocess.run(["git", "check-ref-format", "--branch", name]).returncode == 0
    git("checkout", "-q", "-b", name, cwd=git_repo)
    commit(git_repo, "Work\n\nLEARNED: the cache warms in two passes\n", "b.py")
    (entry,) = _entries(gm)
    assert entry["origin"]["branch"] == f"feature/[REDACTED:{PATH_RULE}]"
    # --no-verify skips commit-msg; the capture still refuses the marker.
    result = subprocess.run(["git", "commit", "-q", "--no-verify", "--allow-empty", "-m",
                             f"x\n\nLEARNED: token {SECRET}"], cwd=git_repo,
                            capture_output=True, text=True)
    assert result.returncode == 0 and "not captured" in result.stderr
    assert PATH_RULE in result.stderr and SECRET not in result.stderr
    assert len(_entries(gm)) == 1
    assert '"source": "commit"' in _audit(git_repo)
    # The code commit holds the message (git's, not ours); no memory object holds it.
    memory_objects = git("rev-list", "--objects", "git-memory", cwd=git_repo).split()
    for sha in memory_objects:
        if len(sha) == 40:
            assert SECRET not in git("cat-file", "-p", sha, cwd=git_repo)
    assert local_files_holding(git_repo, SECRET) == []


# -- curation reasons --------------------------------------------------------------------

@pytest.fixture
def two_clean(shared_repo, gm):
    """A repository with two clean entries and their ids: added once per worker (the ids
    kept in a file of the .git folder, which git ignores), copied for each test."""

    def add_two(repo: Path) -> None:
        ids = [out(gm("add", f"LEARNED: the {n} clean entry")).strip() for n in ("first", "second")]
        (repo / ".git" / "test-ids").write_text(" ".join(ids), encoding="utf-8")

    repo = shared_repo("secrets-two-clean", add_two)
    return repo, (repo / ".git" / "test-ids").read_text(encoding="utf-8").split()


@pytest.mark.parametrize("command", ["supersede", "merge", "flag", "contradict", "redact",
                                     "reinforce"])
def test_curation_reasons_with_a_secret_are_refused(two_clean, gm, command):
    git_repo, (first, second) = two_clean
    args = {
        "supersede": ["supersede", first, second],
        "merge": ["merge", first, second, "--content", "both entries, merged"],
        "flag": ["flag", first, "--status", "needs_review"],
        "contradict": ["contradict", first],
        "redact": ["redact", first],
        "reinforce": ["reinforce", first],
    }[command]
    before = tip(git_repo)
    result = gm(*args, "--reason", f"see {SECRET}")
    assert result.returncode == 1, out(result)
    assert f"--reason contains a secret ({PATH_RULE})" in err(result)
    assert SECRET not in err(result) + out(result)
    assert tip(git_repo) == before
    assert_nowhere(git_repo, SECRET)


def test_merge_content_with_a_secret_is_refused(git_repo, gm):
    first = out(gm("add", "LEARNED: the first clean entry")).strip()
    second = out(gm("add", "LEARNED: the second clean entry")).strip()
    result = gm("merge", first, second, "--content", f"merged {SECRET}", "--reason", "dup")
    assert result.returncode == 1 and "contains a secret" in err(result)
    assert_nowhere(git_repo, SECRET)


# -- handoff -------------------------------------------------------------------------------

def test_handoff_text_is_refused_and_a_token_branch_is_redacted(git_repo, gm):
    result = gm("handoff", f"next: use {SECRET}")
    assert result.returncode == 1 and f"contains a secret ({PATH_RULE})" in err(result)
    result = gm("handoff", "--branch", f"wip/{SECRET}", "finish the parser")
    assert result.returncode == 0, err(result)
    assert SECRET not in err(result)
    (entry,) = _entries(gm)
    assert entry["origin"]["branch"] == f"wip/[REDACTED:{PATH_RULE}]"
    assert SECRET not in git("log", "--format=%B", "git-memory", cwd=git_repo)
    assert gm("handoff", "--branch", f"wip/{SECRET}", "--clear").returncode == 0
    assert_nowhere(git_repo, SECRET)


# -- session capture and distillation -----------------------------------------------------

def _session_with_secrets(tmp_path: Path) -> Path:
    records = _lines(_with_two_learned(tmp_path))
    base = next(r for r in records if r.get("type") == "user")
    records.append({**base, "message": {"role": "user", "content":
                    f"LEARNED: the deploy token is {SECRET}\nkeep it safe"}})
    for record in records:
        if "gitBranch" in record:
            record["gitBranch"] = f"wip/{SECRET}"
        if "cwd" in record:
            record["cwd"] = f"/home/me/{SECRET}"
    return _write(tmp_path / "secret.jsonl", records)


def test_session_capture_redacts_text_branch_and_archive(git_repo, gm, tmp_path):
    result = gm("session", "import", str(_session_with_secrets(tmp_path)))
    assert result.returncode == 0, err(result)
    assert "3 with a secret replaced" in out(result)  # the branch and cwd of all three
    session = [e for e in _entries(gm) if e["source"] == "session"]
    assert len(session) == 3
    assert any(f"[REDACTED:{PATH_RULE}]" in e["content"] for e in session)
    assert all(e["origin"]["branch"] == f"wip/[REDACTED:{PATH_RULE}]" for e in session)
    names = git("ls-tree", "-r", "--name-only", "refs/memory/sessions", cwd=git_repo).split()
    text = git("show", f"refs/memory/sessions:{names[0]}", cwd=git_repo)
    assert f"- branch: wip/[REDACTED:{PATH_RULE}]" in text
    assert f"withheld: it contains a secret ({PATH_RULE})" in text
    assert '"source": "session"' in _audit(git_repo)
    assert_nowhere(git_repo, SECRET)


FAKE_DISTILL = r'''
import json, sys
sys.stdin.read()
secret = sys.argv[1] + sys.argv[2]
print(json.dumps({
    "decisions": [{"content": "Keep the deploy token " + secret + " out of the repo",
                   "rationale": "it was pasted as " + secret}],
    "learnings": ["Reviewers read dev-docs first"],
}))
'''


def test_distillation_output_is_redacted(git_repo, gm, tmp_path):
    script = tmp_path / "llm.py"
    script.write_text(FAKE_DISTILL, encoding="utf-8")
    # The fake command gets the token in two halves, so the config file never holds it.
    half = len(SECRET) // 2
    command = f"{sys.executable} {script} {SECRET[:half]} {SECRET[half:]}"
    for key, value in (("distillCommand", command), ("distillMinMessages", "2"),
                       ("distillMinUserChars", "10")):
        git("config", f"memory.{key}", value, cwd=git_repo)
    copy = _with_two_learned(tmp_path)
    task = {"session_id": "x", "transcript_path": str(copy), "cwd": str(git_repo)}
    queue = git_repo / ".git" / "git-memory" / "distill" / "queue"
    queue.mkdir(parents=True)
    (queue / "x.json").write_text(json.dumps(task), encoding="utf-8")
    result = gm("session", "worker")
    assert result.returncode == 0, err(result)
    distilled = [e for e in _entries(gm, "--all") if e["source"] == "distill"]
    assert len(distilled) == 2
    decision = next(e for e in distilled if e["type"] == "decision")
    assert decision["content"] == f"Keep the deploy token [REDACTED:{PATH_RULE}] out of the repo"
    assert decision["fields"]["rationale"] == f"it was pasted as [REDACTED:{PATH_RULE}]"
    assert '"source": "distill"' in _audit(git_repo)
    assert_nowhere(git_repo, SECRET)


# -- records written by hand: sync, pre-push, scan ---------------------------------------

def test_sync_redacts_an_incoming_record_holding_a_secret(git_repo, gm, tmp_path):
    remote = tmp_path / "remote.git"
    git("init", "-q", "--bare", str(remote), cwd=tmp_path)
    git("remote", "add", "origin", str(remote), cwd=git_repo)
    assert gm("add", "FACT: a clean entry first").returncode == 0
    assert gm("push").returncode == 0
    # Someone else's clone pushes a record whose type field holds the token.
    other = make_repo(tmp_path / "other", commit=False)
    git("fetch", "-q", str(remote), "git-memory:git-memory", cwd=other)
    dirty = _hand_record(other, _record("01INCOMING0000000000000000",
                                        f'rationale: {{"why": "{SECRET}"}}\n'),
                         "decision-incoming.md", tip(other))
    git("push", "-q", str(remote), f"{dirty}:refs/heads/git-memory", cwd=other)
    result = gm("sync")
    assert result.returncode == 0, err(result)
    assert "redacted what arrived holding a secret (1 field" in out(result)
    shown = [e for e in _entries(gm, "--all") if e["id"] == "01INCOMING0000000000000000"]
    assert shown and shown[0]["status"] == "redacted"
    audit = [json.loads(line) for line in _audit(git_repo).splitlines()]
    assert any(a["source"] == "sync" and a["action"] == "redacted" and a["rule"] == PATH_RULE
               and "rationale.why" in a["detail"] for a in audit)
    assert local_files_holding(git_repo, SECRET) == []  # index, audit log
    # The redaction travels: the next sync pushes it, so every clone hides the record.
    assert gm("sync").returncode == 0
    assert git("rev-parse", "git-memory", cwd=remote).strip() == tip(git_repo)
    # And the way out removes it from this clone's history.
    assert gm("purge", "01INCOMING0000000000000000", "--yes").returncode == 0
    assert SECRET not in git("log", "-p", "git-memory", cwd=git_repo)


def test_sync_seals_a_large_arrival_a_batch_at_a_time(git_repo, monkeypatch):
    """The first sync of a clone adopts the whole memory: its records are read and scanned
    a batch at a time (nothing holds them all), and a record whose redaction arrives with
    it is not redacted twice."""
    from git_memory.store.branch import MemoryBranch
    from git_memory.store.locate import discover
    from git_memory.sync import redact_incoming

    ids = [f"01BATCH{n:019d}" for n in range(5)]
    arrived = None
    for n, rid in enumerate(ids):
        arrived = _hand_record(git_repo, _record(rid, body=f"deploy token {SECRET}"),
                               f"decision-batch-{n}.md", arrived)
    redaction = _record("01BATCHREDACT0000000000000", f"target: {ids[0]}\n", body="",
                        kind="redact")
    arrived = _hand_record(git_repo, redaction, "redact-batch.md", arrived, folder="records")
    monkeypatch.setattr(redact_incoming, "READ_BATCH", 2)  # 6 files: 3 batches
    branch = MemoryBranch(discover(git_repo))
    found = redact_incoming.seal(branch, None, arrived, "origin")
    assert sorted({f.record for f in found}) == ids
    assert all(f.rule == PATH_RULE for f in found)
    written = git("log", "-1", "--format=%B", "git-memory", cwd=git_repo)
    assert "redact 4 incoming record(s)" in written
    targets = sorted(line.split(": ", 1)[1] for line in
                     git("grep", "-h", "^target:", "git-memory", "--", "records",
                         cwd=git_repo).splitlines())
    assert targets == ids[1:]  # the first one's redaction came with it
    assert SECRET not in _audit(git_repo)


def test_pre_push_way_out_works_as_printed(git_repo, gm, tmp_path):
    remote = tmp_path / "remote.git"
    git("init", "-q", "--bare", str(remote), cwd=tmp_path)
    git("remote", "add", "origin", str(remote), cwd=git_repo)
    assert gm("install").returncode == 0
    first = out(gm("add", "FACT: a clean entry first")).strip()
    git("push", "-q", "origin", "git-memory", cwd=git_repo)
    # A curation record whose reason holds the token, committed by hand (an old version,
    # or a careless script), with the reason in its Review-Reason trailer too.
    record = _record("01HANDREASON00000000000000",
                     f'target: {first}\nreview_reason: "see {SECRET}"\n', body="",
                     kind="contradict")
    dirty = _hand_record(git_repo, record, "contradict-x-handreas.md", tip(git_repo),
                         folder="records")
    git("update-ref", "refs/heads/git-memory", dirty, cwd=git_repo)
    assert gm("add", "FACT: a later clean entry").returncode == 0
    pushed = subprocess.run(["git", "push", "origin", "git-memory"], cwd=git_repo,
                            capture_output=True, text=True)
    assert pushed.returncode != 0 and "push refused" in pushed.stderr
    assert f"({PATH_RULE}) in records/" in pushed.stderr and "review_reason" in pushed.stderr
    assert SECRET not in pushed.stderr + pushed.stdout
    lines = pushed.stderr.splitlines()
    start = next(i for i, line in enumerate(lines) if "the way out" in line)
    commands = [line.strip() for line in lines[start + 1:] if line.startswith("  ")]
    assert commands and all(c.startswith("git memory redact") for c in commands)
    for command in commands:  # exactly as printed, through a shell
        ran = subprocess.run(command, shell=True, cwd=git_repo, capture_output=True, text=True)
        assert ran.returncode == 0, ran.stderr
    git("push", "-q", "origin", "git-memory", cwd=git_repo)
    assert git("rev-parse", "git-memory", cwd=remote).strip() == tip(git_repo)
    assert SECRET not in git("log", "-p", "git-memory", cwd=remote)
    assert [e["content"] for e in _entries(gm)] == ["a later clean entry",
                                                    "a clean entry first"]
    assert gm("scan").returncode == 0


def test_scan_names_record_and_field_and_exits_1(git_repo, gm):
    assert gm("add", "FACT: a clean entry first").returncode == 0
    clean = gm("scan")
    assert clean.returncode == 0 and "no secrets found" in err(clean)
    dirty = _hand_record(git_repo, _record("01SCANME000000000000000000", f"tags: [\"{SECRET}\"]\n"),
                         "decision-scan-me.md", tip(git_repo))
    git("update-ref", "refs/heads/git-memory", dirty, cwd=git_repo)
    result = gm("scan")
    assert result.returncode == 1
    assert "decision-scan-me.md (record 01SCANME000000000000000000): tags[0]: " + PATH_RULE \
        in out(result)
    assert SECRET not in out(result) + err(result)
    found = json.loads(out(gm("scan", "--json", "git-memory~1..git-memory")))
    assert [(f["record"], f["field"], f["rule"]) for f in found] == [
        ("01SCANME000000000000000000", "tags[0]", PATH_RULE)]
    assert json.loads(out(gm("scan", "--json", "git-memory~1"))) == []
    bad = gm("scan", "no-such-rev..git-memory")
    assert bad.returncode == 1 and "not a revision or range" in err(bad)
    assert local_files_holding(git_repo, SECRET) == []


# -- the audit log of what the cleaner drops ---------------------------------------------

def test_a_dropped_command_line_is_logged_by_shape_and_hash_never_its_text(git_repo, gm):
    # Whether or not a detector knows what the line holds (today's rules refuse an
    # `export HUBSPOT_TOKEN=...` line outright), a line dropped as command noise is
    # logged by its shape and a hash, never its text.
    value = "blue-" + "canary-7421-east"
    text = f"LEARNED: the CRM sync needs a label\nexport DEPLOY_LABEL={value}\n"
    result = gm("add", text)
    assert result.returncode == 0, err(result)
    (entry,) = _entries(gm)
    assert entry["content"] == "the CRM sync needs a label"
    audit = [json.loads(line) for line in _audit(git_repo).splitlines()]
    (dropped,) = [a for a in audit if a["rule"] == "command-noise"]
    assert dropped["detail"].startswith("line 2: sha256 ") and dropped["detail"].endswith(
        "chars: export …")
    assert_nowhere(git_repo, value)
    assert "DEPLOY_LABEL" not in _audit(git_repo)

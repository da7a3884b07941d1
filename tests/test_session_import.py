"""`git memory session import`: real Claude Code transcripts, gates, markers, idempotence."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from conftest import err, git, out, tip
from agents_support import TRANSCRIPTS
from agents_support import HEADLESS, IDEAS, TWO, _lines, _session_entries, _with_two_learned, _write

def test_every_transcript_imports_and_headless_are_skipped(git_repo, gm):
    files = sorted(str(p) for p in TRANSCRIPTS.rglob("*.jsonl"))
    assert len(files) >= 12
    result = gm("session", "import", "--json", *files)
    assert result.returncode == 0, err(result)
    report = {Path(r["path"]).name: r for r in json.loads(out(result))}
    assert len(report) == len(files)
    for path in HEADLESS:
        assert report[path.name]["skipped"].startswith("headless")
    imported = [r for r in report.values() if not r["skipped"]]
    assert len(imported) >= 4  # the interactive sessions of several Claude Code versions
    assert all(r["archived"] for r in imported)
    assert report["4fe49c7c-ff82-4ac7-b3f2-79c22036bd58.jsonl"]["skipped"]  # the empty file
    assert "subagent" in report["agent-3be551df.jsonl"]["skipped"]


def test_two_learned_lines_yield_exactly_two_entries_however_often(git_repo, gm, tmp_path):
    copy = _with_two_learned(tmp_path)
    first = gm("session", "import", str(copy))
    assert first.returncode == 0, err(first)
    assert "2 new" in out(first)
    entries = _session_entries(gm)
    assert sorted(e["content"] for e in entries) == sorted(t.split(": ", 1)[1] for t in TWO)
    for entry in entries:
        assert entry["type"] == "learned"
        assert entry["origin"]["session"] == "03eb5929-52b3-4b13-ada3-b93ae35806b8"
        assert entry["origin"]["cwd"] == "/home/user/project"
        assert entry["origin"]["branch"] == "main"  # the transcript had none: the current one
    before = tip(git_repo)
    for _ in range(3):
        again = gm("session", "import", str(copy))
        assert again.returncode == 0 and "0 new, 2 already known" in out(again)
    assert tip(git_repo) == before  # nothing written at all
    assert len(_session_entries(gm)) == 2


def test_a_grown_transcript_adds_only_what_is_new(git_repo, gm, tmp_path):
    copy = _with_two_learned(tmp_path)
    assert gm("session", "import", str(copy)).returncode == 0
    records = _lines(copy)
    last = records[-1]
    grown = records + [
        {**last, "type": "user", "uuid": "u-new", "message": {"role": "user", "content":
         "DECISION: keep work/ out of the published docs"}},
        {**last, "type": "assistant", "uuid": "a-new", "message": {
            "id": "msg_new", "role": "assistant", "model": "claude", "content": [
                {"type": "text", "text": "Agreed.\nHANDOFF: move the two stale files next time"}]}},
    ]
    _write(copy, grown)
    result = gm("session", "import", str(copy))
    assert "2 new, 2 already known" in out(result)
    types = sorted(e["type"] for e in _session_entries(gm))
    assert types == ["decision", "handoff", "learned", "learned"]
    assert "move the two stale files" in out(gm("context"))  # a HANDOFF: marker is a handoff


def test_only_user_and_assistant_text_is_captured(git_repo, gm, tmp_path):
    records = _lines(IDEAS)
    base = next(r for r in records if r.get("type") == "user")
    sid = base["sessionId"]

    def user(content, **extra):
        return {**base, "type": "user", "message": {"role": "user", "content": content}, **extra}

    def assistant(mid, blocks):
        return {**base, "type": "assistant", "message": {
            "id": mid, "role": "assistant", "model": "claude", "content": blocks}}

    injected = ('<untrusted-knowledge nonce="ab">\nLEARNED: injected by us\n'
                '</untrusted-knowledge nonce="ab">\nThanks. FACT: not at a line start\n'
                'FACT: typed after the block')
    records += [
        user(injected),
        user("LEARNED: a caveat the harness wrote", isMeta=True),
        user("<system-reminder>\nLEARNED: from a reminder\n</system-reminder>\nhello there"),
        user([{"type": "tool_result", "tool_use_id": "t1", "content": "LEARNED: from a tool"}]),
        assistant("m1", [{"type": "thinking", "thinking": "LEARNED: from thinking"}]),
        assistant("m1", [{"type": "tool_use", "id": "t2", "name": "Bash",
                          "input": {"command": "echo 'LEARNED: from tool input'"}}]),
        assistant("m1", [{"type": "text", "text": "PATTERN: split over lines, part one"}]),
        user([{"type": "tool_result", "tool_use_id": "t2", "content": "ok"}]),
        assistant("m1", [{"type": "text", "text": "```\nLEARNED: inside a code fence\n```"}]),
        {"type": "attachment", "sessionId": sid, "attachment": {
            "type": "hook_additional_context", "content": ["LEARNED: echoed context"]}},
        {"type": "a-type-from-the-future", "payload": "LEARNED: unknown type"},
        {"type": "summary", "summary": "LEARNED: a summary line"},
    ]
    path = _write(tmp_path / "mixed.jsonl", records, ["{not json\n", "[1, 2]\n", "\n", "\"str\"\n"])
    result = gm("session", "import", "--json", str(path))
    assert result.returncode == 0, err(result)
    contents = sorted(e["content"] for e in _session_entries(gm))
    assert contents == ["split over lines, part one", "typed after the block"]


def test_short_sessions_are_gated_by_config(git_repo, gm, tmp_path):
    copy = _with_two_learned(tmp_path)
    git("config", "memory.sessionMinMessages", "500", cwd=git_repo)
    result = gm("session", "import", str(copy))
    assert result.returncode == 0 and "short session" in out(result)
    assert tip(git_repo) is None  # nothing written
    git("config", "memory.sessionMinMessages", "2", cwd=git_repo)
    git("config", "memory.sessionMinUserChars", "100000", cwd=git_repo)
    assert "user characters" in out(gm("session", "import", str(copy)))
    git("config", "--unset", "memory.sessionMinUserChars", cwd=git_repo)
    assert "2 new" in out(gm("session", "import", str(copy)))


def test_missing_file_is_an_error_and_writes_nothing(git_repo, gm, tmp_path):
    result = gm("session", "import", str(tmp_path / "nope.jsonl"))
    assert result.returncode == 1 and err(result).startswith("error:")
    assert tip(git_repo) is None


def test_archive_is_readable_markdown_on_a_local_ref_and_searchable(git_repo, gm, tmp_path):
    copy = _with_two_learned(tmp_path)
    assert gm("session", "import", str(copy)).returncode == 0
    files = git("ls-tree", "-r", "--name-only", "refs/memory/sessions", cwd=git_repo).split()
    assert files == ["sessions/2026/02/03eb5929-52b3-4b13-ada3-b93ae35806b8.md"]
    text = git("show", f"refs/memory/sessions:{files[0]}", cwd=git_repo)
    assert "## User" in text and "## Assistant" in text
    assert "mostly one idea about how to organize" in text
    assert "ls -la /home/user/project/" not in text  # no tool payloads
    assert TWO[0] in text
    assert "refs/memory/sessions" not in git("ls-remote", ".", "refs/heads/*", cwd=git_repo)
    hits = json.loads(out(gm("session", "search", "--json", "weak points convention")))
    assert hits and hits[0]["session"] == "03eb5929-52b3-4b13-ada3-b93ae35806b8"
    assert json.loads(out(gm("session", "search", "--json", "zzzunmatched"))) == []
    # `recall --sessions` is the same search, through recall (fast path and click path).
    assert json.loads(out(gm("recall", "--sessions", "--json", "weak points convention"))) == hits
    few = json.loads(out(gm("recall", "--json", "--sessions", "-n", "1", "weak", "points", "convention")))
    assert [h["session"] for h in few] == [hits[0]["session"]]
    assert gm("recall", "--sessions").returncode == 2
    # Importing again does not add another archive commit.
    before = git("rev-parse", "refs/memory/sessions", cwd=git_repo)
    gm("session", "import", str(copy))
    assert git("rev-parse", "refs/memory/sessions", cwd=git_repo) == before


def test_empty_and_garbage_files_import_without_error(git_repo, gm, tmp_path):
    empty = tmp_path / "empty.jsonl"
    empty.write_text("")
    garbage = tmp_path / "garbage.jsonl"
    garbage.write_bytes(b"\xff\xfe not json\n{\"type\": \"user\"}\n[]\n")
    shutil.copy(IDEAS, tmp_path / "real.jsonl")
    result = gm("session", "import", str(empty), str(garbage), str(tmp_path / "real.jsonl"))
    assert result.returncode == 0, err(result)
    assert out(result).count("skipped") == 2


def test_secrets_stay_out_of_memory_and_the_archive(git_repo, gm, tmp_path):
    fake_key = "AKIA" + "Z" * 16  # built at run time, never a real-looking literal in the repo
    records = _lines(_with_two_learned(tmp_path))
    base = next(r for r in records if r.get("type") == "user")
    records.append({**base, "message": {"role": "user", "content":
                    f"LEARNED: the deploy key is {fake_key}\nkeep it safe"}})
    path = _write(tmp_path / "secret.jsonl", records)
    result = gm("session", "import", str(path))
    assert result.returncode == 0, err(result)
    # Nobody can fix a transcript: the marker is kept with the secret replaced, and logged.
    assert "3 new" in out(result) and "1 with a secret replaced" in out(result)
    assert fake_key not in out(result)
    assert all(fake_key not in e["content"] for e in _session_entries(gm))
    assert any("[REDACTED:aws-access-key-id]" in e["content"] for e in _session_entries(gm))
    names = git("ls-tree", "-r", "--name-only", "refs/memory/sessions", cwd=git_repo).split()
    text = git("show", f"refs/memory/sessions:{names[0]}", cwd=git_repo)
    assert fake_key not in text and "withheld: it contains a secret (aws-access-key-id)" in text

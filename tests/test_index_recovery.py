"""The index follows the branch whatever moved it, and a broken index file is never an error."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from conftest import err, git, make_repo, out
from git_memory.model import Record, new_id, utc_now
from git_memory.store.record_format import dump_record, record_path

INDEX = Path(".git") / "git-memory" / "index.sqlite"


def keys(gm, query: str, cwd: Path | None = None) -> list[str]:
    result = gm("recall", "--json", query, cwd=cwd)
    assert result.returncode == 0, err(result)
    assert err(result) == ""
    return [h["content"] for h in json.loads(out(result))]


@pytest.fixture
def two_entries(shared_repo, gm) -> Path:
    def fill(repo: Path) -> None:
        assert gm("add", "LEARNED: the staging database resets every night").returncode == 0
        assert gm("add", "DECISION: feature flags live in config/flags.yml").returncode == 0
        assert keys(gm, "staging database")  # builds the index

    return shared_repo("index-recovery-two-entries", fill)


@pytest.mark.parametrize("damage", ["delete", "truncate", "garbage", "empty"])
def test_broken_index_is_rebuilt(two_entries: Path, gm, damage: str) -> None:
    """A missing or empty file is just rebuilt; a damaged one is rebuilt with a note."""
    path = two_entries / INDEX
    if damage == "delete":
        path.unlink()
    elif damage == "truncate":
        data = path.read_bytes()
        path.write_bytes(data[: len(data) // 3])
    elif damage == "garbage":
        path.write_bytes(b"this is not a database\n" * 500)
    else:
        path.write_bytes(b"")
    result = gm("recall", "--json", "staging database")
    assert result.returncode == 0, err(result)
    assert [h["content"] for h in json.loads(out(result))] == [
        "the staging database resets every night"]
    if damage in ("truncate", "garbage"):
        assert err(result).startswith("note: the local index was damaged (")
        assert err(result).count("\n") == 1
    else:
        assert err(result) == ""
    assert keys(gm, "feature flags") == ["feature flags live in config/flags.yml"]


def _memory_worktree(repo: Path, where: Path) -> Path:
    git("worktree", "add", "-q", str(where), "git-memory", cwd=repo)
    return where


def test_plain_git_merge_from_another_clone_is_found(two_entries: Path, gm, tmp_path: Path) -> None:
    other = tmp_path / "other"
    git("clone", "-q", str(two_entries), str(other), cwd=tmp_path)
    git("fetch", "-q", "origin", "git-memory:git-memory", cwd=other)
    assert gm("add", "LEARNED: the other clone knows about canary deploys", cwd=other).returncode == 0
    assert gm("add", "LEARNED: here we know about blue green switches").returncode == 0
    git("fetch", "-q", str(other), "git-memory:refs/remotes/other/git-memory", cwd=two_entries)
    work = _memory_worktree(two_entries, tmp_path / "memwt")
    git("merge", "-q", "--no-edit", "other/git-memory", cwd=work)
    assert keys(gm, "canary deploys") == ["the other clone knows about canary deploys"]
    assert keys(gm, "blue green") == ["here we know about blue green switches"]
    assert keys(gm, "staging database") == ["the staging database resets every night"]


def _hand_record(work: Path, content: str) -> Path:
    record = Record(id=new_id(), type="fact", content=content, created=utc_now(),
                    author="Hand <hand@example.com>")
    path = work / record_path(record)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(dump_record(record), encoding="utf-8")
    return path


def test_hand_commit_and_reset_are_followed(two_entries: Path, gm, tmp_path: Path) -> None:
    work = _memory_worktree(two_entries, tmp_path / "memwt")
    before = git("rev-parse", "HEAD", cwd=work).strip()
    _hand_record(work, "Hand written: the cron runs at 03:00 UTC")
    git("add", "-A", cwd=work)
    git("commit", "-q", "-m", "hand edit", cwd=work)
    assert keys(gm, "cron UTC") == ["Hand written: the cron runs at 03:00 UTC"]
    git("reset", "-q", "--hard", before, cwd=work)  # the branch moves back: not an ancestor
    assert keys(gm, "cron UTC") == []
    assert keys(gm, "staging database") == ["the staging database resets every night"]


def test_malformed_and_stray_files_are_skipped_counted_and_listed(
    two_entries: Path, gm, tmp_path: Path
) -> None:
    work = _memory_worktree(two_entries, tmp_path / "memwt")
    bad = work / "entries" / "2026" / "01" / "01" / "learned-broken-x.md"
    bad.parent.mkdir(parents=True, exist_ok=True)
    bad.write_text("---\nid: [unclosed\ntype: learned\n---\nbody\n", encoding="utf-8")
    odd = work / "entries" / "2026" / "01" / "01" / "martian-type-y.md"
    odd.write_text("---\nid: 01ABC\ntype: martian\ncreated: 2026-01-01T00:00:00Z\n---\nhello\n",
                   encoding="utf-8")
    (work / "notes.txt").write_text("someone's scratch file\n", encoding="utf-8")
    _hand_record(work, "A good hand record about log rotation")
    git("add", "-A", cwd=work)
    git("commit", "-q", "-m", "hand edits, some bad", cwd=work)
    assert keys(gm, "log rotation") == ["A good hand record about log rotation"]
    stats = json.loads(out(gm("recall", "--stats", "--json")))
    assert stats["index"]["malformed_files"] == 2 and stats["entries"] == 3
    doctor = gm("doctor")
    assert doctor.returncode == 1  # problems found: a script can act on it
    text = out(doctor)
    assert "learned-broken-x.md" in text and "martian-type-y.md" in text
    assert "stray notes.txt" in text and "3 problems found" in text
    as_json = gm("doctor", "--json")
    assert as_json.returncode == 1
    report = json.loads(out(as_json))
    assert {p["path"].rsplit("/", 1)[-1] for p in report["malformed"]} == {
        "learned-broken-x.md", "martian-type-y.md"}
    assert report["stray_files"] == ["notes.txt"] and report["index"]["current"] is True
    # the same counts after a forced rebuild
    rebuilt = gm("reindex")
    assert rebuilt.returncode == 0, err(rebuilt)
    assert "indexed 3 entries" in out(rebuilt) and "2 malformed" in out(rebuilt)


def test_doctor_on_a_fresh_repository(git_repo: Path, gm) -> None:
    result = gm("doctor")
    assert result.returncode == 0, err(result)
    assert "does not exist yet" in out(result) and "no problems found" in out(result)


def test_worktrees_share_one_index(two_entries: Path, gm, tmp_path: Path) -> None:
    git("worktree", "add", "-q", "-b", "feature", str(tmp_path / "wt"), cwd=two_entries)
    assert keys(gm, "staging database", cwd=tmp_path / "wt") == [
        "the staging database resets every night"]
    assert not (tmp_path / "wt" / ".git").is_dir()
    assert (two_entries / INDEX).exists()


def test_recall_outside_a_repository(tmp_path: Path, gm) -> None:
    result = gm("recall", "x", cwd=tmp_path)
    assert result.returncode == 1 and err(result).startswith("error: ")


def test_recall_on_a_repository_without_memory(tmp_path: Path, gm) -> None:
    repo = make_repo(tmp_path / "empty")
    result = gm("recall", "--json", "anything", cwd=repo)
    assert result.returncode == 0 and json.loads(out(result)) == []


def test_local_flags_survive_a_rebuild(two_entries: Path, gm) -> None:
    import sqlite3

    entry = json.loads(out(gm("recall", "--json", "staging database")))[0]
    conn = sqlite3.connect(two_entries / INDEX)
    conn.execute("INSERT INTO local_flags(id, flag, reason, checked) VALUES (?, 'stale', 'gone', 'now')",
                 (entry["id"],))
    conn.commit()
    conn.close()
    assert gm("reindex").returncode == 0
    again = json.loads(out(gm("recall", "--json", "staging database")))[0]
    assert again["id"] == entry["id"] and again["local_flag"] == "stale"


def test_an_import_after_the_index_was_stamped_is_caught_up(git_repo: Path, gm, tmp_path: Path) -> None:
    data = tmp_path / "many.jsonl"
    data.write_text("".join(json.dumps({"type": "fact", "content": f"bulk fact number {i} zebra"}) + "\n"
                            for i in range(60)), encoding="utf-8")
    assert gm("recall", "--recent", "1").returncode == 0  # an index stamped before the import
    assert gm("import", str(data)).returncode == 0
    hits = json.loads(out(gm("recall", "--json", "--limit", "100", "zebra")))
    assert len(hits) == 60


def _recall_in_process(repo: Path, query: str) -> tuple[list[dict], list[str]]:
    import subprocess
    import sys

    code = (
        "import sys, json\nfrom git_memory.entry import main\n"
        f"rc = main(['recall', '--json', {query!r}])\n"
        "sys.stderr.write(json.dumps(sorted({m.split('.')[0] for m in sys.modules}"
        " & {'pygit2', 'yaml', 'click'})))\nsys.exit(rc)\n"
    )
    result = subprocess.run([sys.executable, "-c", code], cwd=repo, capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout), json.loads(result.stderr.strip().splitlines()[-1])


def _append_behind_the_index(repo: Path, text: str) -> None:
    """A commit on the memory branch that leaves the index behind (as a hand commit,
    a fetch-and-merge or another tool would; `git memory add` updates the index itself)."""
    from git_memory.model import Record, new_id, utc_now
    from git_memory.store.branch import MemoryBranch
    from git_memory.store.locate import discover

    record = Record(id=new_id(), type="learned", content=text, created=utc_now())
    MemoryBranch(discover(repo)).append([record], "memory: written behind the index")


def test_first_recall_after_an_add_reads_loose_objects_without_pygit2(two_entries: Path, gm) -> None:
    _append_behind_the_index(two_entries, "the nightly export writes parquet files")
    hits, heavy = _recall_in_process(two_entries, "nightly export parquet")
    assert [h["content"] for h in hits] == ["the nightly export writes parquet files"]
    assert heavy == []


def test_catch_up_after_gc_packed_the_objects(two_entries: Path, gm) -> None:
    git("gc", "-q", cwd=two_entries)  # the stamp's trees are packed now
    _append_behind_the_index(two_entries, "packed history still catches up")
    hits, heavy = _recall_in_process(two_entries, "packed history")
    assert [h["content"] for h in hits] == ["packed history still catches up"]
    assert heavy == ["pygit2"]  # the general path did it
    assert keys(gm, "staging database") == ["the staging database resets every night"]

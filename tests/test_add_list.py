"""`add`, `list`, `show`, `log`, `init`: the first contract of the memory branch."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import yaml

from conftest import err, git, out, tip


def test_add_prints_id_and_list_shows_it(git_repo: Path, gm) -> None:
    head = git("rev-parse", "HEAD", cwd=git_repo)
    status = git("status", "--porcelain=v2", "--branch", cwd=git_repo)
    index_before = (git_repo / ".git" / "index").read_bytes()
    result = gm("add", "LEARNED: OAuth redirect URI must match exactly", "--tag", "oauth")
    assert result.returncode == 0, err(result)
    new_id = out(result).strip()
    assert len(new_id) == 26
    entries = json.loads(out(gm("list", "--json")))
    assert len(entries) == 1
    entry = entries[0]
    assert entry["id"] == new_id
    assert entry["type"] == "learned"
    assert entry["tags"] == ["oauth"]
    assert entry["content"] == "OAuth redirect URI must match exactly"
    for name in ("id", "key", "type", "content", "tags", "status", "created", "author"):
        assert name in entry
    assert entry["status"] == "active"
    assert entry["author"] == "Test User <test@example.com>"
    # The file on the branch has parseable YAML front matter.
    text = git("show", f"git-memory:{entry['path']}", cwd=git_repo)
    assert entry["path"].startswith("entries/") and entry["path"].endswith(".md")
    head_text, body = text.split("\n---\n", 1)
    meta = yaml.safe_load(head_text.removeprefix("---\n"))
    assert meta["id"] == new_id and meta["type"] == "learned" and meta["tags"] == ["oauth"]
    assert body.strip() == "OAuth redirect URI must match exactly"
    # HEAD, the index and the working tree are exactly as before.
    assert git("rev-parse", "HEAD", cwd=git_repo) == head
    assert git("status", "--porcelain=v2", "--branch", cwd=git_repo) == status
    assert (git_repo / ".git" / "index").read_bytes() == index_before


def test_branch_layout_readme_and_attributes(git_repo: Path, gm) -> None:
    assert gm("add", "FACT: the build uses two cores").returncode == 0
    names = git("ls-tree", "-r", "--name-only", "git-memory", cwd=git_repo).split()
    assert "README.md" in names and ".gitattributes" in names
    entry = [n for n in names if n.startswith("entries/")]
    assert len(entry) == 1
    parts = entry[0].split("/")
    assert len(parts) == 5 and parts[1].isdigit() and len(parts[1]) == 4
    assert parts[4].startswith("fact-the-build-uses-two-cores-")
    # The branch is an orphan: it shares no history with main.
    merge_base = subprocess.run(
        ["git", "merge-base", "main", "git-memory"], cwd=git_repo, capture_output=True
    )
    assert merge_base.returncode == 1
    attributes = git("show", "git-memory:.gitattributes", cwd=git_repo)
    repo_root = Path(__file__).resolve().parents[1]
    assert attributes == (repo_root / "gitattributes").read_text(encoding="utf-8")


def test_type_option_tags_and_stdin(git_repo: Path, gm) -> None:
    assert gm("add", "--type", "decision", "Use SQLite", "--tag", "db", "--tag", "#Storage").returncode == 0
    assert gm("add", "-", input="PATTERN: wrap every query\n  in a transaction\n").returncode == 0
    entries = {e["type"]: e for e in json.loads(out(gm("list", "--json")))}
    assert entries["decision"]["tags"] == ["db", "storage"]
    assert entries["pattern"]["content"] == "wrap every query\n  in a transaction"


def test_duplicate_add_reinforces_instead_of_copying(git_repo: Path, gm) -> None:
    first = out(gm("add", "LEARNED: Tokens expire after an hour")).strip()
    again = gm("add", "tokens  expire after an HOUR.", "--type", "learned")
    assert again.returncode == 0
    assert out(again).strip() == first
    assert "reinforced" in err(again)
    entries = json.loads(out(gm("list", "--json")))
    assert len(entries) == 1
    shown = json.loads(out(gm("show", first[-8:], "--json")))
    assert shown["reinforcements"] == 1


def test_show_by_short_id_and_key_and_unknown(git_repo: Path, gm) -> None:
    new_id = out(gm("add", "FACT: Deploys happen on Tuesdays")).strip()
    shown = gm("show", new_id[-8:])
    assert shown.returncode == 0
    assert "FACT: Deploys happen on Tuesdays" in out(shown)
    missing = gm("show", "ZZZZZZZZ")
    assert missing.returncode == 1
    assert err(missing).startswith("error: no entry")


def test_log_lists_memory_commits(git_repo: Path, gm) -> None:
    gm("add", "FACT: one")
    gm("add", "FACT: two")
    lines = out(gm("log")).strip().splitlines()
    assert len(lines) == 2  # the first add also starts the branch
    assert all("memory: add fact (+1 record)" in line for line in lines)


def test_init_is_idempotent(git_repo: Path, gm) -> None:
    first = gm("init")
    assert first.returncode == 0 and "ready" in out(first)
    before = tip(git_repo)
    second = gm("init")
    assert second.returncode == 0 and "already exists" in out(second)
    assert tip(git_repo) == before


def test_memory_ref_config_moves_the_branch(git_repo: Path, gm) -> None:
    git("config", "memory.ref", "team/memory", cwd=git_repo)
    assert gm("add", "FACT: configured ref").returncode == 0
    assert tip(git_repo, "refs/heads/team/memory") is not None
    assert tip(git_repo) is None
    assert len(json.loads(out(gm("list", "--json")))) == 1


def test_list_filters_and_empty(git_repo: Path, gm) -> None:
    empty = gm("list")
    assert empty.returncode == 0 and "no entries yet" in out(empty)
    gm("add", "FACT: a fact", "--tag", "x")
    gm("add", "DECISION: a decision", "--tag", "y")
    facts = json.loads(out(gm("list", "--json", "--type", "fact")))
    assert [e["type"] for e in facts] == ["fact"]
    tagged = json.loads(out(gm("list", "--json", "--tag", "y")))
    assert [e["content"] for e in tagged] == ["a decision"]
    limited = json.loads(out(gm("list", "--json", "--limit", "1")))
    assert len(limited) == 1 and limited[0]["content"] == "a decision"
    text = out(gm("list"))
    assert "decision" in text and "#y" in text and "just now" in text


def test_handoff_marker_records_the_branch(git_repo: Path, gm) -> None:
    git("checkout", "-q", "-b", "feat/login", cwd=git_repo)
    assert gm("add", "HANDOFF: finish the callback tests").returncode == 0
    entry = json.loads(out(gm("list", "--json")))[0]
    assert entry["type"] == "handoff" and entry["origin"] == {"branch": "feat/login"}
    context = out(gm("context", "--format", "text"))
    assert "finish the callback tests" in context


def test_text_of_a_superseded_entry_reinforces_its_successor(git_repo: Path, gm) -> None:
    old = out(gm("add", "DECISION: deploy on Fridays")).strip()
    new = out(gm("add", "DECISION: deploy on Thursdays")).strip()
    assert gm("supersede", old, new, "--reason", "Fridays are quiet").returncode == 0
    again = gm("add", "DECISION: deploy on Fridays")
    assert again.returncode == 0 and out(again).strip() == new
    shown = json.loads(out(gm("show", new, "--json")))
    assert shown["reinforcements"] == 1

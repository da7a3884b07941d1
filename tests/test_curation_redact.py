"""Redaction hides an entry everywhere and refuses its text; purge removes it from history."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

from conftest import err, git, out, tip

from git_memory.index.db import open_index
from git_memory.index.rank.search import search
from git_memory.store.locate import discover

SECRET_TEXT = "the staging admin passphrase is correct-horse-battery-staple"


def add(gm, text: str) -> str:  # type: ignore[no-untyped-def]
    result = gm("add", text)
    assert result.returncode == 0, err(result)
    return out(result).strip()


def everything_visible(gm, tmp_path: Path) -> str:  # type: ignore[no-untyped-def]
    """All the text list, list --all, show, export and search give out."""
    parts = [out(gm("list")), out(gm("list", "--all", "--json")),
             out(gm("export", "--format", "jsonl")), out(gm("export", "--all", "--format", "jsonl"))]
    folder = tmp_path / "export"
    assert gm("export", str(folder), "--all").returncode == 0
    parts += [p.read_text() for p in folder.rglob("*.md")]
    index = open_index(discover())
    try:
        parts += [h.row["content"] for h in search(index, "staging admin passphrase battery",
                                                    include_all=True)]
    finally:
        index.close()
    return "\n".join(parts)


def test_redact_hides_everywhere_and_refuses_the_text_again(
    git_repo: Path, gm, tmp_path: Path
) -> None:
    bad = add(gm, f"FACT: {SECRET_TEXT}")
    keep = add(gm, "FACT: the staging host is staging.example.com")
    assert "correct-horse" in everything_visible(gm, tmp_path)
    redacted = gm("redact", bad[-8:], "--reason", "credential pasted by mistake")
    assert redacted.returncode == 0, err(redacted)
    assert "git memory purge" in err(redacted)
    visible = everything_visible(gm, tmp_path / "after")
    assert "correct-horse" not in visible and keep in visible
    entries = json.loads(out(gm("list", "--all", "--json")))
    assert {e["id"]: e["status"] for e in entries}[bad] == "redacted"
    assert "correct-horse" not in out(gm("show", bad))
    before = tip(git_repo)
    again = gm("add", "FACT: The staging admin passphrase is  correct-horse-battery-staple.")
    assert again.returncode == 1 and "redacted entry" in err(again)
    data = tmp_path / "again.jsonl"
    data.write_text(json.dumps({"type": "fact", "content": SECRET_TEXT}) + "\n"
                    + json.dumps({"type": "fact", "content": "an innocent new fact"}) + "\n")
    imported = gm("import", str(data), "--json")
    assert imported.returncode == 0, err(imported)
    summary = json.loads(out(imported))
    assert summary["imported"] == 1 and summary["rejected"] == 1
    assert "redacted" in summary["rejects"][0]["reason"]
    assert "correct-horse" not in everything_visible(gm, tmp_path / "after-import")
    assert tip(git_repo) != before  # the innocent line went in, the redacted one did not
    redact_log = git("log", "--format=%B", "git-memory", cwd=git_repo)
    assert f"Redact: {bad}" in redact_log
    assert "Review-Reason: credential pasted by mistake" in redact_log


def exists(repo: Path, blob: str) -> bool:
    return subprocess.run(["git", "cat-file", "-e", blob], cwd=repo).returncode == 0


def test_purge_removes_the_blob_from_history(git_repo: Path, gm) -> None:
    add(gm, "FACT: an entry from before")
    bad = add(gm, f"FACT: {SECRET_TEXT}")
    later = add(gm, "FACT: an entry from after")
    entry = json.loads(out(gm("show", bad, "--json")))
    blob = git("rev-parse", f"git-memory:{entry['path']}", cwd=git_repo).strip()
    before = tip(git_repo)
    refused = gm("purge", bad, "--yes")
    assert refused.returncode == 1 and "is not redacted" in err(refused)
    assert gm("redact", bad, "--reason", "credential").returncode == 0
    redacted_tip = tip(git_repo)
    declined = gm("purge", bad, input="n\n")
    assert declined.returncode == 1 and "nothing purged" in err(declined)
    assert tip(git_repo) == redacted_tip
    done = gm("purge", bad[-8:], "--yes")
    assert done.returncode == 0, err(done)
    message = err(done)
    assert "every other clone" in message and "force-with-lease" in message
    assert tip(git_repo) != redacted_tip
    history = git("log", "--format=%H", "git-memory", cwd=git_repo).split()
    assert before not in history and len(history) == 5  # 3 adds, redact, the purge record
    for commit in history:
        assert git("ls-tree", "-r", "--name-only", commit, cwd=git_repo).count(entry["path"]) == 0
    git("reflog", "expire", "--expire=now", "--all", cwd=git_repo)
    git("gc", "-q", "--prune=now", cwd=git_repo)
    assert not exists(git_repo, blob)
    ids = {e["id"] for e in json.loads(out(gm("list", "--all", "--json")))}
    assert bad not in ids and later in ids
    refused_again = gm("add", f"FACT: {SECRET_TEXT}")  # the redact record remembers the hash
    assert refused_again.returncode == 1 and "redacted" in err(refused_again)
    index_file = git_repo / ".git" / "git-memory" / "index.sqlite"
    assert b"correct-horse" not in index_file.read_bytes()


def test_purge_never_runs_from_a_hook_and_names_other_holders(
    git_repo: Path, gm, tmp_path: Path
) -> None:
    bad = add(gm, f"FACT: {SECRET_TEXT}")
    assert gm("redact", bad, "--reason", "credential").returncode == 0
    before = tip(git_repo)
    hooked = gm("purge", bad, "--yes", env={"GIT_MEMORY_HOOK": "post-merge"})
    assert hooked.returncode == 1 and "never runs from a git hook" in err(hooked)
    assert tip(git_repo) == before
    remote = tmp_path / "remote.git"
    git("init", "-q", "--bare", str(remote), cwd=tmp_path)
    git("remote", "add", "origin", str(remote), cwd=git_repo)
    git("push", "-q", "origin", "git-memory", cwd=git_repo)
    done = gm("purge", bad, "--yes")
    assert done.returncode == 0, err(done)
    assert "refs/remotes/origin/git-memory still holds the old history" in err(done)


def test_a_merge_from_a_clone_that_still_has_the_entry_does_not_bring_it_back(
    tmp_path: Path, gm
) -> None:
    from conftest import make_repo

    alice = make_repo(tmp_path / "alice")
    bad = out(gm("add", f"FACT: {SECRET_TEXT}", cwd=alice)).strip()
    bob = tmp_path / "bob"
    git("clone", "-q", str(alice), str(bob), cwd=tmp_path)
    assert gm("add", "FACT: bob's own later entry", cwd=bob).returncode == 0  # bob keeps it
    assert gm("redact", bad, "--reason", "credential", cwd=alice).returncode == 0
    for here, there, name in ((alice, bob, "alice"), (bob, alice, "bob")):
        git("fetch", "-q", str(there), "git-memory:refs/remotes/peer/git-memory", cwd=here)
        checkout = tmp_path / f"{name}-memory"
        git("worktree", "add", "-q", str(checkout), "git-memory", cwd=here)
        git("merge", "-q", "--no-edit", "refs/remotes/peer/git-memory", cwd=checkout)
        listed = out(gm("list", "--all", "--json", cwd=here))
        assert "correct-horse" not in listed, name
        assert {e["id"]: e["status"] for e in json.loads(listed)}[bad] == "redacted"
        again = gm("add", f"FACT: {SECRET_TEXT}", cwd=here)
        assert again.returncode == 1 and "redacted" in err(again)

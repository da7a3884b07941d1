"""A purge that leaves nothing (issue #37 part C): a stale clone's forced push that drops
the purge record is caught by the next sync of any clone that saw the purge, which
purges again; and no byte of the purged text is left under `.git/git-memory/`."""

from __future__ import annotations

import json
import sqlite3
import subprocess
from pathlib import Path

from conftest import err, git, out
from sync_world import clone, entries, make_remote

SECRET = "quokka7marmalade42lighthouse"
TEXT = f"the staging vault answers to {SECRET} on port 8200"


def _sync(gm, repo: Path) -> str:
    result = gm("sync", cwd=repo)
    assert result.returncode == 0, err(result)
    return out(result) + err(result)


def _reachable(repo: Path, blob: str) -> bool:
    listed = git("rev-list", "--objects", "--all", "--reflog", cwd=repo)
    return any(line.startswith(blob) for line in listed.splitlines())


def _memory_history_holds(repo: Path, blob: str) -> bool:
    listed = git("rev-list", "--objects", "refs/heads/git-memory", cwd=repo)
    return any(line.startswith(blob) for line in listed.splitlines())


def _files_holding(repo: Path, needle: str) -> list[str]:
    """Every file under the clone's .git/git-memory/ whose raw bytes hold `needle`
    (any case: FTS terms are folded), free pages and journals included."""
    found = []
    for path in sorted((repo / ".git" / "git-memory").rglob("*")):
        if path.is_file():
            data = path.read_bytes().lower()
            if needle.lower().encode() in data:
                found.append(path.name)
    return found


def _blob_of(gm, repo: Path, entry_id: str) -> str:
    entry = json.loads(out(gm("show", entry_id, "--json", cwd=repo)))
    return git("rev-parse", f"git-memory:{entry['path']}", cwd=repo).strip()


def test_a_forced_push_that_drops_the_purge_is_caught_and_purged_again(
        tmp_path: Path, gm) -> None:
    bare = make_remote(tmp_path)
    git("config", "receive.denyNonFastForwards", "false", cwd=bare)  # B's push -f lands
    a, b, c = (clone(bare, tmp_path / n) for n in ("a", "b", "c"))
    assert gm("add", "LEARNED: an innocent entry stays", cwd=a).returncode == 0
    added = gm("add", f"LEARNED: {TEXT}", cwd=a)
    assert added.returncode == 0, err(added)
    entry_id = out(added).split()[-1]
    _sync(gm, a)
    for repo in (b, c):
        _sync(gm, repo)
        assert gm("recall", "staging vault", cwd=repo).stdout.count(SECRET.encode())
    blob = _blob_of(gm, a, entry_id)
    assert gm("redact", entry_id, "--reason", "a secret", cwd=a).returncode == 0
    purged = gm("purge", entry_id, "--yes", cwd=a)
    assert purged.returncode == 0, err(purged)
    _sync(gm, a)
    _sync(gm, c)  # C saw the purge before B's forced push
    assert _files_holding(c, SECRET) == []  # the sync rebuilt C's index at once
    assert not _memory_history_holds(bare, blob)
    # B never synced the purge: it learns something and force-pushes its old branch.
    assert gm("add", "LEARNED: the stale clone learned something", cwd=b).returncode == 0
    for repo in (c, a):  # B pushes it once more before each: both must catch it
        git("push", "-q", "-f", "origin", "git-memory", cwd=b)
        assert _memory_history_holds(bare, blob)  # the blob is back, the purge record gone
        said = _sync(gm, repo)
        assert "lost the purge" in said and "purged it again" in said, said
        assert _files_holding(repo, SECRET) == [], repo.name
        assert not _memory_history_holds(repo, blob), repo.name
        assert not _memory_history_holds(bare, blob), repo.name
    for repo in (b, a, c, b):
        _sync(gm, repo)
        assert _files_holding(repo, SECRET) == [], repo.name
    contents = [sorted(e["content"] for e in entries(gm, repo)) for repo in (a, b, c)]
    assert contents[0] == ["an innocent entry stays", "the stale clone learned something"]
    assert contents[0] == contents[1] == contents[2]
    for repo in (a, b, c):
        assert not _memory_history_holds(repo, blob), repo.name
        assert _files_holding(repo, SECRET) == [], repo.name
        assert gm("doctor", cwd=repo).returncode == 0, out(gm("doctor", cwd=repo))
    # Once git's own gc has run, no object of any clone holds the blob.
    for repo in (a, b, c):
        git("reflog", "expire", "--expire=now", "--all", cwd=repo)
        git("gc", "-q", "--prune=now", cwd=repo)
        assert subprocess.run(["git", "cat-file", "-e", blob], cwd=repo).returncode != 0


def test_doctor_finds_a_purged_blob_left_in_a_stale_index_and_says_what_to_run(
        tmp_path: Path, gm) -> None:
    bare = make_remote(tmp_path)
    git("config", "receive.denyNonFastForwards", "false", cwd=bare)
    a = clone(bare, tmp_path / "a")
    added = gm("add", f"LEARNED: {TEXT}", cwd=a)
    entry_id = out(added).split()[-1]
    blob = _blob_of(gm, a, entry_id)
    assert gm("redact", entry_id, "--reason", "a secret", cwd=a).returncode == 0
    assert gm("purge", entry_id, "--yes", cwd=a).returncode == 0
    assert gm("doctor", cwd=a).returncode == 0
    # What an older version's catch-up left: the row deleted, its bytes in a free page.
    index = a / ".git" / "git-memory" / "index.sqlite"
    conn = sqlite3.connect(index)
    with conn:
        conn.execute("PRAGMA secure_delete = OFF")
        conn.execute("INSERT INTO problems(path, blob, reason) VALUES (?, ?, ?)",
                     ("records/x.md", blob, TEXT * 20))
    with conn:
        conn.execute("DELETE FROM problems WHERE blob = ?", (blob,))
    conn.close()
    assert _files_holding(a, blob) == ["index.sqlite", "purges"]
    assert _files_holding(a, SECRET) == ["index.sqlite"]
    found = gm("doctor", cwd=a)
    assert found.returncode == 1
    assert (f"purged blob {blob[:10]} still in index.sqlite (run: git memory reindex)"
            in out(found)), out(found)
    report = json.loads(out(gm("doctor", "--json", cwd=a)))
    assert [i["blob"] for i in report["purged_leftovers"]] == [blob]
    assert gm("reindex", cwd=a).returncode == 0
    assert gm("doctor", cwd=a).returncode == 0
    assert _files_holding(a, SECRET) == []
    assert json.loads(out(gm("doctor", "--json", cwd=a)))["purged_leftovers"] == []


def test_doctor_names_a_ref_still_reaching_a_purged_blob(tmp_path: Path, gm) -> None:
    bare = make_remote(tmp_path)
    a = clone(bare, tmp_path / "a")
    added = gm("add", f"LEARNED: {TEXT}", cwd=a)
    entry_id = out(added).split()[-1]
    blob = _blob_of(gm, a, entry_id)
    git("tag", "old-memory", "git-memory", cwd=a)  # a tag purge must not move
    assert gm("redact", entry_id, "--reason", "a secret", cwd=a).returncode == 0
    assert gm("purge", entry_id, "--yes", cwd=a).returncode == 0
    found = gm("doctor", cwd=a)
    assert found.returncode == 1
    assert "still in refs/tags/old-memory (run: git update-ref -d refs/tags/old-memory" in out(found)
    git("tag", "-d", "old-memory", cwd=a)
    assert gm("doctor", cwd=a).returncode == 0, out(gm("doctor", cwd=a))


def test_a_clone_whose_own_branch_lost_the_record_writes_it_again(tmp_path: Path, gm) -> None:
    bare = make_remote(tmp_path)
    git("config", "receive.denyNonFastForwards", "false", cwd=bare)
    a, b = (clone(bare, tmp_path / n) for n in ("a", "b"))
    added = gm("add", f"LEARNED: {TEXT}", cwd=a)
    entry_id = out(added).split()[-1]
    _sync(gm, a)
    _sync(gm, b)
    blob = _blob_of(gm, a, entry_id)
    assert gm("redact", entry_id, "--reason", "a secret", cwd=a).returncode == 0
    assert gm("purge", entry_id, "--yes", cwd=a).returncode == 0
    _sync(gm, a)
    git("push", "-q", "-f", "origin", "git-memory", cwd=b)
    # A takes the forced tip by hand: its own branch now holds the blob, no purge record.
    git("fetch", "-q", "origin", cwd=a)
    git("update-ref", "refs/heads/git-memory", "refs/remotes/origin/git-memory", cwd=a)
    said = _sync(gm, a)
    assert "lost the purge" in said and "purged it again" in said, said
    assert not _memory_history_holds(a, blob) and not _memory_history_holds(bare, blob)
    files = git("ls-tree", "-r", "--name-only", "git-memory", cwd=bare).split()
    assert any("/purge-" in f for f in files), files  # the record is back on the remote
    assert _files_holding(a, SECRET) == []
    _sync(gm, b)
    assert not _memory_history_holds(b, blob)

"""Purge converges (issue #12): the purge record makes every clone's sync rewrite its own
history, so no clone pushes the blob back and the remote ends clean."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

from conftest import err, git, out
from sync_world import clone, make_remote

TEXT = "the staging password rotates via the zebra vault"


def _has_object(repo: Path, blob: str) -> bool:
    return subprocess.run(["git", "cat-file", "-e", blob], cwd=repo).returncode == 0


def _reachable(repo: Path, blob: str) -> bool:
    listed = git("rev-list", "--objects", "--all", cwd=repo)
    return any(line.startswith(blob) for line in listed.splitlines())


def _sync(gm, repo: Path) -> str:
    result = gm("sync", cwd=repo)
    assert result.returncode == 0, err(result)
    return out(result)


def _visible(gm, repo: Path) -> str:
    shown = []
    for args in (("list", "--all", "--json"), ("recall", "zebra vault"),
                 ("recall", "--all", "staging password"), ("context",),
                 ("export", "--format", "jsonl", "--all")):
        result = gm(*args, cwd=repo)
        assert result.returncode == 0, (args, err(result))
        shown.append(out(result))
    return "\n".join(shown)


def test_purge_with_three_clones_one_stale_leaves_the_blob_nowhere(tmp_path: Path, gm) -> None:
    bare = make_remote(tmp_path)
    # A purge replaces history, so this remote must allow it (the brief's premise).
    git("config", "receive.denyNonFastForwards", "false", cwd=bare)
    purger, other, stale = (clone(bare, tmp_path / n) for n in ("purger", "other", "stale"))
    assert gm("add", "LEARNED: an innocent entry stays", cwd=purger).returncode == 0
    added = gm("add", f"LEARNED: {TEXT}", cwd=purger)
    assert added.returncode == 0
    entry_id = out(added).split()[-1] if out(added).split() else ""
    _sync(gm, purger)
    for repo in (other, stale):
        _sync(gm, repo)
        assert TEXT in _visible(gm, repo)
    entry = json.loads(out(gm("show", entry_id, "--json", cwd=purger)))
    blob = git("rev-parse", f"git-memory:{entry['path']}", cwd=purger).strip()
    # The stale clone keeps writing, never syncing, while the rest goes on.
    assert gm("add", "LEARNED: the stale clone learned something", cwd=stale).returncode == 0
    assert gm("redact", entry_id, "--reason", "a secret", cwd=purger).returncode == 0
    _sync(gm, purger)
    purged = gm("purge", entry_id, "--yes", cwd=purger)
    assert purged.returncode == 0, err(purged)
    _sync(gm, purger)
    assert not _reachable(bare, blob)  # the remote's branch was replaced
    for repo in (other, stale):
        _sync(gm, repo)
    assert not _reachable(bare, blob)  # the stale clone did not push it back
    for repo in (purger, other, stale):
        assert not _has_object(repo, blob), repo.name
        assert TEXT not in _visible(gm, repo), repo.name
    # The remote's own garbage collection (a hosting service runs it) then drops it.
    git("reflog", "expire", "--expire=now", "--all", cwd=bare)
    git("gc", "-q", "--prune=now", cwd=bare)
    assert not _has_object(bare, blob)
    contents = {e["content"] for e in json.loads(out(gm("list", "--json", cwd=stale)))}
    assert contents == {"an innocent entry stays", "the stale clone learned something"}
    again = gm("add", f"LEARNED: {TEXT}", cwd=stale)  # the redaction travels too
    assert again.returncode == 1 and "redacted" in err(again)
    for repo in (purger, other, stale):  # and everything converged
        _sync(gm, repo)
    tips = {git("rev-parse", "git-memory", cwd=r).strip() for r in (purger, other, stale)}
    assert len(tips) == 1

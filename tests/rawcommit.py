"""A record committed to the memory branch with plain git, bypassing our writer: what a
clone without our hooks could push. Tests of the read-side mask use it."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path


def commit_unscanned(repo: Path, text: str) -> str:
    """A record committed to the memory branch with plain git, as a clone without our hooks
    could push it: the writer's secret check never saw it."""
    from git_memory.model import Record, new_id
    from git_memory.store.record_format import dump_record, record_path

    record = Record(id=new_id(), kind="entry", type="learned", content=text, tags=["leak"],
                    created="2026-11-20T10:00:00Z", author="X <x@example.com>", source="manual",
                    origin={}, key=None, fields={}, path="")
    env = {**os.environ, "GIT_INDEX_FILE": str(repo / ".git" / "raw-index")}

    def git(*args: str, stdin: str | None = None) -> str:
        return subprocess.run(["git", *args], cwd=repo, env=env, input=stdin, text=True,
                              capture_output=True, check=True).stdout.strip()

    blob = git("hash-object", "-w", "--stdin", stdin=dump_record(record))
    git("read-tree", "git-memory")
    git("update-index", "--add", "--cacheinfo", f"100644,{blob},{record_path(record)}")
    commit = git("commit-tree", git("write-tree"), "-p", "git-memory", "-m", "raw")
    git("update-ref", "refs/heads/git-memory", commit)
    return record.id

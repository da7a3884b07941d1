"""Helpers shared by the hook, capture and sanitizer tests: fake tokens, entries, flags.

Fake secrets are assembled at run time from harmless pieces, so the repository
never holds a string that a scanner (ours or a hosting service's) would flag.
"""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
from pathlib import Path

import gmfork


def fake_aws_key() -> str:
    return "AKIA" + "QX7T" * 4


def fake_github_token() -> str:
    return "gh" + "p_" + "aB3d" * 9


def entries(repo: Path) -> list[dict]:
    """Every entry on the memory branch, through `git memory list --json`."""
    result = gmfork.call(["list", "--json"], repo)
    assert result.returncode == 0, result.stderr.decode("utf-8", "replace")
    return json.loads(result.stdout)


def commit(repo: Path, message: str, *files: str, env: dict[str, str] | None = None,
           check: bool = True) -> subprocess.CompletedProcess:
    """A real `git commit` (hooks run) of `files` written with some content."""
    for name in files:
        path = repo / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(f"{name} {os.urandom(4).hex()}\n", encoding="utf-8")
        subprocess.run(["git", "add", name], cwd=repo, check=True)
    args = ["git", "commit", "-q", "-F", "-"] + ([] if files else ["--allow-empty"])
    result = subprocess.run(args, cwd=repo, input=message, capture_output=True, text=True,
                            env={**os.environ, **(env or {})})
    if check:
        assert result.returncode == 0, result.stderr
    return result


def head(repo: Path) -> str:
    return subprocess.run(["git", "rev-parse", "HEAD"], cwd=repo, capture_output=True,
                          text=True, check=True).stdout.strip()


def audit_items(repo: Path) -> list[dict]:
    result = gmfork.call(["audit", "--json"], repo)
    assert result.returncode == 0, result.stderr.decode("utf-8", "replace")
    return json.loads(result.stdout)


def local_flags(common_dir: Path) -> dict[str, tuple[str, str]]:
    conn = sqlite3.connect(str(common_dir / "git-memory" / "index.sqlite"))
    try:
        return {r[0]: (r[1], r[2]) for r in conn.execute("SELECT id, flag, reason FROM local_flags")}
    finally:
        conn.close()

"""Helpers shared by the hook, capture and sanitizer tests: fake tokens, entries, flags.

Fake secrets are assembled at run time from harmless pieces, so the repository
never holds a string that a scanner (ours or a hosting service's) would flag.
"""

from __future__ import annotations

import json
import os
import shutil
import sqlite3
import subprocess
from pathlib import Path

import yaml

import gmfork
from conftest import BIN, git, make_repo


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


ROOT = Path(__file__).resolve().parents[1]


MANIFEST = ROOT / ".pre-commit-hooks.yaml"


ENTRY = ROOT / "hooks" / "pre-commit-entry.sh"


PRE_COMMIT = shutil.which("pre-commit", path=os.pathsep.join([BIN, os.environ.get("PATH", "")]))


HOOK_TYPES = ["commit-msg", "post-commit", "post-checkout", "post-merge", "pre-push"]


def _pre_commit(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run([PRE_COMMIT, *args], cwd=cwd, capture_output=True, text=True)


def hook_repository(path: Path) -> tuple[Path, str]:
    """A git repository holding this checkout's manifest and entry script; (path, rev)."""
    make_repo(path, commit=False)
    shutil.copy(MANIFEST, path / ".pre-commit-hooks.yaml")
    (path / "hooks").mkdir()
    shutil.copy(ENTRY, path / "hooks" / ENTRY.name)
    git("add", ".", cwd=path)
    git("commit", "-q", "-m", "hooks", cwd=path)
    return path, git("rev-parse", "HEAD", cwd=path).strip()


def use_pre_commit(repo: Path, hooks_repo: tuple[Path, str], ids: list[str] | None = None) -> None:
    """Configure `repo` to run our hooks through pre-commit, and install its git hooks."""
    path, rev = hooks_repo
    wanted = ids or [h["id"] for h in yaml.safe_load(MANIFEST.read_text())]
    config = {"repos": [{"repo": str(path), "rev": rev, "hooks": [{"id": i} for i in wanted]}]}
    (repo / ".pre-commit-config.yaml").write_text(yaml.safe_dump(config, sort_keys=False))
    git("add", ".pre-commit-config.yaml", cwd=repo)
    git("commit", "-q", "-m", "pre-commit config", cwd=repo)
    (repo / ".git" / "hooks").mkdir(exist_ok=True)
    types = [a for t in HOOK_TYPES for a in ("--hook-type", t)]
    installed = _pre_commit("install", *types, cwd=repo)
    assert installed.returncode == 0, installed.stderr
    assert "pre-commit" in (repo / ".git" / "hooks" / "post-commit").read_text()


def _hand_written_memory_commit(repo: Path, text: str, parent: str | None) -> str:
    """A record written with plain git plumbing, as a careless hand (or old tool) would."""
    record = ("---\nid: 01HANDWRITTEN0000000000000\ntype: learned\ntags: []\n"
              "created: 2026-11-26T00:00:00Z\nsource: manual\n---\n" + text + "\n")
    blob = git("hash-object", "-w", "--stdin", cwd=repo, input=record).strip()
    entries_tree = git("mktree", cwd=repo, input=f"100644 blob {blob}\tlearned-by-hand.md\n").strip()
    root = git("mktree", cwd=repo, input=f"040000 tree {entries_tree}\tentries\n").strip()
    args = ["commit-tree", root, "-m", "hand-written record"] + (["-p", parent] if parent else [])
    return git(*args, cwd=repo).strip()

"""Helpers that build memory commits by hand with git plumbing, as a hostile or careless
writer would: any path, any mode, any bytes (trees written with `--literally`, so names
git itself refuses, such as `..`, get in too).

Not a test module: imported by tests/test_integrity_*.py.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

from conftest import git

MEMORY = "refs/heads/git-memory"


def _hash(repo: Path, kind: str, data: bytes) -> str:
    result = subprocess.run(
        ["git", "hash-object", "-w", "--literally", "-t", kind, "--stdin"],
        cwd=repo, input=data, capture_output=True, check=True,
    )
    return result.stdout.decode().strip()


def _tree(repo: Path, node: dict) -> str:
    body = b""
    for name in sorted(node):
        value = node[name]
        if isinstance(value, dict):
            mode, oid = "40000", _tree(repo, value)
        else:
            mode, oid = value
        body += f"{mode} ".encode() + name.encode("utf-8", "surrogateescape") + b"\0"
        body += bytes.fromhex(oid)
    return _hash(repo, "tree", body)


def _existing(repo: Path, commit: str) -> dict:
    """The tree of `commit` as nested dicts (path parts -> (mode, blob))."""
    nested: dict = {}
    for line in git("ls-tree", "-r", "-z", commit, cwd=repo).split("\0"):
        if not line:
            continue
        meta, path = line.split("\t", 1)
        mode, _, oid = meta.split()
        node = nested
        parts = path.split("/")
        for part in parts[:-1]:
            node = node.setdefault(part, {})
        node[parts[-1]] = (mode, oid)
    return nested


def commit_files(
    repo: Path, files: dict[tuple[str, ...], tuple[str, bytes]], ref: str = MEMORY,
    message: str = "hand-made",
) -> str:
    """A commit on `ref` adding `files` (path parts -> (mode, content)) to its tree;
    a symlink's content is its target, a submodule's a commit id."""
    parent = git("rev-parse", "--verify", "-q", ref, cwd=repo, check=False).strip()
    nested = _existing(repo, parent) if parent else {}
    for parts, (mode, data) in files.items():
        node = nested
        for part in parts[:-1]:
            node = node.setdefault(part, {})
        oid = data.decode() if mode == "160000" else _hash(repo, "blob", data)
        node[parts[-1]] = (mode, oid)
    tree = _tree(repo, nested)
    args = ["commit-tree", tree, "-m", message] + (["-p", parent] if parent else [])
    commit = git(*args, cwd=repo).strip()
    git("update-ref", ref, commit, cwd=repo)
    return commit


def record(record_id: str, body: str = "a hand-made record body", **meta: str) -> bytes:
    head = {"id": record_id, "type": "learned", "created": "2026-11-20T10:00:00Z", **meta}
    lines = "".join(f"{k}: {v}\n" for k, v in head.items())
    return f"---\n{lines}---\n{body}\n".encode()

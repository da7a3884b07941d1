"""Helpers for the sync tests: a real bare remote, clones of it, entries in bulk.

Not a test module: imported by tests/test_sync*.py.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Callable

from conftest import copy_repo, git, make_repo

MEMORY = "refs/heads/git-memory"


def make_remote(root: Path) -> Path:
    """A bare remote holding one code commit on main, keeping a reflog of every update."""
    bare = root / "remote.git"
    git("init", "-q", "--bare", str(bare), cwd=root)
    git("config", "core.logAllRefUpdates", "always", cwd=bare)
    # A force push would be refused here, so a passing sync proves it never needed one.
    git("config", "receive.denyNonFastForwards", "true", cwd=bare)
    seed = make_repo(root / "seed")
    git("push", "-q", str(bare), "main", cwd=seed)
    return bare


def copy_world(made: Path, root: Path, names: tuple[str, ...]) -> None:
    """Copies the repositories `names` of a world made once (built_once) from `made` into
    `root`, this test's own: a clone keeps its remote's path in its config (the only
    path a repository keeps), so each copied clone's remotes are pointed at the copies."""
    for name in names:
        copy_repo(made / name, root / name)
    for name in names:
        config = root / name / ".git" / "config"
        if config.is_file():
            text = config.read_text(encoding="utf-8")
            config.write_text(text.replace(str(made), str(root)), encoding="utf-8")


def remote_and_clones(built_once: Callable[[str, Callable[[Path], None]], Path],
                      root: Path) -> tuple[Path, Path, Path]:
    """make_remote(root) and two clones of it, root/a and root/b: made once for the run
    (built_once, eight git processes) and copied into root (copy_world)."""

    def make(folder: Path) -> None:
        bare = make_remote(folder)
        clone(bare, folder / "a")
        clone(bare, folder / "b")

    copy_world(built_once("remote-and-two-clones", make), root, ("remote.git", "seed", "a", "b"))
    return root / "remote.git", root / "a", root / "b"


def clone(remote: Path, dest: Path) -> Path:
    git("clone", "-q", str(remote), str(dest), cwd=remote.parent)
    return dest


def import_entries(gm, repo: Path, label: str, count: int) -> None:
    lines = [
        json.dumps({"type": "learned", "content": f"{label} learned thing number {i} about sync"})
        for i in range(count)
    ]
    path = repo.parent / f"{label}-{count}.jsonl"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    result = gm("import", "--format", "jsonl", str(path), cwd=repo)
    assert result.returncode == 0, result.stderr
    assert f"imported {count}".encode() in result.stdout


def entry_ids(gm, repo: Path) -> set[str]:
    result = gm("list", "--json", cwd=repo)
    assert result.returncode == 0, result.stderr
    return {e["id"] for e in json.loads(result.stdout)}


def entries(gm, repo: Path) -> list[dict]:
    result = gm("list", "--json", cwd=repo)
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout)


def rev(repo: Path, ref: str = MEMORY) -> str | None:
    result = subprocess.run(
        ["git", "rev-parse", "--verify", "-q", ref], cwd=repo, capture_output=True, text=True
    )
    return result.stdout.strip() or None


def is_ancestor(repo: Path, old: str, new: str) -> bool:
    result = subprocess.run(["git", "merge-base", "--is-ancestor", old, new], cwd=repo)
    return result.returncode == 0


def reflog(bare: Path, ref: str = MEMORY) -> list[str]:
    """Every value the remote ref took, oldest first."""
    text = git("reflog", "show", "--format=%H", ref, cwd=bare, check=False)
    return list(reversed(text.split()))


def assert_never_forced(bare: Path, ref: str = MEMORY) -> None:
    """Each update of the remote memory ref descends from the one before."""
    values = reflog(bare, ref)
    assert values, "the remote memory branch was never updated"
    for old, new in zip(values, values[1:]):
        assert is_ancestor(bare, old, new), f"{new} does not descend from {old}"


def write_hook(git_dir: Path, name: str, body: str) -> Path:
    """A real git hook script (the test template directory has no hooks/ folder)."""
    hooks = git_dir / "hooks"
    hooks.mkdir(exist_ok=True)
    hook = hooks / name
    hook.write_text("#!/bin/sh\n" + body + "\n", encoding="utf-8")
    hook.chmod(0o755)
    return hook

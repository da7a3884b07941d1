"""The one way the package runs `git`: always with `git_env()` (a hook's GIT_DIR must not
point a nested git elsewhere); a missing or hanging git is a one-line `GitUnavailable`.
A failing git is the caller's to judge (`cat-file -e` says "absent" by failing), or,
with `check=True`, a one-line `GitFailed` naming git's own reason."""

from __future__ import annotations

import subprocess
from pathlib import Path
from typing import Mapping

from git_memory.errors import GitMemoryError
from git_memory.store.gitenv import git_env


class GitUnavailable(GitMemoryError):
    """`git` could not be started (not installed, not on PATH) or did not finish in time."""


class GitFailed(GitMemoryError):
    """`git` ran and exited non-zero where the caller needed it to succeed."""


def last_line(stderr: str) -> str:
    """The last non-empty line of git's stderr: where git puts its reason."""
    lines = [line.strip() for line in stderr.splitlines() if line.strip()]
    return lines[-1] if lines else ""


def run(
    args: list[str],
    *,
    git_dir: Path | str | None = None,
    cwd: Path | str | None = None,
    env: Mapping[str, str] | None = None,
    input: bytes | None = None,
    stdin_null: bool = False,
    timeout: float | None = None,
    check: bool = False,
    what: str = "",
) -> subprocess.CompletedProcess[bytes]:
    """`git [--git-dir=GIT_DIR] ARGS`, output captured. `env` adds to `git_env()` (a
    location variable meant is passed here, by name); `check`: GitFailed("cannot WHAT: ...")."""
    command = ["git"] + ([f"--git-dir={git_dir}"] if git_dir is not None else []) + list(args)
    try:
        result = subprocess.run(
            command,
            cwd=str(cwd) if cwd is not None else None,
            env=git_env(**dict(env or {})),
            input=input,
            stdin=subprocess.DEVNULL if stdin_null and input is None else None,
            capture_output=True,
            timeout=timeout,
        )
    except subprocess.TimeoutExpired:
        raise GitUnavailable(f"git {args[0] if args else ''} did not finish in {timeout:g} s") from None
    except OSError as exc:
        raise GitUnavailable(f"cannot run git: {exc.strerror or exc}") from None
    if check and result.returncode != 0:
        reason = last_line(text(result.stderr)) or f"git {args[0] if args else ''} failed"
        raise GitFailed(f"cannot {what or 'run git ' + (args[0] if args else '')}: {reason}")
    return result


def text(data: bytes) -> str:
    """git output as text; undecodable bytes (a path in another encoding) replaced."""
    return data.decode("utf-8", "replace")


def lines(result: subprocess.CompletedProcess[bytes]) -> list[str]:
    return [line for line in text(result.stdout).splitlines() if line.strip()]

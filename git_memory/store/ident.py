"""The author and committer git itself would record, from `git var GIT_*_IDENT`, which
applies every rule git has (environment, config from anywhere, user.useConfigOnly).
When git knows no identity we refuse with its advice: no write under a made-up name."""

from __future__ import annotations

import os
import re
import time

from git_memory.errors import GitMemoryError, IdentityUnknown
from git_memory.store import gitrun
from git_memory.store.locate import GitDirs

ROLES = ("AUTHOR", "COMMITTER")
_IDENT_RE = re.compile(r"(.*) <(.*)> (\d+) ([+-])(\d\d)(\d\d)\Z")
# Per process: what git said, keyed by repository, role and the environment git reads.
_CACHE: dict[tuple[str, ...], tuple[str, str, int, int]] = {}


class Ident:
    """A name, an email, a time (seconds since the epoch) and its UTC offset in minutes."""

    __slots__ = ("name", "email", "time", "offset")

    def __init__(self, name: str, email: str, when: int, offset: int) -> None:
        self.name, self.email, self.time, self.offset = name, email, when, offset

    def __str__(self) -> str:
        return f"{self.name} <{self.email}>"


def ident(dirs: GitDirs, role: str) -> Ident:
    """The AUTHOR or COMMITTER identity git would use now; IdentityUnknown when git
    has none (its advice is the message)."""
    key = (str(dirs.git_dir), role, *(f"{k}={v}" for k, v in sorted(os.environ.items())
                                       if k.startswith(("GIT_", "EMAIL", "HOME", "XDG_"))))
    if key not in _CACHE:
        _CACHE[key] = _ask_git(dirs, role)
    name, email, when, offset = _CACHE[key]
    if not os.environ.get(f"GIT_{role}_DATE"):
        when = int(time.time())  # git's own "now" for a later write of this process
    return Ident(name, email, when, offset)


def _ask_git(dirs: GitDirs, role: str) -> tuple[str, str, int, int]:
    result = gitrun.run(["var", f"GIT_{role}_IDENT"], git_dir=dirs.git_dir)
    stderr = gitrun.text(result.stderr)
    if result.returncode != 0:
        lines = [line.rstrip() for line in stderr.splitlines() if line.strip()]
        raise IdentityUnknown("\n".join(lines) or f"git var GIT_{role}_IDENT failed")
    match = _IDENT_RE.match(gitrun.text(result.stdout).strip())
    if match is None:
        raise GitMemoryError(f"cannot read git's {role.lower()} identity")
    name, email, when, sign, hours, minutes = match.groups()
    offset = int(hours) * 60 + int(minutes)
    return name, email, int(when), -offset if sign == "-" else offset

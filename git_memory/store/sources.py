"""The read-only memories beside the local branch: remote-tracking copies, the
`memory.sources` (fetched into `refs/git-memory/sources/NAME`), personal memory (a bare
repository, `memory.personal`). Found from ref files: this is on `recall`'s hot path."""

from __future__ import annotations

import os
import re
from pathlib import Path

from git_memory.errors import BadInput, NotARepository, NotFound
from git_memory.store import config
from git_memory.store.locate import (
    DEFAULT_REF, GitDirs, _looks_like_git_dir, discover, memory_ref, read_ref,
    remote_tracking_refs,
)

SOURCES_NS = "refs/git-memory/sources/"
PERSONAL = "personal"  # the key of personal memory; remotes are remote:NAME, sources source:NAME
_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]*$")


class Source:
    """One read-only memory: its key (`remote:origin`, `source:NAME`, `personal`), the
    repository holding its objects, the ref read there, and the commit it points at."""

    __slots__ = ("key", "dirs", "ref", "tip")

    def __init__(self, key: str, dirs: GitDirs, ref: str, tip: str) -> None:
        self.key = key
        self.dirs = dirs
        self.ref = ref
        self.tip = tip

    @property
    def label(self) -> str:
        """What results show: the remote's or source's name, or `personal`."""
        return self.key.partition(":")[2] or self.key

    def __repr__(self) -> str:
        return f"Source({self.key!r}, {self.ref!r}, {self.tip[:8]})"


def personal_path(dirs: GitDirs | None = None) -> Path:
    """`memory.personal` (read where git config is, a leading ~ expanded), else
    $XDG_DATA_HOME/git-memory/personal.git, else ~/.local/share/git-memory/personal.git."""
    value = config.get_str(dirs, "memory.personal") if dirs is not None else _global_personal()
    return _personal_at(value)


def _personal_at(value: str | None) -> Path:
    if value:
        return Path(os.path.expanduser(value))
    data = os.environ.get("XDG_DATA_HOME") or os.path.join(os.path.expanduser("~"), ".local", "share")
    return Path(data) / "git-memory" / "personal.git"


def _global_personal() -> str | None:
    """`memory.personal` outside any repository: the user's and the system's config only."""
    from git_memory.store import gitrun  # lazy: hot path; a process, only outside a repository

    try:
        done = gitrun.run(["config", "--get", "memory.personal"], check=False)
    except gitrun.GitUnavailable:
        return None
    text = gitrun.text(done.stdout).strip()
    return text if done.returncode == 0 and text else None


def personal_dirs(dirs: GitDirs | None = None, path: Path | None = None) -> GitDirs | None:
    """The personal memory repository when it exists, else None."""
    path = path or personal_path(dirs)
    if not _looks_like_git_dir(path):
        return None
    return GitDirs(path, path, None)


def init_personal(dirs: GitDirs | None = None) -> GitDirs:
    """The personal memory repository, created (`git init --bare`) when missing."""
    found = personal_dirs(dirs)
    if found is not None:
        return found
    from git_memory.store import gitrun  # lazy: hot path; creating it, once per user

    path = personal_path(dirs)
    if path.exists() and any(path.iterdir()):
        raise BadInput(f"personal memory: {path} exists and is not a git repository")
    path.parent.mkdir(parents=True, exist_ok=True)
    gitrun.run(["init", "--quiet", "--bare", str(path)], check=True,
               what="create the personal memory repository")
    # Its own setting, so a global `memory.ref` meant for projects never moves it.
    gitrun.run(["config", "memory.ref", DEFAULT_REF], git_dir=path, check=True,
               what="set up the personal memory repository")
    created = personal_dirs(dirs)
    if created is None:
        raise BadInput(f"personal memory: could not create a repository at {path}")
    return created


def memory_dirs(personal: bool = False, create: bool = False) -> GitDirs:
    """The repository a command works on: this one, or with `personal` the personal
    memory (found from inside a repository or outside any; `create` makes it)."""
    if not personal:
        return discover()
    try:
        here: GitDirs | None = discover()
    except NotARepository:
        here = None
    if create:
        return init_personal(here)
    found = personal_dirs(here)
    if found is None:
        raise NotFound(f"no personal memory yet at {personal_path(here)};"
                       " start it with: git memory add --personal TEXT")
    return found


def is_personal(dirs: GitDirs) -> bool:
    """Is `dirs` the personal memory repository itself?"""
    path = personal_path(dirs)
    try:
        return path.resolve() == dirs.common_dir.resolve()
    except OSError:
        return False


def configured(dirs: GitDirs) -> list[tuple[str, str]]:
    """(name, location) of every `memory.sources` value, in config order.

    A value is a path or URL, or NAME=LOCATION; without a NAME the name is the
    location's last part without `.git`. A second source of the same name is refused."""
    found: list[tuple[str, str]] = []
    seen: set[str] = set()
    for value in config.values(dirs, "memory.sources"):
        if not value or not value.strip():
            raise config.ConfigError("memory.sources: empty value (expected a path or URL)")
        value = value.strip()
        head, eq, rest = value.partition("=")
        if eq and _NAME.match(head) and rest:
            name, where = head, rest
        else:
            where = value
            base = re.split(r"[/:\\]", where.rstrip("/"))[-1]
            name = base[:-4] if base.endswith(".git") else base
            name = re.sub(r"[^A-Za-z0-9._-]", "-", name).strip(".-") or "source"
        if name in seen:
            raise config.ConfigError(f"memory.sources: two sources named {name!r}; write NAME=LOCATION")
        seen.add(name)
        found.append((name, where))
    return found


def sources(dirs: GitDirs, ref: str | None = None) -> list[Source]:
    """Every read-only source of this repository's memory, in precedence order
    (remotes by name, then memory.sources in config order, then personal memory).
    A source with no commit yet is left out."""
    ref = ref or memory_ref(dirs)
    conf = config.settings(dirs)  # one read for both settings: this runs at every recall
    found: list[Source] = []
    prefix, suffix = "refs/remotes/", "/" + ref[len("refs/heads/"):]
    for name, sha in sorted(remote_tracking_refs(dirs, ref).items()):
        remote = name[len(prefix):-len(suffix)]
        found.append(Source("remote:" + remote, dirs, name, sha))
    if conf.get("memory.sources"):
        for name, _ in configured(dirs):
            tracking = SOURCES_NS + name
            fetched = read_ref(dirs, tracking)
            if fetched:
                found.append(Source("source:" + name, dirs, tracking, fetched))
    given = conf.get("memory.personal")
    if given and given[-1] is None:
        raise config.ConfigError("missing value for 'memory.personal'")
    personal = personal_dirs(dirs, _personal_at(given[-1] if given else None))
    if personal is not None and personal.common_dir.resolve() != dirs.common_dir.resolve():
        tip = read_ref(personal, DEFAULT_REF)
        if tip:
            found.append(Source(PERSONAL, personal, DEFAULT_REF, tip))
    return found


def signature(found: list[Source]) -> str:
    """What the index stamps besides the local tip: every source and its commit."""
    return "\n".join(f"{s.key} {s.tip}" for s in found)

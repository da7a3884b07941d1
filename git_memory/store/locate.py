"""Find the repository and read ref tips without pygit2 or a `git` process.

`recall` and the hooks start often; reading a few small files here is far cheaper
than importing pygit2 or running `git rev-parse`. The writer side (`branch.py`)
uses pygit2 and agrees with what this module finds.
May import `errors` only.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

from git_memory.errors import NotARepository

DEFAULT_REF = "refs/heads/git-memory"
# What git exports to a hook to say where the repository is. A `git` we start must not
# inherit them (they would point it at the hook's repository, index or quarantine);
# identity and config variables (GIT_CONFIG_GLOBAL, GIT_AUTHOR_NAME...) stay.
LOCATION_VARS = frozenset((
    "GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE", "GIT_PREFIX", "GIT_COMMON_DIR",
    "GIT_OBJECT_DIRECTORY", "GIT_ALTERNATE_OBJECT_DIRECTORIES", "GIT_QUARANTINE_PATH",
    "GIT_NAMESPACE",
))
_SHA_RE = re.compile(r"^[0-9a-f]{40}$")


class GitDirs:
    """Where a repository keeps its data: per-worktree dir, shared dir, work tree.

    Immutable and hashable. A plain class rather than a dataclass because every
    `recall` imports this module and `dataclasses` alone costs it about 9 ms.
    """

    __slots__ = ("git_dir", "common_dir", "work_tree")
    git_dir: Path
    common_dir: Path
    work_tree: Path | None

    def __init__(self, git_dir: Path, common_dir: Path, work_tree: Path | None) -> None:
        object.__setattr__(self, "git_dir", git_dir)
        object.__setattr__(self, "common_dir", common_dir)
        object.__setattr__(self, "work_tree", work_tree)

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError(f"GitDirs is immutable (cannot set {name})")

    def __eq__(self, other: object) -> bool:
        return isinstance(other, GitDirs) and self._key() == other._key()

    def __hash__(self) -> int:
        return hash(self._key())

    def __repr__(self) -> str:
        return (f"GitDirs(git_dir={self.git_dir!r}, common_dir={self.common_dir!r},"
                f" work_tree={self.work_tree!r})")

    def _key(self) -> tuple[Path, Path, Path | None]:
        return (self.git_dir, self.common_dir, self.work_tree)

    @property
    def memory_dir(self) -> Path:
        """Local, unshared state of git-memory: the index, the audit log, locks."""
        return self.common_dir / "git-memory"


def git_env(**extra: str) -> dict[str, str]:
    """The environment for a `git` process of ours: ours, less the location variables."""
    env = {k: v for k, v in os.environ.items() if k not in LOCATION_VARS}
    env.update(extra)
    return env


def _looks_like_git_dir(path: Path) -> bool:
    return (path / "HEAD").is_file() and (path / "objects").is_dir() or (
        (path / "HEAD").is_file() and (path / "commondir").is_file()
    )


def _gitdir_from_file(dot_git: Path) -> Path | None:
    try:
        text = dot_git.read_text(encoding="utf-8").strip()
    except OSError:
        return None
    if not text.startswith("gitdir:"):
        return None
    target = Path(text[len("gitdir:") :].strip())
    return (dot_git.parent / target).resolve() if not target.is_absolute() else target


def _common_of(git_dir: Path) -> Path:
    env = os.environ.get("GIT_COMMON_DIR")
    if env:
        return Path(env).resolve()
    marker = git_dir / "commondir"
    if marker.is_file():
        rel = marker.read_text(encoding="utf-8").strip()
        return (git_dir / rel).resolve()
    return git_dir


def discover(start: str | os.PathLike[str] | None = None) -> GitDirs:
    """The repository that contains `start` (default: the current directory)."""
    env_dir = os.environ.get("GIT_DIR")
    if env_dir and start is None:
        git_dir = Path(env_dir).resolve()
        if not _looks_like_git_dir(git_dir):
            raise NotARepository(f"GIT_DIR={env_dir} is not a git directory")
        work = os.environ.get("GIT_WORK_TREE")
        return GitDirs(git_dir, _common_of(git_dir), Path(work).resolve() if work else None)
    here = Path(start or os.getcwd()).resolve()
    for path in (here, *here.parents):
        dot_git = path / ".git"
        if dot_git.is_dir() and _looks_like_git_dir(dot_git):
            return GitDirs(dot_git, _common_of(dot_git), path)
        if dot_git.is_file():
            linked = _gitdir_from_file(dot_git)
            if linked is not None and linked.is_dir():
                return GitDirs(linked, _common_of(linked), path)
        if _looks_like_git_dir(path) and (path / "refs").is_dir():
            return GitDirs(path, _common_of(path), None)  # a bare repository
    raise NotARepository("not a git repository (or any of the parent directories)")


def _config_files(dirs: GitDirs) -> list[Path]:
    """Config files from the weakest to the strongest, as git reads them."""
    files: list[Path] = []
    if not os.environ.get("GIT_CONFIG_NOSYSTEM"):
        files.append(Path("/etc/gitconfig"))
    glob = os.environ.get("GIT_CONFIG_GLOBAL")
    if glob:
        files.append(Path(glob))
    else:
        xdg = os.environ.get("XDG_CONFIG_HOME") or os.path.expanduser("~/.config")
        files += [Path(xdg) / "git" / "config", Path(os.path.expanduser("~/.gitconfig"))]
    files += [dirs.common_dir / "config", dirs.git_dir / "config.worktree"]
    return files


def read_config(dirs: GitDirs, section: str, key: str) -> str | None:
    """A simple `[section] key = value` setting (no includes, no subsections).

    Good for our own `memory.*` keys on the hot path; the writer side reads the
    full git config through pygit2.
    """
    value: str | None = None
    for path in _config_files(dirs):
        try:
            text = path.read_text(encoding="utf-8", errors="replace")
        except OSError:
            continue
        current = ""
        for raw in text.splitlines():
            line = raw.strip()
            if not line or line[0] in "#;":
                continue
            if line.startswith("["):
                current = line.strip("[]").strip().lower()
                continue
            name, _, val = line.partition("=")
            if current == section and name.strip().lower() == key.lower():
                value = val.strip().strip('"')
    return value


# The session archive (agents.archive): a local ref, outside refs/heads so that no
# ordinary push or clone carries it; sync shares it only with `memory.shareSessions`.
SESSIONS_REF = "refs/memory/sessions"


def read_bool(dirs: GitDirs, section: str, key: str) -> bool:
    """A boolean setting as git reads one (a bare `key` line means true); unset is false."""
    value = read_config(dirs, section, key)
    return value is not None and value.strip().lower() in ("true", "yes", "on", "1", "")


def memory_ref(dirs: GitDirs) -> str:
    """The memory branch's full ref name (`memory.ref`, default refs/heads/git-memory)."""
    name = read_config(dirs, "memory", "ref") or DEFAULT_REF
    return name if name.startswith("refs/") else "refs/heads/" + name


def _packed_refs(common: Path) -> dict[str, str]:
    refs: dict[str, str] = {}
    try:
        text = (common / "packed-refs").read_text(encoding="utf-8")
    except OSError:
        return refs
    for line in text.splitlines():
        if not line or line[0] in "#^":
            continue
        sha, _, name = line.partition(" ")
        if _SHA_RE.match(sha):
            refs[name.strip()] = sha
    return refs


def read_ref(dirs: GitDirs, name: str, _depth: int = 0) -> str | None:
    """The commit a ref points at, following symbolic refs; None when absent."""
    for base in (dirs.common_dir,):
        try:
            text = (base / name).read_text(encoding="utf-8").strip()
        except (OSError, ValueError):
            continue
        if text.startswith("ref:") and _depth < 5:
            return read_ref(dirs, text[4:].strip(), _depth + 1)
        if _SHA_RE.match(text):
            return text
    return _packed_refs(dirs.common_dir).get(name)


def remote_tracking_refs(dirs: GitDirs, ref: str) -> dict[str, str]:
    """Remote-tracking copies of the memory branch: {full ref name: sha}."""
    branch = ref[len("refs/heads/") :] if ref.startswith("refs/heads/") else None
    if branch is None:
        return {}
    found: dict[str, str] = {}
    for name, sha in _packed_refs(dirs.common_dir).items():
        if name.startswith("refs/remotes/") and name.endswith("/" + branch):
            found[name] = sha
    remotes = dirs.common_dir / "refs" / "remotes"
    if remotes.is_dir():
        for remote in sorted(remotes.iterdir()):
            loose = read_ref(dirs, f"refs/remotes/{remote.name}/{branch}")
            if loose:
                found[f"refs/remotes/{remote.name}/{branch}"] = loose
    return found


def adoptable_remote(dirs: GitDirs, ref: str) -> tuple[str, str] | None:
    """The remote-tracking memory branch a fresh clone should start from (origin first)."""
    found = remote_tracking_refs(dirs, ref)
    if not found:
        return None
    names = sorted(found, key=lambda n: (not n.startswith("refs/remotes/origin/"), n))
    return names[0], found[names[0]]


def memory_tip(dirs: GitDirs, ref: str | None = None) -> str | None:
    """The memory commit readers should see: the local branch, else a remote copy."""
    ref = ref or memory_ref(dirs)
    sha = read_ref(dirs, ref)
    if sha:
        return sha
    adopt = adoptable_remote(dirs, ref)
    return adopt[1] if adopt else None

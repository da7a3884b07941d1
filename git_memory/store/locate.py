"""Find the repository and read ref tips without pygit2 or a `git` process: `recall`
and the hooks start often, and a few small files cost far less than either."""

from __future__ import annotations

import os
import re
from pathlib import Path

from git_memory.errors import NotARepository
from git_memory.store import config
# Re-exported: callers take them from here.
from git_memory.store.gitenv import LOCATION_VARS, GitDirs, git_env  # noqa: F401

DEFAULT_REF = "refs/heads/git-memory"
# Characters and sequences git refuses anywhere in a ref name (git check-ref-format).
_BAD_REF_CHARS = frozenset(" ~^:?*[\\\x7f")
_BAD_REF_PARTS = ("..", "@{", "//")
_SHA_RE = re.compile(r"^[0-9a-f]{40}$")


def _looks_like_git_dir(path: Path) -> bool:
    return (path / "HEAD").is_file() and ((path / "objects").is_dir() or (path / "commondir").is_file())


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


# The session archive (agents.archive): a local ref, outside refs/heads so that no
# ordinary push or clone carries it; sync shares it only with `memory.shareSessions`.
SESSIONS_REF = "refs/memory/sessions"


def memory_ref(dirs: GitDirs) -> str:
    """The memory branch's full ref name (`memory.ref`, default refs/heads/git-memory)."""
    name = config.get_str(dirs, "memory.ref") or DEFAULT_REF
    full = name if name.startswith("refs/") else "refs/heads/" + name
    if not _valid_ref(full):
        raise config.ConfigError(f"memory.ref: '{name}' is not a valid branch name")
    return full


def _valid_ref(name: str) -> bool:
    """git's ref-name rules (git check-ref-format), for a name taken from config."""
    if (_BAD_REF_CHARS.intersection(name) or min(name) < " "
            or any(part in name for part in _BAD_REF_PARTS) or name.endswith((".", "/"))):
        return False
    return all(part and not part.startswith(".") and not part.endswith(".lock")
               for part in name.split("/"))


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
    try:
        text = (dirs.common_dir / name).read_text(encoding="utf-8").strip()
    except (OSError, ValueError):
        text = ""
    if text.startswith("ref:") and _depth < 5:
        return read_ref(dirs, text[4:].strip(), _depth + 1)
    return text if _SHA_RE.match(text) else _packed_refs(dirs.common_dir).get(name)


def remote_tracking_refs(dirs: GitDirs, ref: str) -> dict[str, str]:
    """Remote-tracking copies of the memory branch: {full ref name: sha}."""
    branch = ref[len("refs/heads/") :] if ref.startswith("refs/heads/") else None
    if branch is None:
        return {}
    found = {name: sha for name, sha in _packed_refs(dirs.common_dir).items()
             if name.startswith("refs/remotes/") and name.endswith("/" + branch)}
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
    name = min(found, key=lambda n: (not n.startswith("refs/remotes/origin/"), n), default=None)
    return None if name is None else (name, found[name])


def memory_tip(dirs: GitDirs, ref: str | None = None) -> str | None:
    """The memory commit readers should see: the local branch, else a remote copy."""
    ref = ref or memory_ref(dirs)
    sha = read_ref(dirs, ref)
    if sha:
        return sha
    adopt = adoptable_remote(dirs, ref)
    return adopt[1] if adopt else None


def repo_path(dirs: GitDirs, path: str, cwd: str | None = None) -> str:
    """`path` as the repository-relative form anchors use (given relative to the cwd)."""
    if dirs.work_tree is None:
        return path
    here = Path(cwd or os.getcwd())
    full = Path(os.path.normpath(here / path))
    try:
        rel = full.relative_to(dirs.work_tree)
    except ValueError:
        return path
    return "" if str(rel) == "." else rel.as_posix()

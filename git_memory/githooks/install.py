"""Install and uninstall the hook shims, keeping any hook that was there first.

Our shim is recognised by its identifying line and versioned by a second: an older one is
upgraded, a newer one left alone. A foreign hook is renamed to `<name>.git-memory-chained`
(bytes, mode and symlinks kept exactly); the shim runs it first, and uninstall renames it back.
"""

from __future__ import annotations

import os
import re
import sys
from dataclasses import dataclass
from importlib import resources
from pathlib import Path

import git_memory
from git_memory.errors import GitMemoryError, NotARepository, UsageProblem
from git_memory.githooks import HOOK_NAMES
from git_memory.model import ENTRY_TYPES
from git_memory.sanitize.secrets_shim import shim_hints
from git_memory.store import gitrun


SHIM_VERSION = 4  # 4: post-commit also starts for a revert (`This reverts commit`); 3: post-merge captures a merge commit's markers (and pulls, on request)
IDENTIFIER = "# git-memory hook shim"
CHAINED_SUFFIX = ".git-memory-chained"
_VERSION_LINE = re.compile(r"^# git-memory-shim-version: (\d+)\s*$", re.MULTILINE)


@dataclass
class HookChange:
    """What happened to one hook: `action` is a short verb, `path` where it lives."""

    name: str
    action: str
    path: Path
    detail: str = ""


def parse_names(value: str | None) -> list[str]:
    """`--hooks a,b` into hook names (all of ours when empty)."""
    if not value:
        return list(HOOK_NAMES)
    names = [part.strip() for part in value.split(",") if part.strip()]
    unknown = [n for n in names if n not in HOOK_NAMES]
    if unknown or not names:
        raise UsageProblem(
            f"unknown hook {', '.join(unknown) or repr(value)}; choose from: {', '.join(HOOK_NAMES)}"
        )
    return list(dict.fromkeys(names))


def hooks_dir(cwd: str | os.PathLike[str] | None = None) -> Path:
    """Where git runs hooks from for the repository at `cwd` (`core.hooksPath` and linked
    worktrees honoured)."""
    here = Path(cwd or os.getcwd())
    # Install runs from the user's shell, not from a hook: a GIT_DIR / GIT_WORK_TREE there
    # is the user's choice of repository (store.locate.discover honours it too), so keep it.
    chosen = {k: os.environ[k] for k in ("GIT_DIR", "GIT_WORK_TREE") if k in os.environ}
    result = gitrun.run(["rev-parse", "--git-path", "hooks"], cwd=here, env=chosen)
    if result.returncode != 0:
        raise NotARepository("not a git repository (or any of the parent directories)")
    return (here / gitrun.text(result.stdout).strip()).resolve()


def _sh_quote(value: str) -> str:
    return value.replace("'", "'\\''")


def render(name: str, python: str | None = None, package: str | None = None) -> str:
    """The shim for hook `name`, recording the Python and package that installed it. Its
    marker patterns come from the model's entry types, so a new type needs no shell edit."""
    python = python or sys.executable
    package = package or str(Path(git_memory.__file__).resolve().parent)
    text = resources.files("git_memory.resources").joinpath("hook-shim.sh").read_text("utf-8")
    for key, value in (
        ("@VERSION@", str(SHIM_VERSION)),
        ("@HOOK@", name),
        ("@PYTHON@", _sh_quote(python)),
        ("@PACKAGE@", _sh_quote(package)),
        ("@SECRET_HINTS@", _sh_quote(shim_hints())),
        ("@TRAILER_MARKERS@", "|".join(f"{t.capitalize()}:*" for t in ENTRY_TYPES)),
        ("@LINE_MARKERS@", "|".join(f"{t.upper()}:*" for t in ENTRY_TYPES)),
    ):
        text = text.replace(key, value)
    return text


def shim_version(data: bytes) -> int | None:
    """Our shim's version, or None when the file is not one of ours."""
    text = data[:2000].decode("utf-8", "replace")
    if IDENTIFIER not in text:
        return None
    match = _VERSION_LINE.search(text)
    return int(match.group(1)) if match else 0


def _read(path: Path) -> bytes | None:
    if not os.path.lexists(path):
        return None
    try:
        return path.read_bytes()
    except OSError:
        return b""  # a dangling symlink or unreadable file: foreign, moved aside intact


def _write_shim(path: Path, text: str) -> None:
    tmp = path.with_name(f".{path.name}.git-memory-tmp")
    tmp.write_text(text, encoding="utf-8")
    os.chmod(tmp, 0o755)
    os.replace(tmp, path)


def _plan_conflicts(directory: Path, names: list[str]) -> None:
    """Refuse before touching anything when a foreign hook cannot be moved aside."""
    for name in names:
        path = directory / name
        current = _read(path)
        chained = directory / (name + CHAINED_SUFFIX)
        if current is not None and shim_version(current) is None and os.path.lexists(chained):
            raise GitMemoryError(
                f"{path} is not ours and {chained.name} already exists; move one of them"
                " away by hand, then install again"
            )


def install(names: list[str], cwd: str | None = None) -> list[HookChange]:
    directory = hooks_dir(cwd)
    directory.mkdir(parents=True, exist_ok=True)
    _plan_conflicts(directory, names)
    changes: list[HookChange] = []
    for name in names:
        path = directory / name
        wanted = render(name)
        current = _read(path)
        if current is None:
            _write_shim(path, wanted)
            changes.append(HookChange(name, "installed", path))
            continue
        version = shim_version(current)
        if version is None:
            os.rename(path, directory / (name + CHAINED_SUFFIX))
            _write_shim(path, wanted)
            changes.append(HookChange(name, "installed", path, f"existing hook kept as {name}{CHAINED_SUFFIX}"))
        elif current == wanted.encode("utf-8"):
            changes.append(HookChange(name, "unchanged", path))
        elif version > SHIM_VERSION:
            changes.append(HookChange(name, "kept", path, f"a newer shim (version {version}) is installed"))
        else:
            _write_shim(path, wanted)
            detail = f"from version {version}" if version < SHIM_VERSION else "new interpreter path"
            changes.append(HookChange(name, "upgraded", path, detail))
    return changes


def uninstall(names: list[str], cwd: str | None = None) -> list[HookChange]:
    directory = hooks_dir(cwd)
    changes: list[HookChange] = []
    for name in names:
        path = directory / name
        chained = directory / (name + CHAINED_SUFFIX)
        current = _read(path)
        if current is not None and shim_version(current) is None:
            changes.append(HookChange(name, "kept", path, "not ours; left alone"))
            continue
        if current is not None:
            path.unlink()
        if os.path.lexists(chained):
            os.rename(chained, path)
            changes.append(HookChange(name, "removed", path, "previous hook restored"))
        elif current is not None:
            changes.append(HookChange(name, "removed", path))
        else:
            changes.append(HookChange(name, "absent", path, "not installed"))
    return changes

"""What the work in front of the agent is: branch (from HEAD's file, no process), changed
paths, recent commit subjects."""

from __future__ import annotations

from git_memory.store import gitrun
from git_memory.store.locate import GitDirs, read_ref


def current_branch(dirs: GitDirs) -> str | None:
    """The checked-out branch name, or None when HEAD is detached or unreadable."""
    try:
        head = (dirs.git_dir / "HEAD").read_text(encoding="utf-8").strip()
    except OSError:
        return None
    if head.startswith("ref: refs/heads/"):
        return head[len("ref: refs/heads/") :]
    return None


def _git(dirs: GitDirs, *args: str) -> list[str]:
    try:
        result = gitrun.run(list(args), cwd=dirs.work_tree or dirs.git_dir, timeout=10)
    except gitrun.GitUnavailable:
        return []  # context is best effort: no paths rather than no context
    if result.returncode != 0:
        return []
    return gitrun.lines(result)


def changed_paths(dirs: GitDirs) -> list[str]:
    """Paths changed against HEAD, staged or not, without repeats. `git diff HEAD` covers
    what `--cached` lists, which is asked for only when there is no HEAD yet."""
    if dirs.work_tree is None:
        return []
    lines = _git(dirs, "diff", "--name-only", "HEAD")
    if not lines and not has_commits(dirs):
        lines = _git(dirs, "diff", "--name-only", "--cached")
    return list(dict.fromkeys(lines))


def has_commits(dirs: GitDirs) -> bool:
    """False on an unborn branch (HEAD names a branch with no commit yet)."""
    branch = current_branch(dirs)
    return branch is None or read_ref(dirs, f"refs/heads/{branch}") is not None


def recent_subjects(dirs: GitDirs, count: int = 5) -> list[str]:
    return _git(dirs, "log", f"-n{count}", "--format=%s", "HEAD")


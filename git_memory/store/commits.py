"""Reads of the user's code history with pygit2: one commit, HEAD's tree, a push's commits.

For the git hooks (`capture.commit` at post-commit, `githooks.anchors` at checkout,
`githooks.push` at pre-push), so that pygit2 is imported in `store/` only. Each
caller imports this module lazily, so a hook that has nothing to do never loads
pygit2. May import `errors` and `store.locate`. Never prints.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Iterator

import pygit2

from git_memory.errors import NotFound
from git_memory.store.locate import GitDirs, memory_ref, memory_tip

ZERO = "0" * 40


@dataclass(frozen=True)
class CodeCommit:
    id: str
    message: str
    paths: list[str]  # added or modified against the first parent, in diff order, no deletions


def _open(dirs: GitDirs) -> pygit2.Repository:
    return pygit2.Repository(str(dirs.git_dir))


def _changed_paths(repo: pygit2.Repository, commit: pygit2.Commit) -> list[str]:
    if commit.parents:
        diff = commit.parents[0].tree.diff_to_tree(commit.tree)
    else:
        diff = commit.tree.diff_to_tree(swap=True)
    paths: list[str] = []
    for delta in diff.deltas:
        if delta.status == pygit2.enums.DeltaStatus.DELETED:
            continue
        if delta.new_file.path not in paths:
            paths.append(delta.new_file.path)
    return paths


def read_commit(dirs: GitDirs, rev: str = "HEAD") -> CodeCommit:
    """Commit `rev`'s id, message and changed paths; NotFound when it cannot be read."""
    try:
        repo = _open(dirs)
        commit = repo.revparse_single(rev).peel(pygit2.Commit)
    except (pygit2.GitError, KeyError, ValueError) as exc:
        raise NotFound(f"cannot read commit {rev}: {exc}") from None
    return CodeCommit(str(commit.id), commit.message, _changed_paths(repo, commit))


class HeadTree:
    """The checked-out commit's tree, asked which paths it holds (answers cached)."""

    def __init__(self, sha: str, tree: pygit2.Tree) -> None:
        self.sha = sha
        self._tree = tree
        self._seen: dict[str, bool] = {}

    def has(self, path: str) -> bool:
        if path not in self._seen:
            try:
                self._tree[path]
                self._seen[path] = True
            except (KeyError, ValueError):
                self._seen[path] = False
        return self._seen[path]


def head_tree(dirs: GitDirs, previous: str | None = None) -> HeadTree | None:
    """HEAD's tree, or None when HEAD is not code to judge anchors by: an unborn
    branch, the memory branch (a worktree checked out on it) or any commit of its
    history, or (with `previous`, the HEAD before a checkout) a commit that shares no
    history with it (an orphan branch such as gh-pages)."""
    repo = _open(dirs)
    if repo.head_is_unborn:
        return None
    ref = memory_ref(dirs)
    if not repo.head_is_detached and repo.head.name == ref:
        return None
    commit = repo.head.peel(pygit2.Commit)
    head = str(commit.id)
    tip = memory_tip(dirs, ref)
    if tip and (head == tip or _related(repo, tip, head, "descends")):
        return None
    if previous and previous.strip("0") and previous != head \
            and not _related(repo, previous, head, "shares"):
        return None
    return HeadTree(head, commit.tree)


def _related(repo: pygit2.Repository, one: str, other: str, how: str) -> bool:
    """descends: `one` has `other` in its history; shares: they have a common ancestor.
    An id this repository lacks counts as related (nothing is skipped on a guess)."""
    try:
        if how == "descends":
            return bool(repo.descendant_of(one, other))
        return repo.merge_base(one, other) is not None
    except (pygit2.GitError, KeyError, ValueError):
        return how == "shares"


@dataclass(frozen=True)
class PushedFile:
    commit: str
    path: str
    blob: str


class Objects:
    """Commit walks and blob reads for the pre-push scan."""

    def __init__(self, dirs: GitDirs) -> None:
        self.repo = _open(dirs)

    def has(self, sha: str) -> bool:
        return sha in self.repo

    def read_blob(self, blob: str) -> bytes:
        return bytes(self.repo.odb.read(blob)[1])

    def commits(self, tip: str, hide: list[str]) -> list[str]:
        """Commits reachable from `tip` and from none of `hide` (topological order)."""
        walker = self.repo.walk(tip, pygit2.enums.SortMode.TOPOLOGICAL)
        for sha in hide:
            walker.hide(sha)
        return [str(c.id) for c in walker]

    def message(self, sha: str) -> str:
        return str(self.repo[sha].peel(pygit2.Commit).message)

    def in_range(self, rev_range: str | None, tip: str | None) -> list[str]:
        """The commits of `rev_range` (`A..B`, or a revision and its history), else of
        `tip`'s history; NotFound for a range git cannot read."""
        if rev_range is None:
            return [] if tip is None else self.commits(tip, [])
        try:
            spec = self.repo.revparse(rev_range)
            if spec.to_object is None:
                return self.commits(str(spec.from_object.peel(pygit2.Commit).id), [])
            return self.commits(str(spec.to_object.peel(pygit2.Commit).id),
                                [str(spec.from_object.peel(pygit2.Commit).id)])
        except (KeyError, ValueError, pygit2.GitError, pygit2.InvalidSpecError) as exc:
            raise NotFound(f"not a revision or range: {rev_range}"
                           f" ({exc.__class__.__name__})") from None

    def new_files(self, sha: str) -> Iterator[PushedFile]:
        """Every file the commit adds or changes against each of its parents."""
        commit = self.repo[sha].peel(pygit2.Commit)
        if not commit.parents:
            for delta in commit.tree.diff_to_tree(swap=True).deltas:
                yield PushedFile(sha, delta.new_file.path, str(delta.new_file.id))
            return
        for parent in commit.parents:
            for delta in parent.tree.diff_to_tree(commit.tree).deltas:
                if delta.new_file.id and str(delta.new_file.id) != ZERO:
                    yield PushedFile(sha, delta.new_file.path, str(delta.new_file.id))

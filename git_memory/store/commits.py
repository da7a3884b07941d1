"""The user's code history with pygit2, for the hooks and `capture`: one commit, HEAD's
tree, a push's commits, a range, what the last merge made. Imported lazily by each."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Iterator

import pygit2

from git_memory.errors import NotFound, UsageProblem
from git_memory.store.locate import GitDirs, memory_ref, memory_tip

ZERO = "0" * 40


@dataclass(frozen=True)
class CodeCommit:
    id: str
    message: str
    paths: list[str]  # added or modified against the first parent, in diff order, no deletions


def _open(dirs: GitDirs) -> pygit2.Repository:
    return pygit2.Repository(str(dirs.git_dir))


def _changed_paths(commit: pygit2.Commit) -> list[str]:
    if commit.parents:
        diff = commit.parents[0].tree.diff_to_tree(commit.tree)
    else:
        diff = commit.tree.diff_to_tree(swap=True)
    kept = (d.new_file.path for d in diff.deltas if d.status != pygit2.enums.DeltaStatus.DELETED)
    return list(dict.fromkeys(kept))


def decode_message(raw: bytes, encoding: str | None) -> str:
    """A commit message as text whatever its bytes: in the encoding its header names,
    else UTF-8, else Windows-1252 (the usual culprit), else Latin-1. Never fails:
    pygit2's own `message` raises on such a commit, and a hook must not die on history."""
    for name in (encoding, "utf-8", "cp1252"):
        if not name:
            continue
        try:
            return raw.decode(name)
        except (LookupError, UnicodeDecodeError):
            continue
    return raw.decode("latin-1")


def _message(commit: pygit2.Commit) -> str:
    return decode_message(commit.raw_message, commit.message_encoding)


def read_commit(dirs: GitDirs, rev: str = "HEAD") -> CodeCommit:
    """Commit `rev`'s id, message and changed paths; NotFound when it cannot be read."""
    try:
        repo = _open(dirs)
        commit = repo.revparse_single(rev).peel(pygit2.Commit)
    except (pygit2.GitError, KeyError, ValueError) as exc:
        raise NotFound(f"cannot read commit {rev}: {exc}") from None
    return CodeCommit(str(commit.id), _message(commit), _changed_paths(commit))


class History:
    """The code history `git memory capture` and the post-merge hook read: a range's
    commits, oldest first, each one's message and time, and (the costly part, so only
    for a commit with markers) its changed paths."""

    def __init__(self, dirs: GitDirs) -> None:
        self.dirs = dirs
        self.repo = _open(dirs)

    def _commit(self, rev: str) -> pygit2.Commit:
        return self.repo.revparse_single(rev).peel(pygit2.Commit)

    def resolve(self, rev: str) -> str | None:
        try:
            return str(self._commit(rev).id)
        except (pygit2.GitError, KeyError, ValueError, pygit2.InvalidSpecError):
            return None

    def range_ends(self, rev_range: str) -> tuple[list[str], list[str]]:
        """(tips, hidden) of `A..B` (B's history less A's; a side left out is HEAD),
        `A...B` (both histories less their merge base) or one revision (its history);
        UsageProblem for anything git cannot read as that."""
        try:
            spec = self.repo.revparse(rev_range)
            start = spec.from_object.peel(pygit2.Commit)
            if spec.to_object is None:
                return [str(start.id)], []
            end = spec.to_object.peel(pygit2.Commit)
        except (KeyError, ValueError, pygit2.GitError, pygit2.InvalidSpecError):
            raise UsageProblem(f"not a revision or range of commits: {rev_range!r}") from None
        if spec.flags & pygit2.enums.RevSpecFlag.MERGE_BASE:
            try:
                base = self.repo.merge_base(start.id, end.id)
            except (pygit2.GitError, KeyError, ValueError):
                base = None
            return [str(start.id), str(end.id)], [str(base)] if base else []
        return [str(end.id)], [str(start.id)]

    def commits(self, tips: list[str], hidden: list[str]) -> list[str]:
        """Commits reachable from `tips` and from none of `hidden`, oldest first (parents
        before children), each once."""
        walker = self.repo.walk(tips[0], pygit2.enums.SortMode.TOPOLOGICAL
                                | pygit2.enums.SortMode.REVERSE)
        for sha in tips[1:]:
            walker.push(sha)
        for sha in hidden:
            if sha in self.repo:
                walker.hide(sha)
        return [str(c.id) for c in walker]

    def read(self, sha: str) -> tuple[str, int]:
        """Commit `sha`'s message and committer time."""
        commit = self.repo[sha].peel(pygit2.Commit)
        return _message(commit), int(commit.commit_time)

    def paths(self, sha: str) -> list[str]:
        return _changed_paths(self.repo[sha].peel(pygit2.Commit))

    def branch_named(self, rev: str) -> str | None:
        """The branch `rev` names (`main`, `refs/heads/main`; `origin/main` gives `main`),
        else None (a commit id, `HEAD~3`, a tag)."""
        try:
            name = self.repo.lookup_reference_dwim(rev).name
        except (KeyError, ValueError, pygit2.GitError, pygit2.InvalidSpecError):
            return None
        if name.startswith("refs/heads/"):
            return name[len("refs/heads/"):]
        if name.startswith("refs/remotes/") and name.count("/") >= 3:
            return name.split("/", 3)[3]
        return None

    def descends(self, sha: str, ancestor: str) -> bool:
        try:
            return bool(self.repo.descendant_of(sha, ancestor))
        except (pygit2.GitError, KeyError, ValueError):
            return False

    def is_memory_tip(self, sha: str) -> bool:
        """Whether `sha` is the memory branch's tip. Only the tip: asking whether a code
        commit is in the memory's history would walk both histories whole (they share no
        commit), and an older memory commit holds no markers anyway."""
        return sha == memory_tip(self.dirs, memory_ref(self.dirs))

    def merge_made_here(self) -> bool:
        """Whether HEAD is a merge commit the merge that just ran made (post-merge): its
        first parent ORIG_HEAD, and HEAD's newest reflog line not a fast-forward (onto a
        merge someone else made from our tip: the same parents)."""
        try:
            head = self.repo.head.peel(pygit2.Commit)
        except (pygit2.GitError, KeyError, ValueError):
            return False
        orig = self.resolve("ORIG_HEAD")
        if len(head.parent_ids) < 2 or str(head.parent_ids[0]) != orig:
            return False
        return not self._last_move_was_fast_forward()

    def _last_move_was_fast_forward(self) -> bool:
        try:
            for entry in self.repo.references["HEAD"].log():
                return bool(entry.message and entry.message.rstrip().endswith(": Fast-forward"))
        except (pygit2.GitError, KeyError, ValueError):
            pass
        return False  # no reflog (core.logAllRefUpdates off): the parents decide


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
        return _message(self.repo[sha].peel(pygit2.Commit))

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

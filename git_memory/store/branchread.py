"""Reading the memory branch (or another ref kept the same way) with pygit2: refs,
blobs, history, tree diffs and walks; `branch.MemoryBranch` adds the writes."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Iterator

import pygit2

from git_memory.errors import NotARepository
from git_memory.store import config, trees
from git_memory.store.layout import MODE_BLOB, RECORD_ROOTS
from git_memory.store.locate import GitDirs, adoptable_remote, discover, memory_ref
from git_memory.store.loose import TREE_MODE, tree_items

SESSION_ROOTS = ("sessions",)


@dataclass(frozen=True)
class FileChange:
    path: str
    blob: str  # hex id of the blob
    mode: int = MODE_BLOB  # git's file mode: readers skip anything but a plain file (layout)


@dataclass(frozen=True)
class Delta:
    """One file of libgit2's tree diff: status A(dded), D(eleted), M(odified), ..."""

    status: str
    path: str  # the new path (the old one for a deletion)
    old_blob: str
    new_blob: str


@dataclass(frozen=True)
class CommitInfo:
    """What the other layers read of a commit."""

    id: str
    time: int  # committer time, seconds since the epoch
    author: str  # the author's name
    message: str
    parents: list[str] = field(default_factory=list)


def _info(commit: pygit2.Commit) -> CommitInfo:
    return CommitInfo(str(commit.id), commit.commit_time, commit.author.name, commit.message,
                      [str(p) for p in commit.parent_ids])


def _walk(
    old: pygit2.Object | None, new: pygit2.Object | None, path: str
) -> Iterator[tuple[FileChange | None, FileChange | None]]:
    """(file before, file after) for every file that differs between two tree entries
    (None: absent, or a folder), skipping every subtree whose id is unchanged: one new
    entry in a memory of 100k costs a few tree reads, and nothing is held in a list."""
    if old is not None and new is not None and old.id == new.id:
        return
    was, old_items = _file_or_items(old, path)
    now, new_items = _file_or_items(new, path)
    if was is not None or now is not None:
        yield was, now
    names = sorted(old_items.keys() | new_items.keys()) if old_items and new_items \
        else old_items or new_items  # one side only: git's order, as `git ls-tree` lists
    for name in names:
        yield from _walk(old_items.get(name), new_items.get(name), f"{path}/{name}")


def _file_or_items(
    obj: pygit2.Object | None, path: str
) -> tuple[FileChange | None, dict[str, pygit2.Object]]:
    if obj is None:
        return None, {}
    if obj.type_str != "tree":  # symlinks and submodules too: the index counts them as bad
        return FileChange(path, str(obj.id), trees.file_mode(obj)), {}
    items: dict[str, pygit2.Object] = {}
    for item in obj:  # type: ignore[attr-defined]
        # a second entry of one name: the first is read (doctor names it: tree_problems)
        items.setdefault(item.name, item)
    return None, items


def _deltas(diff: pygit2.Diff) -> list[Delta]:
    return [Delta(d.status_char(), d.new_file.path or d.old_file.path, str(d.old_file.id),
                  str(d.new_file.id)) for d in diff.deltas]


class BranchReader:
    def __init__(
        self, dirs: GitDirs | None = None, ref: str | None = None,
        roots: tuple[str, ...] = RECORD_ROOTS,
    ) -> None:
        self.dirs = dirs or discover()
        try:
            self.repo = pygit2.Repository(str(self.dirs.git_dir))
        except pygit2.GitError as exc:
            raise NotARepository(f"cannot open repository: {exc}") from None
        self.ref = ref or memory_ref(self.dirs)
        self.roots = roots

    def tip(self) -> str | None:
        """The local memory commit, else the remote-tracking one a clone brought."""
        local = self.local_tip()
        if local is not None:
            return local
        adopt = adoptable_remote(self.dirs, self.ref)
        return adopt[1] if adopt else None

    def local_tip(self) -> str | None:
        """The ref itself only (not a remote-tracking copy)."""
        return self.ref_target(self.ref)

    def ref_target(self, name: str) -> str | None:
        try:
            ref = self.repo.references.get(name)
        except (pygit2.GitError, ValueError):
            return None
        return str(ref.resolve().target) if ref is not None else None

    def ref_names(self, prefix: str = "refs/") -> list[str]:
        return [name for name in self.repo.references if name.startswith(prefix)]

    def remote_names(self) -> list[str]:
        """Remotes as git sees them: every `remote.NAME.*` setting, wherever git config
        has it from (pygit2's config reader ignores GIT_CONFIG_GLOBAL and `-c`)."""
        names = {key[7:].rpartition(".")[0] for key in config.settings(self.dirs)
                 if key.startswith("remote.") and "." in key[7:]}
        return sorted(names)

    def upstream_remote(self) -> str | None:
        """The remote of the checked-out branch's upstream (`branch.NAME.remote`), if any."""
        try:
            if self.repo.head_is_detached or self.repo.head_is_unborn:
                return None
            short = self.repo.head.shorthand
        except pygit2.GitError:
            return None
        value = config.get_str(self.dirs, f"branch.{short}.remote")
        return value if value and value != "." else None

    def read_blob(self, blob: str) -> bytes:
        return self.repo.odb.read(blob)[1]

    def read_blobs(self, blobs: list[str]) -> list[bytes | str]:
        """Many blobs' bytes, in order; for a blob that cannot be read, its error's name."""
        read = self.repo.odb.read
        out: list[bytes | str] = []
        for blob in blobs:
            try:
                out.append(read(blob)[1])
            except (KeyError, ValueError, OSError) as exc:
                out.append(exc.__class__.__name__)
        return out

    def blob_at(self, commit: str, path: str) -> str | None:
        """The blob id at `path` in `commit`'s tree, or None (absent, or a folder)."""
        try:
            obj = self.repo[commit].peel(pygit2.Tree)[path]
        except KeyError:
            return None
        return str(obj.id) if obj.type_str == "blob" else None

    def blob_size(self, blob: str) -> int:
        obj = self.repo.get(blob)
        return obj.size if isinstance(obj, pygit2.Blob) else 0

    def resolve(self, rev: str) -> str | None:
        """The commit a revision (`git-memory~3`, a branch, a sha) names, or None."""
        try:
            return str(self.repo.revparse_single(rev).peel(pygit2.Commit).id)
        except (KeyError, ValueError, pygit2.GitError, pygit2.InvalidSpecError):
            return None

    def commit(self, sha: str) -> CommitInfo:
        return _info(self.repo[sha].peel(pygit2.Commit))

    def merge_base(self, one: str, two: str) -> str | None:
        base = self.repo.merge_base(one, two)
        return str(base) if base is not None else None

    def history(self, tip: str) -> Iterator[CommitInfo]:
        """Commits reachable from `tip`, newest first (topological, then by time)."""
        sort = pygit2.enums.SortMode.TOPOLOGICAL | pygit2.enums.SortMode.TIME
        for commit in self.repo.walk(tip, sort):
            yield _info(commit)

    def diff(self, old: str | None, new: str) -> list[Delta]:
        """libgit2's diff of two commits' trees (`old` None: everything of `new` added);
        unlike `changes`, a modified file is one `M` delta."""
        new_tree = self.repo[new].peel(pygit2.Tree)
        if old is None:
            return _deltas(new_tree.diff_to_tree(swap=True))
        return _deltas(self.repo[old].peel(pygit2.Tree).diff_to_tree(new_tree))

    def count_changes(self, old: str | None, new: str) -> tuple[int, int]:
        """(record files added or changed, record files removed): `diff`'s counts under
        the record roots, with no list held (`log` at a million records stays small)."""
        added = removed = 0
        for _, now in self._pairs(old, new):
            added += now is not None
            removed += now is None
        return added, removed

    def iter_files(self, commit: str | None = None) -> Iterator[FileChange]:
        """Every record file (under the record roots) in a memory commit."""
        yield from (now for _, now in self._pairs(None, commit or self.tip()) if now is not None)

    def tree_problems(self, commit: str | None = None) -> list[tuple[str, str]]:
        """(path, reason) for each folder under the record roots that git fsck would
        refuse and a plain push lets in: a name twice (readers take the first), entries
        out of git's order. Trees are read as raw bytes, no blob at all."""
        found: list[tuple[str, str]] = []
        for root, obj in self._roots(commit or self.tip()).items():
            if isinstance(obj, pygit2.Tree):
                self._tree_problems(obj.id, root, found)
        return found

    def _tree_problems(self, tree: pygit2.Oid, prefix: str, found: list[tuple[str, str]]) -> None:
        try:
            items = tree_items(self.repo.odb.read(tree)[1])
        except ValueError:
            found.append((prefix, "not a tree object as git writes it"))
            return
        seen: set[bytes] = set()
        # git's order: names compared as bytes, a folder's as if it ended with '/'
        keys = [n + b"/" if m == TREE_MODE else n for m, n, _ in items]
        if keys != sorted(keys):
            found.append((prefix, "entries out of git's order (git fsck refuses this tree)"))
        for mode, name, sha in items:
            path = f"{prefix}/{name.decode('utf-8', 'replace')}"
            if name in seen:
                found.append((path, "a second entry of this name in its folder (git fsck"
                                    " refuses this tree); readers take the first"))
                continue
            seen.add(name)
            if mode == TREE_MODE:
                self._tree_problems(pygit2.Oid(raw=sha), path, found)

    def count_files(self, commit: str | None = None) -> int:
        """About how many record files a memory commit holds, for progress only: a
        folder whose first and last items are files counts by its length, unread."""
        return sum(trees.count_quick(obj) for obj in self._roots(commit or self.tip()).values())

    def newest_files(self, commit: str | None, want: int, scan: int = 50000,
                     prefix: str = "handoff-") -> tuple[list[FileChange], list[FileChange]]:
        """The record files of the newest days (dated folders, newest first) until
        `want` entries are in, with every curation record of those days; and, from
        the names of up to `scan` older entry files, those starting with `prefix` (the
        handoffs). Reads trees only: what a reader without the index can afford."""
        days: dict[str, dict[str, pygit2.Object]] = {}
        for root, obj in self._roots(commit or self.tip()).items():
            for day, folder in trees.day_folders(obj, root):
                days.setdefault(day, {})[root] = folder
        newest: list[FileChange] = []
        named: list[FileChange] = []
        entries = 0
        for day in sorted(days, reverse=True):
            for root, folder in days[day].items():
                where = f"{root}/{day}"
                if entries < want:
                    found = [now for _, now in _walk(None, folder, where) if now]
                    if root == "entries":  # a day of a bulk import may hold thousands
                        found = found[: 4 * want - entries]
                        entries += len(found)
                    newest.extend(found)
                elif root == "entries" and scan > 0:
                    scan -= len(folder)  # type: ignore[arg-type]
                    named.extend(  # names only: no object is read for the others
                        FileChange(f"{where}/{item.name}", str(item.id), int(item.filemode))
                        for item in folder  # type: ignore[attr-defined]
                        if item.name.startswith(prefix) and item.type_str == "blob")
            if entries >= want and scan <= 0:
                break
        return newest, named

    def stray_files(self, commit: str | None = None) -> list[str]:
        """Top-level names that are not ours (a hand-edited branch)."""
        commit = commit or self.tip()
        if commit is None:
            return []
        tree = self.repo[commit].peel(pygit2.Tree)
        known = {*self.roots, "README.md", ".gitattributes"}
        return sorted(e.name for e in tree if e.name not in known)  # type: ignore[misc]

    def changes(self, old: str, new: str) -> tuple[list[FileChange], list[FileChange]]:
        """Record files added and removed between two memory commits (`old` empty: the
        memory before its first commit). Our own walk (`_walk`), not libgit2's diff."""
        added: list[FileChange] = []
        removed: list[FileChange] = []
        for was, now in self._pairs(old or None, new):
            if was is not None:
                removed.append(was)
            if now is not None:
                added.append(now)
        return added, removed

    def _pairs(
        self, old: str | None, new: str | None
    ) -> Iterator[tuple[FileChange | None, FileChange | None]]:
        """`_walk` of the record roots of two memory commits."""
        before, after = self._roots(old), self._roots(new)
        for root in self.roots:
            yield from _walk(before.get(root), after.get(root), root)

    def _roots(self, commit: str | None) -> dict[str, pygit2.Object]:
        """The record roots' tree entries in `commit` (none without a commit)."""
        if not commit:
            return {}
        tree = self.repo[commit].peel(pygit2.Tree)
        return {root: tree[root] for root in self.roots if root in tree}

    def is_ancestor(self, ancestor: str, descendant: str) -> bool:
        if ancestor == descendant:
            return True
        try:
            return bool(self.repo.descendant_of(descendant, ancestor))
        except (pygit2.GitError, KeyError, ValueError):
            return False

    def has_commit(self, sha: str) -> bool:
        try:
            return isinstance(self.repo.get(sha), pygit2.Commit)
        except (ValueError, pygit2.GitError):
            return False

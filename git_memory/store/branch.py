"""The memory branch, read and written through git objects with pygit2.

Writes never touch HEAD, the index or the working tree: blobs, then trees, then a
commit whose parent is the tip we read. `create_commit` refuses when the ref moved
in between (libgit2 checks the first parent against the ref), which makes every
write a compare-and-swap; we re-read and retry. May import `model`, `errors`,
`store.locate`, `store.record_format`.
"""

from __future__ import annotations

import os
import random
import time
from dataclasses import dataclass
from importlib import resources
from typing import Iterable, Iterator, Mapping

import pygit2

from git_memory.errors import ConcurrentUpdate, GitMemoryError, NotARepository
from git_memory.model import Record
from git_memory.store.locate import GitDirs, adoptable_remote, discover, memory_ref
from git_memory.store.packwrite import write_blobs
from git_memory.store.record_format import dump_record, record_path

RECORD_ROOTS = ("entries", "records")
MAX_ATTEMPTS = 60
PACK_THRESHOLD = 500  # from this many new files on, write one pack instead of loose objects


@dataclass(frozen=True)
class FileChange:
    path: str
    blob: str  # hex id of the blob


def _resource(name: str) -> bytes:
    return resources.files("git_memory.resources").joinpath(name).read_bytes()


class MemoryBranch:
    """One repository's memory branch (or, with `ref` and `roots`, another ref kept the
    same way: sync uses it for the session archive, whose files are under sessions/)."""

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

    # -- reading -------------------------------------------------------------
    def tip(self) -> str | None:
        """The local memory commit, else the remote-tracking one a clone brought."""
        try:
            ref = self.repo.references.get(self.ref)
        except pygit2.GitError:
            ref = None
        if ref is not None:
            return str(ref.resolve().target)
        adopt = adoptable_remote(self.dirs, self.ref)
        return adopt[1] if adopt else None

    def read_blob(self, blob: str) -> bytes:
        return self.repo.odb.read(blob)[1]

    def iter_files(self, commit: str | None = None) -> Iterator[FileChange]:
        """Every record file (under entries/ and records/) in a memory commit."""
        commit = commit or self.tip()
        if commit is None:
            return
        tree = self.repo[commit].peel(pygit2.Tree)
        for root in self.roots:
            if root in tree:
                yield from self._walk(tree[root], root)

    def stray_files(self, commit: str | None = None) -> list[str]:
        """Top-level names that are not ours (a hand-edited branch)."""
        commit = commit or self.tip()
        if commit is None:
            return []
        tree = self.repo[commit].peel(pygit2.Tree)
        known = {*self.roots, "README.md", ".gitattributes"}
        return sorted(e.name for e in tree if e.name not in known)  # type: ignore[misc]

    def _walk(self, tree: pygit2.Object, prefix: str) -> Iterator[FileChange]:
        for item in tree:  # type: ignore[attr-defined]
            path = f"{prefix}/{item.name}"
            if item.type_str == "tree":
                yield from self._walk(item, path)
            elif item.type_str == "blob":
                yield FileChange(path, str(item.id))

    def changes(self, old: str, new: str) -> tuple[list[FileChange], list[FileChange]]:
        """Record files added and removed between two memory commits.

        Our own tree walk, not libgit2's diff: it skips every subtree whose id is
        unchanged, so one new entry in a memory of 100k costs a few tree reads.
        """
        old_tree = self.repo[old].peel(pygit2.Tree)
        new_tree = self.repo[new].peel(pygit2.Tree)
        added: list[FileChange] = []
        removed: list[FileChange] = []
        for root in self.roots:
            self._diff(
                old_tree[root] if root in old_tree else None,
                new_tree[root] if root in new_tree else None,
                root, added, removed,
            )
        return added, removed

    def _diff(
        self, old: pygit2.Object | None, new: pygit2.Object | None, path: str,
        added: list[FileChange], removed: list[FileChange],
    ) -> None:
        if old is not None and new is not None and old.id == new.id:
            return
        old_is_tree = old is not None and old.type_str == "tree"
        new_is_tree = new is not None and new.type_str == "tree"
        if not old_is_tree and old is not None:
            removed.append(FileChange(path, str(old.id)))
        if not new_is_tree and new is not None:
            added.append(FileChange(path, str(new.id)))
        old_items = {e.name: e for e in old} if old_is_tree else {}  # type: ignore[union-attr]
        new_items = {e.name: e for e in new} if new_is_tree else {}  # type: ignore[union-attr]
        for name in sorted(old_items.keys() | new_items.keys()):
            self._diff(old_items.get(name), new_items.get(name), f"{path}/{name}", added, removed)

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

    # -- writing -------------------------------------------------------------
    def signature(self) -> pygit2.Signature:
        name = os.environ.get("GIT_AUTHOR_NAME")
        email = os.environ.get("GIT_AUTHOR_EMAIL")
        try:
            sig = self.repo.default_signature
            return pygit2.Signature(name or sig.name, email or sig.email)
        except (KeyError, pygit2.GitError):
            return pygit2.Signature(name or "git-memory", email or "git-memory@localhost")

    def author(self) -> str:
        sig = self.signature()
        return f"{sig.name} <{sig.email}>"

    def ensure_init(self) -> str:
        """Create the orphan memory branch if it is missing; return its tip."""
        tip = self.tip()
        if tip is not None:
            if self.repo.references.get(self.ref) is None:
                self._adopt(tip)
            return tip
        return self.append([], "memory: start the memory branch")

    def _adopt(self, sha: str) -> None:
        try:
            self.repo.references.create(self.ref, sha, force=False)
        except (pygit2.AlreadyExistsError, ValueError, pygit2.GitError):
            pass  # another writer adopted it first; same result

    def _base_files(self) -> dict[str, bytes]:
        return {
            "README.md": _resource("branch-README.md"),
            ".gitattributes": _resource("gitattributes"),
        }

    def append(
        self,
        records: Iterable[Record],
        message: str,
        trailers: list[tuple[str, str]] | None = None,
        written: dict[str, str] | None = None,
    ) -> str:
        """Add record files in one commit; retry while other writers move the ref.

        `written`, when given, is filled with each new file's path and blob id, so a
        caller holding the records can index them without reading them back."""
        files = {}
        for record in records:
            record.path = record.path or record_path(record)
            files[record.path] = dump_record(record).encode("utf-8")
        blobs = self._write_blobs(files)
        if written is not None:
            written.update((path, str(oid)) for path, oid in blobs.items())
        full_message = message.rstrip("\n") + "\n"
        if trailers:
            full_message += "\n" + "".join(f"{k}: {v}\n" for k, v in trailers)
        sig = self.signature()
        for attempt in range(MAX_ATTEMPTS):
            parent = self.tip()
            tree = self._tree_with(parent, blobs)
            try:
                if parent is None:
                    oid = self.repo.create_commit(None, sig, sig, full_message, tree, [])
                    self.repo.references.create(self.ref, oid, force=False)
                else:
                    oid = self.repo.create_commit(
                        self.ref, sig, sig, full_message, tree, [pygit2.Oid(hex=parent)]
                    )
                return str(oid)
            except (pygit2.GitError, pygit2.AlreadyExistsError, ValueError, OSError):
                # The ref moved, or another writer holds its lock file: read again, retry.
                time.sleep(random.uniform(0.005, 0.02) * (1 + min(attempt, 10)))
        raise ConcurrentUpdate(
            f"the memory branch kept changing; gave up after {MAX_ATTEMPTS} attempts"
        )

    def _write_blobs(self, files: dict[str, bytes]) -> dict[str, pygit2.Oid]:
        if len(files) < PACK_THRESHOLD:
            return {path: self.repo.create_blob(data) for path, data in files.items()}
        ids = write_blobs(self.dirs.common_dir, list(files.values()))
        return {path: pygit2.Oid(hex=oid) for path, oid in zip(files, ids)}

    def _tree_with(self, parent: str | None, blobs: dict[str, pygit2.Oid]) -> pygit2.Oid:
        if parent is None:
            base = None
            blobs = {**{p: self.repo.create_blob(d) for p, d in self._base_files().items()}, **blobs}
        else:
            base = self.repo[parent].peel(pygit2.Tree)
        return graft(self.repo, base, blobs)


def graft(
    repo: pygit2.Repository, base: pygit2.Tree | None, files: Mapping[str, pygit2.Oid | str]
) -> pygit2.Oid:
    """The tree `base` with `files` (path -> blob id) added or replaced, rebuilding only
    the folders on their paths. A path where a file and a folder clash is refused, so
    no record is ever silently replaced by a folder (or the other way round)."""
    nested: dict = {}
    for path, oid in files.items():
        node = nested
        parts = path.split("/")
        for part in parts[:-1]:
            node = node.setdefault(part, {})
            if not isinstance(node, dict):
                raise GitMemoryError(f"path clash on the memory branch at {path}")
        node[parts[-1]] = oid if isinstance(oid, pygit2.Oid) else pygit2.Oid(hex=oid)
    return _build(repo, base, nested, "")


def _build(repo: pygit2.Repository, base: pygit2.Tree | None, nested: dict, where: str) -> pygit2.Oid:
    builder = repo.TreeBuilder(base) if base is not None else repo.TreeBuilder()
    for name, value in nested.items():
        existing = base[name] if base is not None and name in base else None
        if isinstance(value, dict):
            if existing is not None and not isinstance(existing, pygit2.Tree):
                raise GitMemoryError(f"path clash on the memory branch at {where}{name}")
            sub = _build(repo, existing, value, f"{where}{name}/")
            builder.insert(name, sub, pygit2.GIT_FILEMODE_TREE)
        else:
            if isinstance(existing, pygit2.Tree):
                raise GitMemoryError(f"path clash on the memory branch at {where}{name}")
            builder.insert(name, value, pygit2.GIT_FILEMODE_BLOB)
    return builder.write()

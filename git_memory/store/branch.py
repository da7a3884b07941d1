"""The one git writer: the memory branch and every other ref we keep the same way.

Writes never touch HEAD, the index or the working tree: blobs, trees, then a commit
whose parent is the tip we read; libgit2 refuses it when the ref moved meanwhile, so
every write is a compare-and-swap, retried with backoff. Every file and message is
scanned for secrets first (defence in depth below each caller's own policy).
"""

from __future__ import annotations

import random
import time
from importlib import resources
from typing import Callable, Iterable, Mapping

import pygit2

from git_memory.errors import ConcurrentUpdate
from git_memory.model import Record
from git_memory.sanitize.scan import redact_string, refuse_files, refuse_secrets
from git_memory.store.ident import ident
from git_memory.store.incoming import Screened, remember, screen
from git_memory.store.branchread import (  # re-exported: the other layers import them here
    RECORD_ROOTS, SESSION_ROOTS, BranchReader, CommitInfo, Delta, FileChange)
from git_memory.store.locate import SESSIONS_REF, GitDirs, adoptable_remote
from git_memory.store.pack import PackStream, write_blobs
from git_memory.store.record_format import dump_record, record_path
from git_memory.store.rewrite import purge_targets, rewrite
from git_memory.store.trees import STAGED_NAME, graft, graft_folders

# (tip the checks saw, tip the commit will go on, records) -> the records still to write
Recheck = Callable[[str | None, str | None, list[Record]], list[Record]]
# (tip the checks saw, tip the commit will go on) -> whether anything is left to write
StagedRecheck = Callable[[str | None, str], bool]
__all__ = [  # with the reader's names that the other layers import from here
    "RECORD_ROOTS", "SESSION_ROOTS", "STAGED_NAME", "CommitInfo", "Delta", "FileChange",
    "MemoryBranch", "session_archive", "valid_ref_name",
]
MAX_ATTEMPTS = 60
PACK_THRESHOLD = 500  # from this many new files on, write one pack instead of loose objects


class MemoryBranch(BranchReader):
    """One repository's memory branch, or, with `ref` and `roots`, another ref kept the
    same way (the session archive: `session_archive()`), read and written. `seed`: a
    new branch starts with the README and .gitattributes of the memory branch."""

    def __init__(
        self, dirs: GitDirs | None = None, ref: str | None = None,
        roots: tuple[str, ...] = RECORD_ROOTS, seed: bool = True,
    ) -> None:
        super().__init__(dirs, ref, roots)
        self.seed = seed

    def signatures(self) -> tuple[pygit2.Signature, pygit2.Signature]:
        """Author and committer, exactly as git would record them (`git var`);
        IdentityUnknown, with git's advice, when git knows no identity."""
        return self.signature(), self.signature("COMMITTER")

    def signature(self, role: str = "AUTHOR") -> pygit2.Signature:
        who = ident(self.dirs, role)
        return pygit2.Signature(who.name, who.email, who.time, who.offset)

    def author(self) -> str:
        return str(ident(self.dirs, "AUTHOR"))

    def ensure_init(self) -> str:
        """Create the orphan memory branch if it is missing; return its tip."""
        tip = self._write_parent()
        if tip is not None:
            return tip
        return self.append([], "memory: start the memory branch")

    def _write_parent(self) -> str | None:
        """The tip a write builds on: the local branch, else the remote-tracking copy a
        clone brought, screened (store.incoming) and adopted as the local branch."""
        local = self.local_tip()
        if local is not None:
            return local
        adopt = adoptable_remote(self.dirs, self.ref)
        if adopt is None:
            return None
        self._adopt(adopt)
        return self.local_tip()

    def _adopt(self, found: tuple[str, str]) -> None:
        name, sha = found
        screened = screen(self.repo, None, sha, self.roots)
        if self.roots == RECORD_ROOTS:
            remote = name[len("refs/remotes/"):].split("/", 1)[0]
            remember(self.dirs, remote, sha, screened.refused)
        try:
            self.repo.references.create(self.ref, screened.tip, force=False)
        except (pygit2.AlreadyExistsError, ValueError, pygit2.GitError):
            pass  # another writer adopted it first; same result

    def _base_tree(self, parent: str | None) -> pygit2.Tree | None:
        """The tree a commit on `parent` starts from: a new branch's is its seed files."""
        if parent is not None:
            return self.repo[parent].peel(pygit2.Tree)
        if not self.seed:
            return None
        found = resources.files("git_memory.resources")
        seeds = {name: self.repo.create_blob(found.joinpath(resource).read_bytes())
                 for name, resource in (("README.md", "branch-README.md"),
                                        (".gitattributes", "gitattributes"))}
        return self.repo[graft(self.repo, None, seeds)].peel(pygit2.Tree)

    def _retrying(
        self, text: str, tree_for: Callable[[str | None], pygit2.Oid | None],
    ) -> tuple[str | None, str | None]:
        """(the commit of `tree_for(parent)`, the parent), retried while other writers
        move the ref; (None, parent) when `tree_for` finds nothing to write."""
        sigs = self.signatures()  # first: with no identity, nothing is written
        for attempt in range(MAX_ATTEMPTS):
            parent = self._write_parent()
            tree = tree_for(parent)
            if tree is None:
                return None, parent
            try:
                return self._commit(self.ref, parent, tree, text, parent is None, sigs), parent
            except ConcurrentUpdate:
                _pause(attempt)
        raise ConcurrentUpdate(
            f"{'the memory branch' if self.seed else self.ref} kept changing;"
            f" gave up after {MAX_ATTEMPTS} attempts")

    def append(
        self,
        records: Iterable[Record],
        message: str,
        trailers: list[tuple[str, str]] | None = None,
        written: dict[str, str] | None = None,
        scanned: Iterable[Record] = (),
        recheck: Recheck | None = None,
        checked: str | None = None,
    ) -> str:
        """Add record files in one commit, retried while other writers move the ref.

        `written` is filled with each new file's path and blob id (the caller indexes
        them without reading them back). A secret in any field or the message raises
        SecretFound first (`scanned`: records `prepare` scanned already). `recheck(old,
        new, records)` is called whenever the tip the commit would go on (`new`) is not
        the one the caller's checks saw (`checked`, then the last `new`) and returns the
        records still to write, so a check such as "is this text new?" holds against the
        very tip the compare-and-swap commits on; with none left, the tip is returned."""
        pending = list(records)
        text = _message(message, trailers)
        # Before any blob is written, rechecked or not: recheck only ever drops records.
        refuse_secrets(pending, text, scanned)
        self.signatures()  # first: with no identity, no blob is written
        blobs = self._blobs_for(pending, {})

        def tree_for(parent: str | None) -> pygit2.Oid | None:
            nonlocal pending, checked, blobs
            if recheck is not None and parent != checked:
                before = {id(record) for record in pending}
                pending = recheck(checked, parent, pending)
                checked = parent
                # Records the recheck made (a reinforce event) get the same secret check.
                refuse_secrets([r for r in pending if id(r) not in before], text)
                if not pending and parent is not None:
                    return None
                blobs = self._blobs_for(pending, blobs)
            return graft(self.repo, self._base_tree(parent), blobs)

        commit, parent = self._retrying(text, tree_for)
        if commit is None:
            assert parent is not None  # tree_for skips only onto an existing tip
            return parent
        if written is not None:
            written.update((path, str(oid)) for path, oid in blobs.items())
        return commit

    def _blobs_for(
        self, records: list[Record], have: dict[str, pygit2.Oid]
    ) -> dict[str, pygit2.Oid]:
        """path -> blob id for `records`, writing only the blobs not in `have` yet."""
        files = {}
        for record in records:
            record.path = record.path or record_path(record)
            if record.path not in have:
                files[record.path] = dump_record(record).encode("utf-8")
        new = self._write_blobs(files) if files else {}
        return {r.path: have[r.path] if r.path in have else new[r.path] for r in records}

    def pack_stream(self) -> PackStream:
        return PackStream(self.dirs.common_dir)

    def append_staged(
        self, folders: Mapping[str, list[bytes]], message: str, checked: str | None,
        recheck: StagedRecheck,
    ) -> str | None:
        """One commit adding the files of `folders` (folder path -> entries: the 20-byte
        blob id, 26 bytes the writer keeps, the UTF-8 file name; an empty one skipped),
        whose blobs `pack_stream` wrote and whose records were scanned as they were
        prepared. Retried as `append` is, `recheck` (which may empty entries in place)
        in the same place; None when nothing is left to write."""
        text = _message(message, None)
        refuse_secrets([], text)

        def tree_for(parent: str | None) -> pygit2.Oid | None:
            nonlocal checked
            if parent != checked:
                if parent is not None and not recheck(checked, parent):
                    return None
                checked = parent
            return graft_folders(self.repo, self._base_tree(parent), folders)

        return self._retrying(text, tree_for)[0]

    def write_files(
        self,
        files: Mapping[str, bytes],
        message: str,
        trailers: list[tuple[str, str]] | None = None,
        written: dict[str, str] | None = None,
        skip_unchanged: bool = False,
    ) -> str | None:
        """Add or replace files (path -> bytes) in one commit, retried as `append` is;
        with `skip_unchanged`, None when the ref holds exactly these files already. A
        secret in a file or the message raises SecretFound first."""
        self.signatures()  # first: with no identity, nothing is written
        text = _message(message, trailers)
        refuse_files(files, text)
        blobs = self._write_blobs(dict(files))
        if written is not None:
            written.update((path, str(oid)) for path, oid in blobs.items())

        def tree_for(parent: str | None) -> pygit2.Oid | None:
            tree = graft(self.repo, self._base_tree(parent), blobs)
            if skip_unchanged and parent is not None and tree == self.repo[parent].peel(pygit2.Tree).id:
                return None
            return tree

        return self._retrying(text, tree_for)[0]

    def commit_once(
        self, ref: str, parent: str, files: Mapping[str, bytes], message: str,
        trailers: list[tuple[str, str]] | None = None, create: bool = False,
    ) -> str:
        """One commit of `files` on `parent`, moving (with `create`: creating) `ref` only
        if it still points at `parent` (does not exist), else ConcurrentUpdate. No retry:
        for writes reviewed against `parent` (curation proposals)."""
        sigs = self.signatures()  # first: with no identity, nothing is written
        text = _message(message, trailers)
        refuse_files(files, text)
        tree = graft(self.repo, self._base_tree(parent), self._write_blobs(dict(files)))
        return self._commit(ref, parent, tree, text, create, sigs)

    def merge_commit(self, tree: str, parents: list[str], message: str) -> str:
        """A commit of `tree` with `parents` that moves no ref (sync moves it later).
        Its message names hand-written file names, which may hold anything: redacted."""
        message = redact_string(message)[0]
        author, committer = self.signatures()
        return str(self.repo.create_commit(
            None, author, committer, message, pygit2.Oid(hex=tree), [pygit2.Oid(hex=p) for p in parents]
        ))

    def _commit(
        self, ref: str, parent: str | None, tree: pygit2.Oid, text: str, create: bool,
        sigs: tuple[pygit2.Signature, pygit2.Signature],
    ) -> str:
        """The compare-and-swap: libgit2 checks the ref still points at `parent`."""
        author, committer = sigs
        parents = [pygit2.Oid(hex=parent)] if parent is not None else []
        try:
            if create:
                oid = self.repo.create_commit(None, author, committer, text, tree, parents)
                self.repo.references.create(ref, oid, force=False)
            else:
                oid = self.repo.create_commit(ref, author, committer, text, tree, parents)
        except (pygit2.GitError, pygit2.AlreadyExistsError, ValueError, OSError):
            raise ConcurrentUpdate(f"{ref} moved while writing; nothing was written") from None
        return str(oid)

    def _write_blobs(self, files: dict[str, bytes]) -> dict[str, pygit2.Oid]:
        if len(files) < PACK_THRESHOLD:
            return {path: self.repo.create_blob(data) for path, data in files.items()}
        ids = write_blobs(self.dirs.common_dir, list(files.values()))
        return {path: pygit2.Oid(hex=oid) for path, oid in zip(files, ids)}

    def graft_onto(self, commit: str, files: Mapping[str, str]) -> str:
        return str(graft(self.repo, self.repo[commit].peel(pygit2.Tree), files))

    def rewrite_without(self, tip: str | None, blobs: set[str]) -> tuple[str | None, int]:
        """(new tip, commits rewritten) of `tip`'s history without `blobs`; moves no ref."""
        return rewrite(self.repo, tip, blobs)

    def purge_targets(self, commit: str | None) -> dict[str, str]:
        """blob id -> entry id, for the purge records in `commit` (store.rewrite)."""
        return purge_targets(self.repo, commit)

    def holds_object(self, sha: str) -> bool:
        return sha in self.repo.odb

    def screen(self, theirs: str, roots: tuple[str, ...]) -> Screened:
        return screen(self.repo, self.local_tip(), theirs, roots)

    def move_ref(self, expected: str | None, new: str, message: str) -> bool:
        """Point the ref at `new` only if it still points at `expected` (a ref
        transaction: other writers wait while we hold the lock); False if not."""
        try:
            with self.repo.transaction() as txn:
                txn.lock_ref(self.ref)
                if self.local_tip() != expected:
                    return False
                txn.set_target(self.ref, pygit2.Oid(hex=new), message=message)
        except pygit2.GitError:
            return False
        return True

    def set_ref(self, name: str, sha: str) -> bool:
        """Point `name` at `sha` unconditionally (caches such as remote-tracking refs)."""
        try:
            self.repo.references.create(name, sha, force=True)
        except pygit2.GitError:
            return False
        return True


def _pause(attempt: int) -> None:
    """Before another try: the ref moved, or another writer holds its lock file. A random
    pause that grows with the attempts, so writers that collided do not collide again."""
    time.sleep(random.uniform(0.005, 0.02) * (1 + min(attempt, 10)))


def _message(message: str, trailers: list[tuple[str, str]] | None) -> str:
    text = message.rstrip("\n") + "\n"
    if trailers:
        text += "\n" + "".join(f"{k}: {v}\n" for k, v in trailers)
    return text


def valid_ref_name(name: str) -> bool:
    """Whether git would accept `name` as a full ref name."""
    return bool(pygit2.reference_is_valid_name(name))


def session_archive(dirs: GitDirs) -> MemoryBranch:
    """The session archive (`refs/memory/sessions`), written the way the memory branch is."""
    return MemoryBranch(dirs, ref=SESSIONS_REF, roots=SESSION_ROOTS, seed=False)

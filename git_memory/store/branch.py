"""The memory branch (and every other ref we write), read and written with pygit2.

The one git writer of the package: the memory branch, the session archive
(`refs/memory/sessions`), curation proposals, sync's merges and purge's rewrite all
write through `MemoryBranch`, which takes the ref and its record roots as
parameters. Writes never touch HEAD, the index or the working tree: blobs, then
trees, then a commit whose parent is the tip we read. `create_commit` refuses when
the ref moved in between (libgit2 checks the first parent against the ref), which
makes every write a compare-and-swap; we re-read and retry with backoff. The
identity of every commit comes from `signatures()` alone (git's own, via
`store.ident`).

Also the read functions the other layers need (commit walk, tree diff, merge base,
refs), so that pygit2 is imported in `store/` only. Before any object is written,
every file and the commit message are scanned for secrets (`sanitize.scan`, defence in
depth below each path's own refuse-or-redact policy); a rewrite of history replaces a
secret in a message. May import `model`, `errors`, `store.config`, `store.ident`,
`store.locate`, `store.record_format`, `store.packread`, `store.packwrite`, `sanitize.scan`.
"""

from __future__ import annotations

import random
import time
from dataclasses import dataclass, field
from importlib import resources
from typing import Callable, Iterable, Iterator, Mapping

import pygit2

from git_memory.errors import ConcurrentUpdate, GitMemoryError, NotARepository
from git_memory.model import Record
from git_memory.sanitize.scan import redact_string, refuse_files, refuse_secrets
from git_memory.store import config
from git_memory.store.ident import ident
from git_memory.store.incoming import Screened, remember, screen
from git_memory.store.layout import MODE_BLOB
from git_memory.store.locate import SESSIONS_REF, GitDirs, adoptable_remote, discover, memory_ref
from git_memory.store.packread import PackFiles
from git_memory.store.packwrite import PackStream, write_blobs
from git_memory.store.record_format import dump_record, record_path
from git_memory.store.rewrite import purged_blobs, rewrite

RECORD_ROOTS = ("entries", "records")
SESSION_ROOTS = ("sessions",)
# (tip the checks saw, tip the commit will go on, records) -> the records still to write
Recheck = Callable[[str | None, str | None, list[Record]], list[Record]]
# (tip the checks saw, tip the commit will go on) -> whether anything is left to write
StagedRecheck = Callable[[str | None, str], bool]
MAX_ATTEMPTS = 60
PACK_THRESHOLD = 500  # from this many new files on, write one pack instead of loose objects


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


_ZERO = "0" * 40


def _info(commit: pygit2.Commit) -> CommitInfo:
    return CommitInfo(str(commit.id), commit.commit_time, commit.author.name, commit.message,
                      [str(p) for p in commit.parent_ids])


def _deltas(diff: pygit2.Diff) -> list[Delta]:
    out = []
    for delta in diff.deltas:
        path = delta.new_file.path or delta.old_file.path
        out.append(Delta(delta.status_char(), path, str(delta.old_file.id), str(delta.new_file.id)))
    return out


def _count_between(
    repo: pygit2.Repository, old: pygit2.Object | None, new: pygit2.Object | None
) -> tuple[int, int]:
    """(files added or changed, files removed) between two tree entries (None: absent)."""
    if old is not None and new is not None and old.id == new.id:
        return 0, 0
    old_is_tree = old is not None and old.type_str == "tree"
    new_is_tree = new is not None and new.type_str == "tree"
    if old_is_tree and new_is_tree:
        assert isinstance(old, pygit2.Tree) and isinstance(new, pygit2.Tree)
        added = removed = 0
        names = {entry.name for entry in old} | {entry.name for entry in new}
        for name in filter(None, names):
            more, fewer = _count_between(repo, old[name] if name in old else None,
                                         new[name] if name in new else None)
            added, removed = added + more, removed + fewer
        return added, removed
    if old is not None and new is not None and not old_is_tree and not new_is_tree:
        return 1, 0  # one file changed
    return _files_in(new), _files_in(old)  # added or removed whole (or a file became a folder)


def _files_in(obj: pygit2.Object | None) -> int:
    if obj is None:
        return 0
    if obj.type_str != "tree":
        return 1
    assert isinstance(obj, pygit2.Tree)
    return sum(_files_in(entry) for entry in obj)


def _resource(name: str) -> bytes:
    return resources.files("git_memory.resources").joinpath(name).read_bytes()


class MemoryBranch:
    """One repository's memory branch, or, with `ref` and `roots`, another ref kept the
    same way (the session archive: `session_archive()`). `seed`: a new branch starts
    with the README and .gitattributes of the memory branch."""

    def __init__(
        self, dirs: GitDirs | None = None, ref: str | None = None,
        roots: tuple[str, ...] = RECORD_ROOTS, seed: bool = True,
    ) -> None:
        self.dirs = dirs or discover()
        try:
            self.repo = pygit2.Repository(str(self.dirs.git_dir))
        except pygit2.GitError as exc:
            raise NotARepository(f"cannot open repository: {exc}") from None
        self.ref = ref or memory_ref(self.dirs)
        self.roots = roots
        self.seed = seed

    # -- reading -------------------------------------------------------------
    def _local_tip(self) -> str | None:
        try:
            ref = self.repo.references.get(self.ref)
        except pygit2.GitError:
            ref = None
        return str(ref.resolve().target) if ref is not None else None

    def tip(self) -> str | None:
        """The local memory commit, else the remote-tracking one a clone brought."""
        local = self._local_tip()
        if local is not None:
            return local
        adopt = adoptable_remote(self.dirs, self.ref)
        return adopt[1] if adopt else None

    def local_tip(self) -> str | None:
        """The ref itself only (not a remote-tracking copy)."""
        return self.ref_target(self.ref)

    def ref_target(self, name: str) -> str | None:
        """The commit any ref points at, or None when it does not exist."""
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
        names = {key[7:].rpartition(".")[0] for key in config.keys(self.dirs)
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
        """Many blobs' bytes, in the order asked (an index build reads every record
        file); a blob that cannot be read gives the name of its error instead."""
        read = self.repo.odb.read
        out: list[bytes | str] = []
        with PackFiles(self.dirs.common_dir / "objects") as packs:
            for blob in blobs:
                data = packs.read(blob)  # straight from the pack when it is a plain blob there
                if data is None:
                    try:
                        data = read(blob)[1]
                    except (KeyError, ValueError, OSError) as exc:
                        out.append(exc.__class__.__name__)
                        continue
                out.append(data)
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
        """libgit2's diff of two commits' trees (`old` None: everything of `new` added).

        It skips identical subtrees, so it stays cheap at 100k records; unlike
        `changes`, a modified file is one `M` delta."""
        new_tree = self.repo[new].peel(pygit2.Tree)
        if old is None:
            return _deltas(new_tree.diff_to_tree(swap=True))
        return _deltas(self.repo[old].peel(pygit2.Tree).diff_to_tree(new_tree))

    def count_changes(self, old: str | None, new: str) -> tuple[int, int]:
        """(record files added or changed, record files removed) from `old` to `new`, the
        counts of `diff` under the record roots, from a walk of the two trees that skips
        equal subtrees and holds no list: `log` at a million records stays small."""
        new_tree = self.repo[new].peel(pygit2.Tree)
        old_tree = self.repo[old].peel(pygit2.Tree) if old else None
        added = removed = 0
        for root in self.roots:
            before = old_tree[root] if old_tree is not None and root in old_tree else None
            after = new_tree[root] if root in new_tree else None
            more, fewer = _count_between(self.repo, before, after)
            added, removed = added + more, removed + fewer
        return added, removed

    def iter_files(self, commit: str | None = None) -> Iterator[FileChange]:
        """Every record file (under entries/ and records/) in a memory commit."""
        commit = commit or self.tip()
        if commit is None:
            return
        tree = self.repo[commit].peel(pygit2.Tree)
        for root in self.roots:
            if root in tree:
                yield from self._walk(tree[root], root)

    def count_files(self, commit: str | None = None) -> int:
        """About how many record files a memory commit holds, for progress only: a
        folder whose first and last items are files counts by its length, unread."""
        commit = commit or self.tip()
        if commit is None:
            return 0
        tree = self.repo[commit].peel(pygit2.Tree)
        return sum(_count(tree[root]) for root in self.roots if root in tree)

    def newest_files(self, commit: str | None, want: int, scan: int = 50000,
                     prefix: str = "handoff-") -> tuple[list[FileChange], list[FileChange]]:
        """The record files of the newest days (dated folders, newest first) until
        `want` entries are in, with every curation record of those days; and, from
        the names of up to `scan` older entry files, those starting with `prefix` (the
        handoffs). Reads trees only: what a reader without the index can afford."""
        commit = commit or self.tip()
        if commit is None:
            return [], []
        tree = self.repo[commit].peel(pygit2.Tree)
        days: dict[str, dict[str, pygit2.Object]] = {}
        for root in self.roots:
            if root in tree:
                for day, folder in _day_folders(tree[root], root):
                    days.setdefault(day, {})[root] = folder
        newest: list[FileChange] = []
        named: list[FileChange] = []
        entries = 0
        for day in sorted(days, reverse=True):
            for root, folder in days[day].items():
                where = f"{root}/{day}"
                if entries < want:
                    found = list(self._walk(folder, where))
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

    def _walk(self, tree: pygit2.Object, prefix: str) -> Iterator[FileChange]:
        for item in tree:  # type: ignore[attr-defined]
            path = f"{prefix}/{item.name}"
            if item.type_str == "tree":
                yield from self._walk(item, path)
            else:  # symlinks and submodules too: the index counts them as bad files
                yield FileChange(path, str(item.id), int(item.filemode))

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
            removed.append(FileChange(path, str(old.id), _mode(old)))
        if not new_is_tree and new is not None:
            added.append(FileChange(path, str(new.id), _mode(new)))
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
    def signatures(self) -> tuple[pygit2.Signature, pygit2.Signature]:
        """Author and committer, exactly as git would record them (`git var`);
        IdentityUnknown, with git's advice, when git knows no identity."""
        return self.signature(), self._signature("COMMITTER")

    def signature(self) -> pygit2.Signature:
        """The author git would record."""
        return self._signature("AUTHOR")

    def _signature(self, role: str) -> pygit2.Signature:
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
        local = self._local_tip()
        if local is not None:
            return local
        adopt = adoptable_remote(self.dirs, self.ref)
        if adopt is None:
            return None
        self._adopt(adopt)
        ref = self.repo.references.get(self.ref)
        return str(ref.resolve().target) if ref is not None else None

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
        scanned: Iterable[Record] = (),
        recheck: Recheck | None = None,
        checked: str | None = None,
    ) -> str:
        """Add record files in one commit; retry while other writers move the ref.

        `written`, when given, is filled with each new file's path and blob id, so a
        caller holding the records can index them without reading them back.
        A secret in any field or in the message raises SecretFound; nothing is written
        (`scanned`: records the writer's `prepare` scanned already, see `refuse_secrets`).
        `recheck(old, new, records)`, when given, is called whenever the tip the commit
        would go on (`new`) is not the one the caller's checks saw (`checked`, then
        the last `new`): it returns the records still to write, so a check such as
        "is this text new?" holds against the very tip the compare-and-swap commits
        on. When nothing is left to write, the tip is returned and no commit made."""
        records = list(records)
        # Before any blob is written, rechecked or not: recheck only ever drops records.
        refuse_secrets(records, _message(message, trailers), scanned)
        if recheck is not None:
            return self._append_rechecked(records, message, trailers, written,
                                          recheck, checked)
        files = {}
        for record in records:
            record.path = record.path or record_path(record)
            files[record.path] = dump_record(record).encode("utf-8")
        commit = self.write_files(files, message, trailers, written, checked=True)
        assert commit is not None  # only skip_unchanged writes nothing
        return commit

    def _append_rechecked(
        self, pending: list[Record], message: str, trailers: list[tuple[str, str]] | None,
        written: dict[str, str] | None, recheck: Recheck, checked: str | None,
    ) -> str:
        sigs = self.signatures()  # first: with no identity, nothing is written
        blobs = self._blobs_for(pending, {})
        text = _message(message, trailers)
        for attempt in range(MAX_ATTEMPTS):
            parent = self._write_parent()
            if parent != checked:
                before = {id(record) for record in pending}
                pending = recheck(checked, parent, pending)
                checked = parent
                # Records the recheck made (a reinforce event) get the same secret check.
                refuse_secrets([r for r in pending if id(r) not in before], text)
                if not pending and parent is not None:
                    return parent
                blobs = self._blobs_for(pending, blobs)
            tree = self._tree_with(parent, blobs)
            try:
                commit = self._commit(self.ref, parent, tree, text, parent is None, sigs)
            except ConcurrentUpdate:
                _pause(attempt)
                continue
            if written is not None:
                written.update((path, str(oid)) for path, oid in blobs.items())
            return commit
        raise self._gave_up()

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
        """A pack to write many blobs into as they come (a bulk import; `append_staged`)."""
        return PackStream(self.dirs.common_dir)

    def append_staged(
        self, folders: Mapping[str, list[bytes]], message: str, checked: str | None,
        recheck: StagedRecheck,
    ) -> str | None:
        """One commit adding the files of `folders` (folder path -> entries, each the
        20-byte blob id, 26 bytes the writer keeps for itself, then the file name in
        UTF-8; an empty entry is skipped), whose blobs are written already
        (`pack_stream`). Retries while other writers move the ref, calling `recheck`
        first whenever the tip is not the one the caller's checks saw (it may empty
        entries in place); None when nothing is left to write.

        The records behind the entries were scanned field by field as they were
        prepared (see `refuse_secrets`); the message is scanned here."""
        sigs = self.signatures()  # first: with no identity, nothing is written
        text = _message(message, None)
        refuse_secrets([], text)
        for attempt in range(MAX_ATTEMPTS):
            parent = self._write_parent()
            if parent != checked:
                if parent is not None and not recheck(checked, parent):
                    return None
                checked = parent
            base = None if parent is None else self.repo[parent].peel(pygit2.Tree)
            if base is None and self.seed:
                seeds = {p: self.repo.create_blob(d) for p, d in self._base_files().items()}
                base = self.repo[graft(self.repo, None, seeds)].peel(pygit2.Tree)
            tree = graft_folders(self.repo, base, folders)
            try:
                return self._commit(self.ref, parent, tree, text, parent is None, sigs)
            except ConcurrentUpdate:
                _pause(attempt)
        raise self._gave_up()

    def write_files(
        self,
        files: Mapping[str, bytes],
        message: str,
        trailers: list[tuple[str, str]] | None = None,
        written: dict[str, str] | None = None,
        skip_unchanged: bool = False,
        checked: bool = False,
    ) -> str | None:
        """Add or replace files (path -> bytes) in one commit on the ref; retry while
        other writers move it. With `skip_unchanged`, nothing is written (None) when
        the ref already holds exactly these files. A file or message holding a secret
        raises SecretFound first (`checked`: `append` scanned them as records already)."""
        sigs = self.signatures()  # first: with no identity, nothing is written
        if not checked:
            refuse_files(files, _message(message, trailers))
        blobs = self._write_blobs(dict(files))
        if written is not None:
            written.update((path, str(oid)) for path, oid in blobs.items())
        text = _message(message, trailers)
        for attempt in range(MAX_ATTEMPTS):
            parent = self._write_parent()
            tree = self._tree_with(parent, blobs)
            if skip_unchanged and parent is not None and tree == self.repo[parent].peel(pygit2.Tree).id:
                return None
            try:
                return self._commit(self.ref, parent, tree, text, parent is None, sigs)
            except ConcurrentUpdate:
                _pause(attempt)
        raise self._gave_up()

    def commit_once(
        self, ref: str, parent: str, files: Mapping[str, bytes], message: str,
        trailers: list[tuple[str, str]] | None = None, create: bool = False,
    ) -> str:
        """One commit of `files` on `parent`, moving (or with `create`, creating) `ref`
        only if it still points at `parent` (does not exist); ConcurrentUpdate if not.
        No retry: for writes that were reviewed against `parent` (curation proposals).
        A file or message holding a secret raises SecretFound first."""
        sigs = self.signatures()  # first: with no identity, nothing is written
        refuse_files(files, _message(message, trailers))
        blobs = self._write_blobs(dict(files))
        tree = self._tree_with(parent, blobs)
        return self._commit(ref, parent, tree, _message(message, trailers), create, sigs)

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

    def _name(self) -> str:
        return "the memory branch" if self.seed else self.ref

    def _gave_up(self) -> ConcurrentUpdate:
        return ConcurrentUpdate(f"{self._name()} kept changing; gave up after {MAX_ATTEMPTS} attempts")

    def _write_blobs(self, files: dict[str, bytes]) -> dict[str, pygit2.Oid]:
        if len(files) < PACK_THRESHOLD:
            return {path: self.repo.create_blob(data) for path, data in files.items()}
        ids = write_blobs(self.dirs.common_dir, list(files.values()))
        return {path: pygit2.Oid(hex=oid) for path, oid in zip(files, ids)}

    def _tree_with(self, parent: str | None, blobs: Mapping[str, pygit2.Oid]) -> pygit2.Oid:
        if parent is None:
            base = None
            if self.seed:
                seeds = {p: self.repo.create_blob(d) for p, d in self._base_files().items()}
                blobs = {**seeds, **blobs}
        else:
            base = self.repo[parent].peel(pygit2.Tree)
        return graft(self.repo, base, blobs)

    def graft_onto(self, commit: str, files: Mapping[str, str]) -> str:
        """The tree of `commit` with `files` (path -> blob id) added or replaced."""
        return str(graft(self.repo, self.repo[commit].peel(pygit2.Tree), files))

    def rewrite_without(self, tip: str | None, blobs: set[str]) -> tuple[str | None, int]:
        """The history of `tip` without any file holding one of `blobs` (store.rewrite):
        (new tip, commits rewritten). Moves no ref (the caller checks and moves them)."""
        return rewrite(self.repo, tip, blobs)

    def purged_blobs(self, commit: str | None) -> set[str]:
        """The blobs that purge records in `commit` name (store.rewrite)."""
        return purged_blobs(self.repo, commit)

    def holds_object(self, sha: str) -> bool:
        return sha in self.repo.odb

    def screen(self, theirs: str, roots: tuple[str, ...]) -> Screened:
        """`theirs` checked against the record layout before it is merged (store.incoming)."""
        return screen(self.repo, self.local_tip(), theirs, roots)

    # -- moving refs -----------------------------------------------------------
    def move_ref(self, expected: str | None, new: str, message: str) -> bool:
        """Point the ref at `new` only if it still points at `expected`; False if not.

        A ref transaction: other writers (append, another sync) wait or retry while
        we hold the lock."""
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


def _count(obj: pygit2.Object) -> int:
    if obj.type_str != "tree":
        return 1
    tree: pygit2.Tree = obj  # type: ignore[assignment]
    size = len(tree)
    if size and tree[0].type_str != "tree" and tree[size - 1].type_str != "tree":
        return size
    return sum(_count(item) for item in tree)  # type: ignore[arg-type]


def _day_folders(obj: pygit2.Object, root: str) -> Iterator[tuple[str, pygit2.Object]]:
    """The `YYYY/MM/DD` folders under a record root (anything else is skipped here:
    the index's full build counts it as a bad file)."""
    if obj.type_str != "tree":
        return
    for year in obj:  # type: ignore[attr-defined]
        if year.type_str != "tree":
            continue
        for month in year:
            if month.type_str != "tree":
                continue
            for day in month:
                if day.type_str == "tree":
                    yield f"{year.name}/{month.name}/{day.name}", day


def _mode(obj: pygit2.Object) -> int:
    mode = getattr(obj, "filemode", None)
    return int(mode) if mode is not None else MODE_BLOB


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
        if name == "":  # graft_folders' packed files
            _insert_packed(builder, base, value, where)
            continue
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


STAGED_NAME = 46  # where the file name starts in an `append_staged` entry


def graft_folders(
    repo: pygit2.Repository, base: pygit2.Tree | None, folders: Mapping[str, list[bytes]]
) -> pygit2.Oid:
    """`graft` for a bulk write: `folders` maps a folder path to its new files, packed as
    `append_staged` says, so a million files never become a million Python objects
    more than their packed bytes."""
    nested: dict = {}
    for folder, items in folders.items():
        node = nested
        for part in folder.split("/"):
            node = node.setdefault(part, {})
            if not isinstance(node, dict):
                raise GitMemoryError(f"path clash on the memory branch at {folder}")
        node.setdefault("", []).append(items)  # "" is never a path part: the files here
    return _build(repo, base, nested, "")


def _insert_packed(
    builder: pygit2.TreeBuilder, base: pygit2.Tree | None, lists: list[list[bytes]], where: str
) -> None:
    for items in lists:
        for item in items:
            if not item:
                continue
            name = item[STAGED_NAME:].decode("utf-8")
            if base is not None and name in base and isinstance(base[name], pygit2.Tree):
                raise GitMemoryError(f"path clash on the memory branch at {where}{name}")
            builder.insert(name, pygit2.Oid(raw=item[:20]), pygit2.GIT_FILEMODE_BLOB)

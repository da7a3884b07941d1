"""The record files read-only sources add to the local branch (the index's overlay): for
each path the local branch lacks, the first source's file. A source the local branch
contains adds nothing (what it dropped since stays dropped), and no purged blob is
taken from a source."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable

from git_memory.store.branch import FileChange, MemoryBranch
from git_memory.store.locate import GitDirs
from git_memory.store.rewrite import applied
from git_memory.store.sources import Source


@dataclass(frozen=True)
class OverlayFile:
    """One record file a source adds: the file, where it comes from, and its reader."""

    change: FileChange
    key: str  # the source's key (store.sources)
    reader: MemoryBranch  # reads the blob (personal memory is another repository)


def overlay(dirs: GitDirs, local_tip: str | None, found: Iterable[Source]) -> dict[str, OverlayFile]:
    """path -> the file a source adds to the local branch at `local_tip`."""
    local = MemoryBranch(dirs)
    readers: dict[str, MemoryBranch] = {}
    out: dict[str, OverlayFile] = {}
    purged: set[str] | None = None
    for source in found:
        same_repo = source.dirs.common_dir == dirs.common_dir
        reader = local if same_repo else readers.setdefault(
            str(source.dirs.common_dir), MemoryBranch(source.dirs, ref=source.ref))
        if not reader.has_commit(source.tip):
            continue  # a ref to a commit we do not hold (a broken clone): skip, never fail
        files = _files_of(local, reader, same_repo, local_tip, source.tip)
        if files and purged is None:
            # The purges this clone applied count even when its branch lost their record.
            purged = set(applied(dirs)) | set(local.purge_targets(local_tip))
        for change in files:
            if change.path in out or change.blob in (purged or ()):
                continue
            out[change.path] = OverlayFile(change, source.key, reader)
    return out


def _files_of(
    local: MemoryBranch, reader: MemoryBranch, same_repo: bool, local_tip: str | None, tip: str,
) -> list[FileChange]:
    """The record files of `tip` that the local branch at `local_tip` lacks (by path)."""
    if local_tip is None:
        return list(reader.iter_files(tip))
    if same_repo:
        if local.is_ancestor(tip, local_tip):
            return []
        added, removed = local.changes(local_tip, tip)
        changed = {f.path for f in removed}  # the same path changed on one side: ours stays
        return [f for f in added if f.path not in changed]
    # Another repository (personal memory): no common tree to diff against, so each
    # of its paths is looked up in ours (personal memory is small; lookups are cheap).
    return [f for f in reader.iter_files(tip) if local.blob_at(local_tip, f.path) is None]

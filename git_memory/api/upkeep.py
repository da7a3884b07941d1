"""The upkeep of a memory (doctor, capture of commits and transcripts, the secret scan, import,
sync) in one namespace that `Memory` imports on first use: with their modules at the top of
`api/memory.py`, `git memory add` took 1.25x its CPU time."""

from __future__ import annotations

from typing import Any

from git_memory.agents import embedding
from git_memory.agents.session_capture import capture_file
from git_memory.api import health
from git_memory.capture.history import capture_range
from git_memory.capture.history import RangeReport
from git_memory.githooks.push import PushFinding, scan_commits
from git_memory.store.branch import MemoryBranch
from git_memory.store.commits import Objects
from git_memory.store.locate import GitDirs
from git_memory.sync import engine
from git_memory.sync.engine import SyncReport
from git_memory.write.bulk import BulkOutcome, write_bulk


def scan(dirs: GitDirs, rev_range: str | None) -> tuple[int, list[PushFinding]]:
    branch = MemoryBranch(dirs)
    objects = Objects(dirs)
    commits = objects.in_range(rev_range, branch.tip())
    return len(commits), scan_commits(objects, commits, branch.ref)


# The writes below start the background embedding when they brought new entries (detached:
# none of them waits for a transformer; docs/recall.md).

def capture(dirs: GitDirs, *args: Any, **kwargs: Any) -> RangeReport:
    found = capture_range(dirs, *args, **kwargs)
    if found.outcome.added:
        embedding.start(dirs)
    return found


def import_(dirs: GitDirs, *args: Any, **kwargs: Any) -> BulkOutcome:
    done = write_bulk(dirs, *args, **kwargs)
    if done.added:
        embedding.start(dirs)
    return done


def _received(report: SyncReport, dirs: GitDirs) -> SyncReport:
    if report.received:
        embedding.start(dirs)
    return report


def sync(dirs: GitDirs, remote: str | None) -> SyncReport:
    return _received(engine.sync(dirs, remote), dirs)


def pull(dirs: GitDirs, remote: str | None) -> SyncReport:
    return _received(engine.pull(dirs, remote), dirs)


class Upkeep:
    doctor = staticmethod(health.report)
    capture = staticmethod(capture)
    import_transcript = staticmethod(capture_file)
    scan = staticmethod(scan)
    import_ = staticmethod(import_)
    sync = staticmethod(sync)
    pull = staticmethod(pull)
    push = staticmethod(engine.push)

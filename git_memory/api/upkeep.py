"""The upkeep of a memory (doctor, capture of commits and transcripts, the secret scan, import,
sync) in one namespace that `Memory` imports on first use: with their modules at the top of
`api/memory.py`, `git memory add` took 1.25x its CPU time."""

from __future__ import annotations

from git_memory.agents.session_capture import capture_file
from git_memory.api import health
from git_memory.capture.history import capture_range
from git_memory.githooks.push import PushFinding, scan_commits
from git_memory.store.branch import MemoryBranch
from git_memory.store.commits import Objects
from git_memory.store.locate import GitDirs
from git_memory.sync import engine
from git_memory.write.bulk import write_bulk


def scan(dirs: GitDirs, rev_range: str | None) -> tuple[int, list[PushFinding]]:
    branch = MemoryBranch(dirs)
    objects = Objects(dirs)
    commits = objects.in_range(rev_range, branch.tip())
    return len(commits), scan_commits(objects, commits, branch.ref)


class Upkeep:
    doctor = staticmethod(health.report)
    capture = staticmethod(capture_range)
    import_transcript = staticmethod(capture_file)
    scan = staticmethod(scan)
    import_ = staticmethod(write_bulk)
    sync = staticmethod(engine.sync)
    pull = staticmethod(engine.pull)
    push = staticmethod(engine.push)

"""Fetching `memory.sources` (docs/sync.md) into `refs/git-memory/sources/NAME`, outside
`refs/heads` and `refs/remotes`, so no push, branch listing or sync of ours carries them. A
source that cannot be fetched is reported and the others go on."""

from __future__ import annotations

from dataclasses import dataclass

from git_memory.store.locate import DEFAULT_REF, GitDirs
from git_memory.store.sources import SOURCES_NS, configured
from git_memory.sync.gitcmd import reason, run_git


@dataclass
class Fetched:
    name: str
    location: str
    ok: bool
    detail: str = ""  # why not, or that it has no memory branch yet


def fetch_all(dirs: GitDirs) -> list[Fetched]:
    """Fetch every configured source's memory branch; one result per source."""
    out = []
    for name, location in configured(dirs):
        done = run_git(dirs, "fetch", "--no-tags", "--quiet", "--", location,
                       f"+{DEFAULT_REF}:{SOURCES_NS}{name}")
        if done.returncode == 0:
            out.append(Fetched(name, location, True))
        elif "couldn't find remote ref" in done.stderr:
            out.append(Fetched(name, location, False, "it has no memory branch yet"))
        else:
            out.append(Fetched(name, location, False, reason(done.stderr)))
    return out

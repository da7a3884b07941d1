"""The pre-push check: no secret leaves this machine on the memory branch.

Git gives the hook one line per ref: `<local ref> <local sha> <remote ref>
<remote sha>`. When the memory branch is among them, every file that the
commits being pushed add or change is scanned with the sanitizer's detectors
(the whole file, front matter included), so a record written by hand with
plain git is caught as surely as one that slipped past an old version.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, Iterable

from git_memory.sanitize import audit
from git_memory.sanitize.pipeline import secret_rule
from git_memory.store.locate import GitDirs, memory_ref

ZERO = "0" * 40
_ID = re.compile(r"^id:\s*['\"]?([0-9A-Za-z]+)", re.MULTILINE)


@dataclass
class PushFinding:
    ref: str
    commit: str
    path: str
    rule: str
    entry_id: str | None


@dataclass
class PushedRef:
    local_ref: str
    local_sha: str
    remote_ref: str
    remote_sha: str


def parse_lines(lines: Iterable[str]) -> list[PushedRef]:
    out: list[PushedRef] = []
    for line in lines:
        parts = line.split()
        if len(parts) == 4:
            out.append(PushedRef(*parts))
    return out


def _commits(repo: Any, pushed: PushedRef, dirs: GitDirs, ref: str) -> list[Any]:
    """The commits this push sends: local_sha minus what the remote already has."""
    import pygit2

    from git_memory.store.locate import remote_tracking_refs

    walker = repo.walk(pushed.local_sha, pygit2.enums.SortMode.TOPOLOGICAL)
    hidden = [pushed.remote_sha] if pushed.remote_sha != ZERO else []
    hidden = [sha for sha in hidden if sha in repo]
    if not hidden:  # a new branch, or a remote tip we never fetched: trust only what we know
        hidden = [sha for sha in remote_tracking_refs(dirs, ref).values() if sha in repo]
    for sha in hidden:
        walker.hide(sha)
    return list(walker)


def _new_blobs(repo: Any, commit: Any) -> Iterable[tuple[str, str]]:
    """(path, blob id) of every file the commit adds or changes against its parents."""
    if not commit.parents:
        diff = commit.tree.diff_to_tree(swap=True)
        for delta in diff.deltas:
            yield delta.new_file.path, str(delta.new_file.id)
        return
    for parent in commit.parents:
        for delta in repo.diff(parent.tree, commit.tree).deltas:
            if delta.new_file.id and str(delta.new_file.id) != ZERO:
                yield delta.new_file.path, str(delta.new_file.id)


def scan_push(dirs: GitDirs, pushed: list[PushedRef]) -> list[PushFinding]:
    """Findings (one per offending file) for the memory-branch refs in `pushed`."""
    ref = memory_ref(dirs)
    relevant = [
        p for p in pushed
        if p.local_sha != ZERO and ref in (p.local_ref, p.remote_ref)
    ]
    if not relevant:
        return []  # the common case: no pygit2 import, the push goes on at once
    import pygit2

    repo = pygit2.Repository(str(dirs.git_dir))
    findings: list[PushFinding] = []
    seen: set[str] = set()
    for item in relevant:
        for commit in _commits(repo, item, dirs, ref):
            for path, blob in _new_blobs(repo, commit):
                if blob in seen:
                    continue
                seen.add(blob)
                text = bytes(repo[blob].data).decode("utf-8", "replace")  # type: ignore[attr-defined]
                rule = secret_rule(text)
                if rule:
                    match = _ID.search(text)
                    findings.append(PushFinding(
                        item.remote_ref, str(commit.id), path, rule, match.group(1) if match else None
                    ))
    audit.write(dirs, [
        audit.Action(f.rule, "refused", f"push of {f.ref}: {f.path} in commit {f.commit[:12]}",
                     "pre-push", f.entry_id or "")
        for f in findings
    ])
    return findings

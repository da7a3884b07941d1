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


def _commits(objects: Any, pushed: PushedRef, dirs: GitDirs, ref: str) -> list[str]:
    """The commits this push sends: local_sha minus what the remote already has."""
    from git_memory.store.locate import remote_tracking_refs

    hidden = [pushed.remote_sha] if pushed.remote_sha != ZERO else []
    hidden = [sha for sha in hidden if objects.has(sha)]
    if not hidden:  # a new branch, or a remote tip we never fetched: trust only what we know
        hidden = [sha for sha in remote_tracking_refs(dirs, ref).values() if objects.has(sha)]
    return list(objects.commits(pushed.local_sha, hidden))


def scan_push(dirs: GitDirs, pushed: list[PushedRef]) -> list[PushFinding]:
    """Findings (one per offending file) for the memory-branch refs in `pushed`."""
    ref = memory_ref(dirs)
    relevant = [
        p for p in pushed
        if p.local_sha != ZERO and ref in (p.local_ref, p.remote_ref)
    ]
    if not relevant:
        return []  # the common case: no pygit2 import, the push goes on at once
    from git_memory.store.commits import Objects  # pygit2: only for a memory push

    objects = Objects(dirs)
    findings: list[PushFinding] = []
    seen: set[str] = set()
    for item in relevant:
        for commit in _commits(objects, item, dirs, ref):
            for file in objects.new_files(commit):
                if file.blob in seen:
                    continue
                seen.add(file.blob)
                text = objects.read_blob(file.blob).decode("utf-8", "replace")
                rule = secret_rule(text)
                if rule:
                    match = _ID.search(text)
                    findings.append(PushFinding(
                        item.remote_ref, commit, file.path, rule, match.group(1) if match else None
                    ))
    audit.write(dirs, [
        audit.Action(f.rule, "refused", f"push of {f.ref}: {f.path} in commit {f.commit[:12]}",
                     "pre-push", f.entry_id or "")
        for f in findings
    ])
    return findings

"""The pre-push check: no secret leaves this machine on the memory branch.

Git gives the hook one line per ref: `<local ref> <local sha> <remote ref>
<remote sha>`. When the memory branch is among them, every file that the
commits being pushed add or change is scanned with the sanitizer's detectors
(every field of the record, or the whole file when it is not one), and so is
every commit message, so a record written by hand with plain git is caught as
surely as one that slipped past an old version. `scan_commits` is shared with
`git memory scan`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Iterable

from git_memory.sanitize import audit
from git_memory.sanitize.scan import scan_file, scan_message
from git_memory.store.locate import GitDirs, memory_ref

ZERO = "0" * 40
MESSAGE = "(commit message)"


@dataclass
class PushFinding:
    ref: str
    commit: str
    path: str  # the record file, or MESSAGE
    rule: str
    entry_id: str | None  # the record's id, when the file is a record
    field: str = ""
    line: int = 1
    digest: str = ""

    def where(self) -> str:
        return f"{self.field} line {self.line}" if self.line > 1 else self.field


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


def scan_commits(objects: Any, commits: Iterable[str], ref: str) -> list[PushFinding]:
    """Findings for the files these commits add or change and for their messages
    (`objects`: a `store.commits.Objects`)."""
    findings: list[PushFinding] = []
    seen: set[str] = set()
    for commit in commits:
        for found in scan_message(objects.message(commit)):
            findings.append(PushFinding(ref, commit, MESSAGE, found.rule, None,
                                        "message", found.line, found.digest))
        for file in objects.new_files(commit):
            if file.blob in seen:
                continue
            seen.add(file.blob)
            for found in scan_file(file.path, objects.read_blob(file.blob)):
                findings.append(PushFinding(ref, commit, file.path, found.rule,
                                            found.record or None, found.field, found.line,
                                            found.digest))
    return findings


def scan_push(dirs: GitDirs, pushed: list[PushedRef]) -> list[PushFinding]:
    """Findings (one per offending field) for the memory-branch refs in `pushed`."""
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
    for item in relevant:
        findings += scan_commits(objects, _commits(objects, item, dirs, ref), item.remote_ref)
    audit.write(dirs, [
        audit.Action(f.rule, "refused", f"push of {f.ref}: {f.path} {f.where()} (sha256"
                     f" {f.digest}) in commit {f.commit[:12]}", "pre-push", f.entry_id or "")
        for f in findings
    ])
    return findings


def way_out(finding: PushFinding) -> str:
    """The commands that remove what the push would carry, exactly as they must be typed."""
    if finding.entry_id:
        return (f"git memory redact {finding.entry_id} --reason 'it holds a secret'"
                f" && git memory purge {finding.entry_id} --yes")
    return f"git update-ref {finding.ref} {finding.commit[:12]}^"

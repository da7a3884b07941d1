"""The pre-push check: no secret leaves this machine on the memory branch.

Every file the pushed memory commits add or change, and every commit message, is scanned,
so a record written by hand with plain git is caught too. Only what the destination already
has is skipped: what another remote holds is no excuse (a secret pushed to `origin` with
plain git must not reach a mirror). `ScanCache` keeps that cheap.
"""

from __future__ import annotations

import hashlib
import os
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterable

from git_memory.sanitize import audit
from git_memory.sanitize.scan import scan_file, scan_message
from git_memory.store.locate import GitDirs, memory_ref, read_ref, remote_tracking_refs


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
    """Git's lines: `<local ref> <local sha> <remote ref> <remote sha>`."""
    return [PushedRef(*parts) for parts in (line.split() for line in lines) if len(parts) == 4]


def _commits(objects: Any, pushed: PushedRef) -> list[str]:
    """The commits this push sends: local_sha minus what this destination already has
    (the remote sha git hands the hook, when we hold it). Nothing else is hidden: a
    remote-tracking ref says what some remote holds, not what this one does."""
    known = pushed.remote_sha != ZERO and objects.has(pushed.remote_sha)
    return list(objects.commits(pushed.local_sha, [pushed.remote_sha] if known else []))


CACHE_NAME = "scan-cache"
_ID = re.compile(r"[0-9a-f]{40}(?:[0-9a-f]{24})?")  # a SHA-1 or SHA-256 object id


def scanner_version() -> str:
    """A hash of the scanner's source (the detectors, their rules, the field scan and the
    cleaning before it): a change to any rule makes every cached result stale."""
    here = Path(__file__).resolve().parents[1] / "sanitize"
    digest = hashlib.sha256()
    for path in sorted(here.glob("*.py")):
        digest.update(path.name.encode("utf-8") + b"\0" + path.read_bytes())
    return digest.hexdigest()[:16]


class ScanCache:
    """The ids of the blobs, and of the commits whose message and new files were all clean,
    the scan found clean: the scanner's version on the first line, then one id a line
    (never any text). A file written by another version is replaced."""

    def __init__(self, dirs: GitDirs | None) -> None:
        self.path = dirs.memory_dir / CACHE_NAME if dirs is not None else None
        self.version = scanner_version() if dirs is not None else ""
        self.clean: set[str] = set()
        self.added: list[str] = []
        self._stale = False
        if self.path is None:
            return
        try:
            lines = self.path.read_text(encoding="ascii").split("\n")
        except (OSError, ValueError):
            return
        if lines[0] == self.version:
            self.clean = {line for line in lines[1:] if _ID.fullmatch(line)}
        else:
            self._stale = True

    def __contains__(self, oid: str) -> bool:
        return oid in self.clean

    def add(self, oid: str) -> None:
        if oid not in self.clean:
            self.clean.add(oid)
            self.added.append(oid)

    def save(self) -> None:
        """Append the new ids (one write call: lines stay whole when two pushes run at
        once); a stale or missing file is replaced whole. Never fails a push."""
        if self.path is None or not (self.added or self._stale):
            return
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            if self._stale or not self.path.exists():
                tmp = self.path.with_name(f"{CACHE_NAME}.{os.getpid()}.tmp")
                tmp.write_text("\n".join([self.version, *sorted(self.clean)]) + "\n",
                               encoding="ascii")
                os.replace(tmp, self.path)
            else:
                fd = os.open(self.path, os.O_WRONLY | os.O_APPEND)
                try:
                    os.write(fd, "".join(f"{oid}\n" for oid in self.added).encode("ascii"))
                finally:
                    os.close(fd)
        except OSError:
            return
        self.added, self._stale = [], False


def scan_commits(objects: Any, commits: Iterable[str], ref: str,
                 cache: ScanCache | None = None) -> list[PushFinding]:
    """Findings for the files these commits add or change and for their messages
    (`objects`: a `store.commits.Objects`); what `cache` holds is not read again."""
    cache = cache if cache is not None else ScanCache(None)
    findings: list[PushFinding] = []
    dirty: set[str] = set()  # blobs found holding a secret in this scan
    for commit in commits:
        if commit in cache:
            continue
        clean = True
        for found in scan_message(objects.message(commit)):
            findings.append(PushFinding(ref, commit, MESSAGE, found.rule, None,
                                        "message", found.line, found.digest))
            clean = False
        for file in objects.new_files(commit):
            if file.blob not in cache and file.blob not in dirty:
                for found in scan_file(file.path, objects.read_blob(file.blob)):
                    findings.append(PushFinding(ref, commit, file.path, found.rule,
                                                found.record or None, found.field, found.line,
                                                found.digest))
                    dirty.add(file.blob)
                if file.blob not in dirty:
                    cache.add(file.blob)
            clean = clean and file.blob not in dirty
        if clean:
            cache.add(commit)
    return findings


def _memory_tips(dirs: GitDirs, ref: str) -> set[str]:
    """The tips of every copy of the memory branch here: the local branch, each remote's
    tracking copy, the read-only sources. A push of any of them (`git push mirror
    origin/git-memory:refs/heads/x`, a bare commit id) carries the memory branch."""
    tips = set(remote_tracking_refs(dirs, ref).values())
    local = read_ref(dirs, ref)
    if local:
        tips.add(local)
    sources = dirs.common_dir / "refs" / "git-memory" / "sources"
    if sources.is_dir():
        for path in sources.iterdir():
            sha = read_ref(dirs, f"refs/git-memory/sources/{path.name}")
            if sha:
                tips.add(sha)
    return tips


def scan_push(dirs: GitDirs, pushed: list[PushedRef]) -> list[PushFinding]:
    """Findings (one per offending field) for the memory-branch refs in `pushed`."""
    ref = memory_ref(dirs)
    pushing = [p for p in pushed if p.local_sha != ZERO]
    if not pushing:
        return []  # only deletions
    tips = _memory_tips(dirs, ref)
    relevant = [p for p in pushing
                if ref in (p.local_ref, p.remote_ref) or p.local_sha in tips]
    if not relevant:
        return []  # the common case: no pygit2 import, the push goes on at once
    from git_memory.store.commits import Objects  # lazy: pygit2, for memory pushes only

    objects = Objects(dirs)
    cache = ScanCache(dirs)
    findings: list[PushFinding] = []
    for item in relevant:
        findings += scan_commits(objects, _commits(objects, item), item.remote_ref, cache)
    cache.save()
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

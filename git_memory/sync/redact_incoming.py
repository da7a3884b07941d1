"""Records that arrive by sync or pull holding a secret: each gets a redact record at once
(which travels back with the next sync), and the audit log says which record, field and rule
(never the value); history cannot be taken back from the remote, `purge` can follow."""

from __future__ import annotations

import itertools
from collections.abc import Iterable, Iterator

from git_memory.curation import record_builders as build
from git_memory.model import Record
from git_memory.sanitize import audit
from git_memory.sanitize.scan import Finding, scan_file, scan_message
from git_memory.store.branch import FileChange, MemoryBranch
from git_memory.store.commits import Objects
from git_memory.store.record_format import MalformedRecord, parse_record

REASON = "arrived by sync holding a secret ({rule}) in {field}; hidden until purged"


READ_BATCH = 2000  # blobs read at a time: a first sync of a million records holds a batch


def _incoming(branch: MemoryBranch, before: str | None, after: str) -> Iterator[FileChange]:
    """Every record file `after` holds that `before` did not, streamed from the tree walk
    (a first sync adopts the whole memory: a list of it would be a list of a million)."""
    return iter(branch.changes(before, after)[0]) if before else branch.iter_files(after)


def _read(branch: MemoryBranch, files: Iterable[FileChange]) -> Iterator[tuple[str, bytes]]:
    """(path, data) of each file, read a batch at a time (straight from the pack when the
    blob is a plain one there); a blob that cannot be read holds nothing to scan."""
    while batch := list(itertools.islice(files, READ_BATCH)):
        for change, data in zip(batch, branch.read_blobs([f.blob for f in batch])):
            if isinstance(data, bytes):
                yield change.path, data


def _already_redacted(branch: MemoryBranch, before: str | None, after: str) -> set[str]:
    """Targets of the redact records among the incoming files (only those files are read)."""
    targets: set[str] = set()
    redacts = (f for f in _incoming(branch, before, after)
               if f.path.startswith("records/") and "/redact-" in f.path)
    for path, data in _read(branch, redacts):
        try:
            record = parse_record(data, path)
        except MalformedRecord:
            continue
        if record.kind == "redact":
            targets.add(str(record.fields.get("target") or ""))
    return targets


def seal(branch: MemoryBranch, before: str | None, after: str | None, remote: str) -> list[Finding]:
    """Redact every record that moving from `before` to `after` brought in with a secret;
    the findings (also in the audit log)."""
    if after is None or after == before:
        return []
    done = _already_redacted(branch, before, after)
    findings: list[Finding] = []
    redacts: list[Record] = []
    author = branch.author()
    for path, data in _read(branch, _incoming(branch, before, after)):
        found = scan_file(path, data)
        if not found:
            continue
        findings += [Finding(f.field, f.rule, f.line, f.digest, f.record or path) for f in found]
        target = found[0].record
        if target and target not in done:
            done.add(target)
            reason = REASON.format(rule=found[0].rule, field=found[0].where())
            redacts.append(build.redact(target, _text(path, data), reason, author,
                                        source="curate"))
    messages = _messages(branch, before, after)
    actions = [audit.Action(f.rule, "redacted" if f.record in done else "flagged",
                            f"incoming from {remote}: {f.detail()}", "sync", f.record)
               for f in findings + messages]
    audit.write(branch.dirs, actions)
    if redacts:
        branch.append(redacts, f"memory: redact {len(redacts)} incoming record(s) holding a"
                      " secret", trailers=build.trailers(redacts))
    return findings + messages


def _text(path: str, data: bytes) -> str:
    """What the redact record keeps the hash of: an entry's text (so the writer refuses
    it again), else the whole file."""
    try:
        return parse_record(data, path).content or data.decode("utf-8", "replace")
    except MalformedRecord:
        return data.decode("utf-8", "replace")


def _messages(branch: MemoryBranch, before: str | None, after: str) -> list[Finding]:
    """Secrets in the messages of the commits that came in (flagged: history stays)."""
    objects = Objects(branch.dirs)
    out: list[Finding] = []
    for commit in objects.commits(after, [before] if before else []):
        out += [Finding(f.field, f.rule, f.line, f.digest, f"commit {commit[:12]}")
                for f in scan_message(objects.message(commit))]
    return out

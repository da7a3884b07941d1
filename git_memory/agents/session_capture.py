"""Capture from a Claude Code transcript: gates, markers, entries, archive. Each entry is keyed
(`markers.item_key`) and written without reinforcing duplicates, so importing a transcript
again, or after it grew, adds only the markers not seen before."""

from __future__ import annotations

from contextlib import closing
from dataclasses import dataclass, field
from pathlib import Path

from git_memory.agents import settings
from git_memory.agents.archive import archive
from git_memory.agents.archive_path import is_archived
from git_memory.agents.gitinfo import current_branch
from git_memory.agents.markers import find_markers, item_key
from git_memory.agents.transcript import Transcript, read_transcript
from git_memory.index.db import open_index
from git_memory.index.entries import by_key
from git_memory.model import Record
from git_memory.sanitize.scan import redact_string
from git_memory.store.locate import GitDirs
from git_memory.write.append import NewEntry, write_entries


@dataclass
class CaptureResult:
    session_id: str | None
    path: str
    skipped: str | None = None  # why nothing was captured
    found: int = 0
    added: list[Record] = field(default_factory=list)
    known: int = 0
    rejected: list[tuple[str, str]] = field(default_factory=list)
    redacted: list[str] = field(default_factory=list)  # labels whose secrets were replaced
    archived: bool = False
    transcript: Transcript | None = None


def gate(dirs: GitDirs, transcript: Transcript, min_messages: str = "sessionMinMessages",
         min_chars: str = "sessionMinUserChars") -> str | None:
    """Why this session is not worth capturing, or None when it is."""
    if transcript.headless:
        return "headless session (claude -p)"
    if transcript.subagent:
        return "subagent transcript (its findings reach the main session)"
    need = settings.get_int(dirs, min_messages)
    if transcript.message_count < need:
        return f"short session ({transcript.message_count} messages, minimum {need})"
    chars = settings.get_int(dirs, min_chars)
    if transcript.user_chars < chars:
        return f"short session ({transcript.user_chars} user characters, minimum {chars})"
    return None


def _created(stamp: str) -> str | None:
    return stamp[:19] + "Z" if len(stamp) >= 19 and stamp[4] == "-" else None


def markers_in(transcript: Transcript, branch: str | None) -> list[NewEntry]:
    sid = transcript.session_id or "unknown"
    origin = {k: v for k, v in {"session": sid, "branch": branch, "cwd": transcript.cwd}.items()
              if v}
    return [
        NewEntry(content=text, type=type_, source="session", origin=dict(origin),
                 key=item_key("session", sid, type_, text), created=_created(message.timestamp),
                 label=f"{message.role} message {number}")
        for number, message in enumerate(transcript.messages, 1)
        for type_, text in find_markers(message.text)
    ]


def _unknown(dirs: GitDirs, found: list[NewEntry]) -> list[NewEntry]:
    """The markers whose key the index has not seen: a repeated Stop stays off the writer."""
    if not found:
        return []
    with closing(open_index(dirs)) as index:
        return [f for f in found if by_key(index, f.key or "") is None]


def capture_file(dirs: GitDirs, path: str | Path, *, archive_mode: str = "always") -> CaptureResult:
    """Import one transcript file into memory and the archive. `archive_mode` "missing"
    archives only a session not archived yet (Stop fires after every turn: one archive
    commit per turn would bloat the ref); "always" refreshes the copy."""
    transcript = read_transcript(path)
    result = CaptureResult(transcript.session_id, str(path), transcript=transcript)
    result.skipped = gate(dirs, transcript)
    if result.skipped:
        return result
    branch = transcript.branch or current_branch(dirs)
    found = markers_in(transcript, branch)
    result.found = len(found)
    fresh = _unknown(dirs, found)
    result.known = len(found) - len(fresh)
    if fresh:
        sid = redact_string((transcript.session_id or "")[:8])[0]
        outcome = write_entries(
            dirs, fresh, f"memory: capture from session {sid}",
            # Nobody can edit a transcript: a secret is replaced and logged, not refused.
            reinforce_duplicates=False, strict=False, redact_secrets=True,
        )
        result.added = outcome.added
        result.known += len(outcome.duplicates)
        result.rejected = outcome.rejected
        result.redacted = outcome.redacted
    if archive_mode == "always" or (archive_mode == "missing"
                                    and not is_archived(dirs, transcript)):
        result.archived = archive(dirs, transcript, branch)
    return result

"""The session archive: a readable Markdown copy of each imported session on a local ref.

Kept on `refs/memory/sessions` (not under refs/heads, so an ordinary `git push`
never sends it); one file per session at `sessions/YYYY/MM/<session id>.md`,
rewritten when the session grew. Only user and assistant text goes in, never
tool payloads, and a message holding a credential is replaced by a placeholder.
Written by the store's one git writer (`store.branch.session_archive`): blobs,
trees, then a commit whose parent is the tip read, retried when another writer
moved the ref. Never prints.
"""

from __future__ import annotations

from git_memory.agents.archive_path import archive_path
from git_memory.agents.transcript import Transcript, withhold_secrets
from git_memory.sanitize.chars import normalise, strip_invisible
from git_memory.store.branch import session_archive
from git_memory.store.locate import GitDirs


def render(transcript: Transcript, branch: str | None) -> str:
    """The Markdown copy: a small header, then each message under its speaker."""
    title, _ = strip_invisible(transcript.title)
    lines = [
        f"# {normalise(title) or 'session'}",
        "",
        f"- session: {transcript.session_id}",
        f"- branch: {branch or '-'}",
        f"- cwd: {transcript.cwd or '-'}",
        f"- messages: {len(transcript.messages)}",
        "",
    ]
    for message in transcript.messages:
        text, _ = strip_invisible(withhold_secrets(message.text))
        who = "User" if message.role == "user" else "Assistant"
        lines += [f"## {who} · {message.timestamp[:19]}", "", normalise(text), ""]
    return "\n".join(lines)


def archive(dirs: GitDirs, transcript: Transcript, branch: str | None) -> bool:
    """Write (or refresh) the session's Markdown; False when it was already current."""
    files = {archive_path(transcript): render(transcript, branch).encode("utf-8")}
    message = f"sessions: archive {transcript.session_id}"
    return session_archive(dirs).write_files(files, message, skip_unchanged=True) is not None

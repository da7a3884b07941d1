"""The session archive: a readable Markdown copy of each imported session on a local ref.

Only user and assistant text goes in, never tool payloads; a message holding a credential
is withheld, a secret in the header replaced by `[REDACTED:rule]`, each audited by rule only.
"""

from __future__ import annotations

from git_memory.agents.archive_path import archive_path
from git_memory.agents.transcript import Transcript, withhold_secrets
from git_memory.errors import SecretFound
from git_memory.sanitize import audit
from git_memory.sanitize.scan import redact_string, rule_of, scan_string
from git_memory.sanitize.chars import normalise, strip_invisible
from git_memory.store.branch import session_archive
from git_memory.store.locate import GitDirs


def _header(value: str | None, field: str, found: list[audit.Action], sid: str) -> str:
    """A header value with any secret replaced (nobody can fix a transcript)."""
    text = value or "-"
    hit = scan_string(text, field)
    if hit is None:
        return text
    found.append(audit.Action(hit.rule, "redacted", f"session archive {hit.detail()}:"
                              f" replaced by [REDACTED:{hit.rule}]", "session", sid))
    return redact_string(text)[0]


def render(transcript: Transcript, branch: str | None, found: list[audit.Action]) -> str:
    """The Markdown copy; what was redacted or withheld goes to `found` (for the audit log)."""
    sid = transcript.session_id or ""
    title, _ = strip_invisible(transcript.title)
    lines = [
        f"# {_header(normalise(title) or 'session', 'title', found, sid)}",
        "",
        f"- session: {_header(transcript.session_id, 'session', found, sid)}",
        f"- branch: {_header(branch, 'branch', found, sid)}",
        f"- cwd: {_header(transcript.cwd, 'cwd', found, sid)}",
        f"- messages: {len(transcript.messages)}",
        "",
    ]
    for number, message in enumerate(transcript.messages, 1):
        hit = scan_string(message.text, f"message {number}")
        if hit is not None:
            found.append(audit.Action(hit.rule, "redacted", f"session archive {hit.detail()}:"
                                      " message withheld", "session", sid))
        text, _ = strip_invisible(withhold_secrets(message.text))
        who = "User" if message.role == "user" else "Assistant"
        lines += [f"## {who} · {message.timestamp[:19]}", "", normalise(text), ""]
    document = "\n".join(lines)
    rule = rule_of(document)
    if rule:  # defence in depth: what the steps above missed is never written
        raise SecretFound(rule, "the session archive")
    return document


def archive(dirs: GitDirs, transcript: Transcript, branch: str | None) -> bool:
    """Write (or refresh) the session's Markdown; False when it was already current."""
    actions: list[audit.Action] = []
    files = {archive_path(transcript): render(transcript, branch, actions).encode("utf-8")}
    message = f"sessions: archive {redact_string(transcript.session_id or '')[0]}"
    written = session_archive(dirs).write_files(files, message, skip_unchanged=True)
    if written is not None:
        audit.write(dirs, actions)
    return written is not None

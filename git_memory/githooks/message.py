"""The commit-msg check: a knowledge marker (and its continuation lines) must not carry a
secret; the rest of the message is the user's business. No pygit2: the hook stays cheap."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from git_memory.capture.commit import parse_message, strip_comments
from git_memory.errors import BadInput
from git_memory.sanitize import audit
from git_memory.sanitize.scan import scan_string
from git_memory.sanitize.chars import decode_bytes
from git_memory.store import config
from git_memory.store.locate import GitDirs


@dataclass
class MessageProblem:
    marker: str  # "LEARNED"
    line: int  # the line of the message that holds the secret
    rule: str
    digest: str = ""  # a short hash of the value, for the audit log


def comment_char(dirs: GitDirs) -> str:
    value = config.get_str(dirs, "core.commentChar") or "#"
    return "#" if value == "auto" else value[:1]


def check_message_file(dirs: GitDirs, path: str | None) -> list[MessageProblem]:
    """Secrets in the markers of the message file (default: COMMIT_EDITMSG)."""
    target = Path(path) if path else dirs.git_dir / "COMMIT_EDITMSG"
    try:
        data = target.read_bytes()
    except OSError as exc:
        raise BadInput(f"cannot read the commit message {target}: {exc.strerror}") from None
    message = strip_comments(decode_bytes(data, "commit message"), comment_char(dirs))
    problems: list[MessageProblem] = []
    for marker in parse_message(message):
        # The marker's text keeps its line breaks (continuation lines), so the finding's
        # line counts from the marker's own line; its #tags are scanned as typed.
        text = marker.text + "\n" + " ".join("#" + t for t in marker.tags)
        found = scan_string(text, marker.type)
        if found:
            line = marker.line + min(found.line - 1, marker.text.count("\n"))
            problems.append(MessageProblem(marker.type.upper(), line, found.rule, found.digest))
    audit.write(
        dirs,
        [
            audit.Action(p.rule, "refused", f"commit message: {p.marker}: marker, line {p.line}"
                         f" (sha256 {p.digest})", "commit-msg", "")
            for p in problems
        ],
    )
    return problems

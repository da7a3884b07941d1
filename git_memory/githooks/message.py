"""The commit-msg check: a knowledge marker must not carry a secret.

Only marker lines (and their continuation lines) are our business; the rest of
the message is left to the user. Runs without pygit2 so the hook stays cheap.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from git_memory.capture.commit import parse_message, strip_comments
from git_memory.errors import BadInput
from git_memory.sanitize import audit
from git_memory.sanitize.pipeline import secret_rule
from git_memory.sanitize.chars import decode_bytes
from git_memory.store import config
from git_memory.store.locate import GitDirs


@dataclass
class MessageProblem:
    marker: str  # "LEARNED"
    line: int
    rule: str


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
        text = marker.text + " " + " ".join("#" + t for t in marker.tags)
        rule = secret_rule(text)
        if rule:
            problems.append(MessageProblem(marker.type.upper(), marker.line, rule))
    audit.write(
        dirs,
        [
            audit.Action(p.rule, "refused", f"commit message: {p.marker}: marker on line {p.line}",
                         "commit-msg", "")
            for p in problems
        ],
    )
    return problems

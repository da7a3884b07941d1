"""Claude Code transcripts (one JSON object a line) read into plain messages.

Only `user` and `assistant` records count, and of their content only `text` blocks. One
assistant message may be spread over several lines sharing `message.id`, interleaved with
tool results: they are joined in the order they first appear. Text the harness or we
injected is removed before anything else looks at it.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterable

from git_memory.sanitize.scan import rule_of


# Tags whose whole block is text the user did not type (harness, IDE, hooks, us).
_INJECTED_TAGS = (
    "system-reminder", "ide_opened_file", "ide_selection", "ide_diagnostics",
    "local-command-stdout", "local-command-stderr", "local-command-caveat",
    "command-name", "command-message", "command-args",
    "session-start-hook", "user-prompt-submit-hook", "user-memory-input",
)
_BLOCK_RE = re.compile(
    r"<(" + "|".join(_INJECTED_TAGS) + r")\b[^>]*>.*?</\1\s*>", re.DOTALL | re.IGNORECASE
)
# Our own context block (closing tag carries the nonce). Unclosed, it runs to the end
# of the message: better to lose a marker than to capture our own injection.
_OURS_RE = re.compile(
    r"(?:^[^\n]*git-memory[^\n]*\n)?<untrusted-knowledge\b[^>]*>.*?(?:</untrusted-knowledge\b[^>]*>|\Z)",
    re.DOTALL | re.IGNORECASE | re.MULTILINE,
)
_SKIP_FLAGS = ("isMeta", "isCompactSummary", "isVisibleInTranscriptOnly", "isApiErrorMessage")


@dataclass
class Message:
    role: str  # "user" or "assistant"
    text: str  # the human-readable text only, injected blocks removed
    timestamp: str = ""


@dataclass
class Transcript:
    path: str
    session_id: str | None = None
    messages: list[Message] = field(default_factory=list)
    cwd: str | None = None
    branch: str | None = None
    summaries: list[str] = field(default_factory=list)
    headless: bool = False
    subagent: bool = False
    assistant_turns: int = 0  # assistant messages, text or not

    @property
    def user_chars(self) -> int:
        return sum(len(m.text) for m in self.messages if m.role == "user")

    @property
    def message_count(self) -> int:
        users = sum(1 for m in self.messages if m.role == "user")
        return users + self.assistant_turns

    @property
    def title(self) -> str:
        if self.summaries:
            return self.summaries[-1]
        for message in self.messages:
            if message.role == "user" and message.text.strip():
                return message.text.strip().splitlines()[0][:80]
        return "(untitled session)"


def withhold_secrets(text: str) -> str:
    """The text, or a placeholder naming the rule when it holds a credential (looked for
    in the cleaned form, so a zero-width character inside a key does not hide it)."""
    rule = rule_of(text)
    return f"[message withheld: it contains a secret ({rule})]" if rule else text


def strip_injected(text: str) -> str:
    """Text without the blocks the harness, the IDE or git-memory put there."""
    return _BLOCK_RE.sub("", _OURS_RE.sub("", text)).strip()


def _text_blocks(content: Any) -> list[str]:
    if isinstance(content, str):
        return [content]
    out: list[str] = []
    if isinstance(content, list):
        for block in content:
            if isinstance(block, dict) and block.get("type") == "text":
                text = block.get("text")
                if isinstance(text, str):
                    out.append(text)
    return out


@dataclass
class _Pending:
    index: int
    blocks: list[str] = field(default_factory=list)
    timestamp: str = ""


def _iter_objects(lines: Iterable[bytes]) -> Iterable[dict[str, Any]]:
    """The lines that are JSON objects; any other line is passed over, never fatal."""
    for raw in lines:
        if not raw.strip():
            continue
        try:
            value = json.loads(raw.decode("utf-8", errors="replace"))
        except ValueError:
            continue
        if isinstance(value, dict):
            yield value


def parse_lines(lines: Iterable[bytes], path: str = "") -> Transcript:
    """Read a transcript from its lines (bytes, as in the file)."""
    transcript = Transcript(path=path)
    ordered: list[Message | _Pending] = []
    assistant: dict[str, _Pending] = {}
    queue_seen: list[str] = []
    seen_conversation = False
    for obj in _iter_objects(lines):
        kind = obj.get("type")
        _note_meta(transcript, obj)
        if kind == "summary" and isinstance(obj.get("summary"), str):
            transcript.summaries.append(obj["summary"])
        elif kind == "queue-operation" and not seen_conversation:
            queue_seen.append(str(obj.get("operation")))
        if kind not in ("user", "assistant"):
            continue
        if not seen_conversation:
            transcript.subagent = obj.get("isSidechain") is True
            # `claude -p` hands its prompt over through the queue: the first queue
            # operation is a dequeue that no enqueue preceded.
            if queue_seen and queue_seen[0] == "dequeue":
                transcript.headless = True
            seen_conversation = True
        if any(obj.get(flag) for flag in _SKIP_FLAGS):
            continue
        message = obj.get("message")
        if not isinstance(message, dict):
            continue
        stamp = str(obj.get("timestamp") or "")
        if kind == "user":
            text = strip_injected("\n\n".join(_text_blocks(message.get("content"))))
            if text:
                ordered.append(Message("user", text, stamp))
            continue
        if message.get("model") == "<synthetic>":
            continue
        key = str(message.get("id") or obj.get("uuid") or len(ordered))
        pending = assistant.get(key)
        if pending is None:
            pending = assistant[key] = _Pending(len(ordered), timestamp=stamp)
            ordered.append(pending)
            transcript.assistant_turns += 1
        for block in _text_blocks(message.get("content")):
            if block not in pending.blocks:  # some versions repeat a block on a later line
                pending.blocks.append(block)
    for item in ordered:
        if isinstance(item, Message):
            transcript.messages.append(item)
        else:
            text = strip_injected("\n\n".join(b.strip() for b in item.blocks if b.strip()))
            if text:
                transcript.messages.append(Message("assistant", text, item.timestamp))
    return transcript


def _note_meta(transcript: Transcript, obj: dict[str, Any]) -> None:
    entry = obj.get("entrypoint")
    if isinstance(entry, str) and entry.startswith("sdk"):
        transcript.headless = True  # sdk-cli (claude -p), sdk-ts, sdk-py
    if isinstance(obj.get("sessionId"), str) and not transcript.session_id:
        transcript.session_id = obj["sessionId"]
    if isinstance(obj.get("cwd"), str):
        transcript.cwd = obj["cwd"]
    branch = obj.get("gitBranch")
    if isinstance(branch, str) and branch and branch != "HEAD":
        transcript.branch = branch


def read_transcript(path: str | Path) -> Transcript:
    """Parse a transcript file (raises OSError when it cannot be read)."""
    with open(path, "rb") as handle:
        transcript = parse_lines(handle, str(path))
    if not transcript.session_id:
        transcript.session_id = Path(path).stem
    return transcript

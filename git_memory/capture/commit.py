"""Knowledge from commit messages: markers, trailers, continuation lines, #tags.

`parse_message` is pure text work (the commit-msg hook uses it without pygit2);
`capture_commit` reads a commit (`store.commits`, pygit2) and hands the entries to the writer.
Each entry's `key` is derived from its type and normalised text, so an amended, rebased or
cherry-picked commit whose marker text is unchanged is a duplicate the writer skips, whatever
the new commit id.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass, field
from typing import Any

from git_memory.model import ENTRY_TYPES, normalise_for_dedup

_UPPER = "|".join(t.upper() for t in ENTRY_TYPES)
_TITLE = "|".join(t.capitalize() for t in ENTRY_TYPES)
# `LEARNED: x` (may be indented) or a trailer `Learned: x` at the line start.
MARKER_LINE = re.compile(rf"^[ \t]*(?P<upper>{_UPPER}):[ \t]*(?P<text>.*)$|^(?P<title>{_TITLE}):[ \t]*(?P<ttext>.*)$")
_TAG = re.compile(r"(?:(?<=\s)|^)#(?P<tag>[A-Za-z][\w.-]*[\w])")
_ONE_TAG = re.compile(r"#[A-Za-z][\w.-]*[\w]")
_BLANKS = re.compile(r"([ \t]+)")
SCISSORS = "------------------------ >8 ------------------------"
MAX_PATHS = 200


@dataclass
class Marker:
    """One piece of knowledge found in a message."""

    type: str
    text: str
    tags: list[str] = field(default_factory=list)
    line: int = 0

    @property
    def key(self) -> str:
        """Stable across amend and rebase: the type and the normalised text."""
        digest = hashlib.sha1(
            f"{self.type}\n{normalise_for_dedup(self.text)}".encode("utf-8")
        ).hexdigest()
        return f"commit-{self.type}-{digest[:16]}"


def strip_comments(message: str, comment_char: str = "#") -> str:
    """The message as git will store it: no comment lines, nothing below the scissors."""
    kept: list[str] = []
    for line in message.split("\n"):
        if line.startswith(comment_char) and SCISSORS in line:
            break
        if comment_char and line.startswith(comment_char):
            continue
        kept.append(line)
    return "\n".join(kept)


def _split_tags(text: str) -> tuple[str, list[str]]:
    """#tags become tags: a run ending a line is removed, an inline one keeps its word.
    Each tag is kept as written: the secret scan (commit-msg, the writer) must see
    `#AKIA...` as typed, not lower-cased into something no rule knows; the writer's
    `sanitize_tags` lower-cases a tag only after that scan."""
    # dict.fromkeys: the distinct tags in order, in linear time (a list's `in` made a
    # line of 100,000 #tags take 47 s)
    unique = list(dict.fromkeys(m.group("tag") for m in _TAG.finditer(text)))
    text = "\n".join(_without_trailing_tags(line) for line in text.split("\n"))
    text = _TAG.sub(lambda m: m.group("tag"), text)
    return text.strip(), unique


def _without_trailing_tags(line: str) -> str:
    """`line` less the run of blank-separated #tags that ends it (and the blanks around),
    found from the right over the line's words split once: a regular expression for the
    run, tried from every '#', is quadratic in a line of many tags that ends otherwise."""
    parts = _BLANKS.split(line)  # word, blanks, word, ..., word ("" around edge blanks)
    last = len(parts) - 1
    if parts[last] == "" and last >= 2:
        last -= 2  # trailing blanks go with the tags, if any
    i = last
    while i >= 2 and _ONE_TAG.fullmatch(parts[i]):  # each tag has blanks before it
        i -= 2
    return line if i == last else "".join(parts[: i + 1])


def parse_message(message: str) -> list[Marker]:
    """Every marker and marker trailer, with the indented lines that continue it."""
    found: list[Marker] = []
    current: list[str] | None = None
    kind, start = "", 0

    def close() -> None:
        if current is None:
            return
        text, tags = _split_tags("\n".join(current).strip())
        if text:
            found.append(Marker(kind, text, tags, start))

    for number, line in enumerate(message.replace("\r\n", "\n").split("\n"), 1):
        match = MARKER_LINE.match(line)
        if match:
            close()
            kind = (match.group("upper") or match.group("title")).lower()
            text = match.group("text") if match.group("upper") else match.group("ttext")
            current, start = [text.strip()], number
        elif current is not None and line[:1] in (" ", "\t") and line.strip():
            current.append(line.strip())
        else:
            close()
            current = None
    close()
    return found


# -- reading a commit (store.commits, pygit2) ----------------------------------------

def branch_name(git_dir: Any) -> str | None:
    """The checked-out branch, or the one being rebased, or None when detached."""
    from pathlib import Path

    base = Path(git_dir)
    candidates = [base / "HEAD", base / "rebase-merge" / "head-name", base / "rebase-apply" / "head-name"]
    for path in candidates:
        try:
            text = path.read_text(encoding="utf-8").strip()
        except OSError:
            continue
        text = text[4:].strip() if text.startswith("ref:") else text
        if text.startswith("refs/heads/"):
            return text[len("refs/heads/"):]
    return None


def entries_for_commit(commit: Any, branch: str | None) -> list[Any]:
    """The NewEntry list for one commit (a `store.commits.CodeCommit`; empty without markers)."""
    from git_memory.writer import NewEntry

    markers = parse_message(commit.message)
    if not markers:
        return []
    paths = commit.paths
    origin: dict[str, Any] = {"commit": commit.id, "branch": branch, "paths": paths[:MAX_PATHS]}
    if len(paths) > MAX_PATHS:
        origin["paths_omitted"] = len(paths) - MAX_PATHS
    return [
        NewEntry(
            content=marker.text,
            type=marker.type,
            tags=marker.tags,
            source="commit",
            origin=dict(origin),
            key=marker.key,
            label=f"{commit.id[:12]} line {marker.line}",
        )
        for marker in markers
    ]


def capture_commit(dirs: Any, rev: str = "HEAD") -> Any:
    """Capture the markers of commit `rev` in one memory commit; the WriteOutcome.

    Duplicates (same key or text) are skipped without a reinforce record, so a
    rewritten commit adds nothing; a secret or bad marker rejects that marker
    only and is reported in `rejected` (the commit itself already happened).
    """
    from git_memory.store.commits import read_commit
    from git_memory.writer import WriteOutcome, write_entries

    commit = read_commit(dirs, rev)
    items = entries_for_commit(commit, branch_name(dirs.git_dir))
    if not items:
        return WriteOutcome()
    short = commit.id[:12]
    return write_entries(
        dirs,
        items,
        f"memory: capture {len(items)} from commit {short}",
        reinforce_duplicates=False,
        strict=False,
    )

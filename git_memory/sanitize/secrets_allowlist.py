"""A person's way out of a false refusal (issue #32): a committed allow list of finding
digests, `.gitmemory-allow` at the top of the work tree (one `sha256:` prefix of 8-64 hex
a line, `#` comments; the model is gitleaks' `.gitleaksignore`), or the inline marker
`git-memory: allow-secret` on the line of the finding (the model is detect-secrets'
`pragma: allowlist secret`).

Honoured only where a person runs the command: `add`, `import`, the git hooks and `scan`
enter `honoured(root)`. Everything else (the MCP server, distillation) runs without it,
and `refused()` says so explicitly, so an agent cannot use either way out. Every finding
let through is kept for the audit log (`take_allowed`), so none passes silently.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field
from pathlib import Path

ALLOW_FILE = ".gitmemory-allow"
MARKER = "git-memory: allow-secret"
_DIGEST = re.compile(r"^(?:sha256:)?([0-9a-f]{8,64})\b")


# Sources of text no person typed at this moment: their writes never take a way out.
AGENT_SOURCES = frozenset({"agent", "distill", "session"})


@dataclass
class Allowance:
    """Where the allow file is, its digests (read on the first finding: a clean text
    costs nothing), and the findings let through so far."""

    root: Path | None = None
    digests: tuple[str, ...] | None = None
    allowed: dict[tuple[str, str], str] = field(default_factory=dict)  # (rule, digest) -> how
    uses: int = 0  # findings let through so far (caches of clean texts look at it)

    def listed(self) -> tuple[str, ...]:
        if self.digests is None:
            root = self.root if self.root is not None else work_tree_root(Path.cwd())
            self.digests = read_allow_file(root / ALLOW_FILE) if root is not None else ()
        return self.digests


def work_tree_root(start: Path) -> Path | None:
    """The nearest folder holding `.git` (a directory, or a worktree's file), upwards."""
    for folder in (start, *start.parents):
        if (folder / ".git").exists():
            return folder
    return None


_CURRENT: ContextVar[Allowance | None] = ContextVar("git_memory_allowance", default=None)


def read_allow_file(path: Path) -> tuple[str, ...]:
    """The digests of an allow file; a line that is no digest is ignored (a typo allows
    nothing)."""
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return ()
    out: list[str] = []
    for line in text.splitlines():
        m = _DIGEST.match(line.strip().lower())
        if m:
            out.append(m.group(1))
    return tuple(out)


@contextmanager
def honoured(root: Path | None = None) -> Iterator[Allowance]:
    """Within: findings listed in ROOT/.gitmemory-allow (ROOT: the work tree around the
    current directory by default), or on a line with the marker, are let through (and
    kept for the audit)."""
    allowance = Allowance(root)
    token = _CURRENT.set(allowance)
    try:
        yield allowance
    finally:
        _CURRENT.reset(token)


@contextmanager
def refused() -> Iterator[None]:
    """Within: no way out, whatever an outer caller set (MCP tools, distillation)."""
    token = _CURRENT.set(None)
    try:
        yield
    finally:
        _CURRENT.reset(token)


def active() -> bool:
    return _CURRENT.get() is not None


def uses() -> int:
    """How many findings have been let through here (0 outside `honoured`)."""
    allowance = _CURRENT.get()
    return allowance.uses if allowance is not None else 0


def value_digest(value: str) -> str:
    """The full SHA-256 of a finding's value; the first 8 hex digits are what refusals,
    the audit log and `git memory scan` print."""
    return hashlib.sha256(value.encode("utf-8", "replace")).hexdigest()


def is_allowed(text: str, rule: str, start: int, end: int) -> bool:
    """Whether the finding `text[start:end]` of `rule` is let through here (and if so,
    note it for the audit)."""
    allowance = _CURRENT.get()
    if allowance is None:
        return False
    line_start = text.rfind("\n", 0, start) + 1
    line_end = text.find("\n", end)
    line = text[line_start:line_end if line_end != -1 else len(text)]
    digest = value_digest(text[start:end])
    how = "inline marker" if MARKER in line else (
        ALLOW_FILE if any(digest.startswith(d) for d in allowance.listed()) else "")
    if not how:
        return False
    allowance.allowed[(rule, digest[:8])] = how
    allowance.uses += 1
    return True


def take_allowed() -> list[tuple[str, str, str]]:
    """(rule, digest, how) of each finding let through since the last call."""
    allowance = _CURRENT.get()
    if allowance is None or not allowance.allowed:
        return []
    out = [(rule, digest, how) for (rule, digest), how in allowance.allowed.items()]
    allowance.allowed.clear()
    return out

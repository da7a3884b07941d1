"""The manual curation commands: supersede, merge, flag, redact, reinforce, contradict.

Each is `Memory`'s method of the same name (its rules in `api.curating`): the input is
checked against the index (ids by full id, last 8 characters or key), one or more curation
records are appended in one commit whose trailers (Supersedes:, Merged-From:,
Review-Reason:, ...) make `git log` of the memory branch read as provenance. Nothing is
written when a check fails. Here: what was done, and each new record's id, printed.
"""

from __future__ import annotations

from typing import Callable

from git_memory import ui
from git_memory.api.curating import Builder
from git_memory.api.memory import Curated, Memory


def _done(work: Callable[[Memory], Curated]) -> int:
    with Memory() as memory:
        done = work(memory)
    ui.warn(done.summary)
    for record_id in done.ids:
        ui.out(record_id)
    return 0


def supersede(old_ref: str, new_ref: str, *, reason: str | None) -> int:
    return _done(lambda memory: memory.supersede(old_ref, new_ref, reason=reason or ""))


def merge(refs: list[str], *, content: str, reason: str | None) -> int:
    return _done(lambda memory: memory.merge(refs, content=content, reason=reason or ""))


def flag(ref: str, *, status: str, reason: str | None) -> int:
    return _done(lambda memory: memory.flag(ref, status=status, reason=reason or ""))


def redact(ref: str, *, reason: str | None) -> int:
    return _done(lambda memory: memory.redact(ref, reason=reason or ""))


def reinforce(ref: str, *, reason: str | None) -> int:
    return _done(lambda memory: memory.reinforce(ref, reason=reason))


def contradict(ref: str, *, reason: str | None) -> int:
    return _done(lambda memory: memory.contradict(ref, reason=reason or ""))


def write(reason: str | None, message: str, make: Builder, required: bool = True) -> int:
    """Records `make` builds from the index, appended in one commit (`review`'s decisions)."""
    return _done(lambda memory: memory.write_records(reason, message, make, required))

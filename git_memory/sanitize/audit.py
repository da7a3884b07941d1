"""The local audit log (`audit.jsonl`, never shared): one JSON line per sanitizer action.
Every string passes `scan.mask` here, whatever the caller did: no caller can log a secret.
"""

from __future__ import annotations

import json
import os
import time
from contextlib import contextmanager
from dataclasses import dataclass, fields
from typing import Iterable, Iterator

from git_memory.sanitize.scan import mask
from git_memory.store.locate import GitDirs

AUDIT_NAME = "audit.jsonl"


@dataclass
class Action:
    """One thing the sanitizer did: `rule` fired, `action` taken, `detail` (no secrets)."""

    rule: str
    action: str
    detail: str = ""
    source: str = ""
    ref: str = ""


_held: list[list[Action]] = []


@contextmanager
def held() -> Iterator[list[Action]]:
    """Hold what `write` would log inside the block in the list yielded, for the caller
    to write once its input turned out whole (a malformed last line of an import writes
    nothing, not even the log of the lines before it)."""
    lines: list[Action] = []
    _held.append(lines)
    try:
        yield lines
    finally:
        _held.remove(lines)


def write(dirs: GitDirs | None, actions: Iterable[Action]) -> None:
    items = list(actions)
    if dirs is None or not items:
        return
    if _held:
        _held[-1].extend(items)
        return
    dirs.memory_dir.mkdir(parents=True, exist_ok=True)
    stamp = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
    lines = "".join(
        json.dumps({"time": stamp, **masked(a)}, ensure_ascii=False) + "\n" for a in items
    )
    # One write call with O_APPEND keeps lines whole when several processes log at once.
    fd = os.open(dirs.memory_dir / AUDIT_NAME, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
    try:
        os.write(fd, lines.encode("utf-8"))
    finally:
        os.close(fd)


def masked(action: Action) -> dict[str, str]:
    return {f.name: mask(getattr(action, f.name)) for f in fields(action)}


def read(dirs: GitDirs) -> Iterator[dict]:
    try:
        handle = open(dirs.memory_dir / AUDIT_NAME, encoding="utf-8", errors="replace")
    except OSError:
        return
    with handle:
        for line in handle:
            try:
                item = json.loads(line)
            except ValueError:
                continue
            if isinstance(item, dict):
                yield item

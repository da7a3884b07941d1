"""Helpers shared by the agent-area tests (no tests here).

`shared_dir()` is conftest's SHARED (`../shared` next to the repository root) when it
exists, else the nearest `shared` folder beside a parent directory, so the same tests
run from a git worktree nested one level deeper.
"""

from __future__ import annotations

from pathlib import Path

from conftest import SHARED

ROOT = Path(__file__).resolve().parents[1]


def shared_dir() -> Path:
    if SHARED.is_dir():
        return SHARED
    for parent in ROOT.parents:
        candidate = parent / "shared"
        if (candidate / "data").is_dir():
            return candidate
    return SHARED


TRANSCRIPTS = shared_dir() / "data" / "claude-code-transcripts"

"""Helpers shared by the agent-area tests (no tests here): where the transcripts live.

The Claude Code transcripts are copies kept in tests/data (see its README), so the tests
run the same in a fresh clone.
"""

from __future__ import annotations

from conftest import DATA

TRANSCRIPTS = DATA / "claude-code-transcripts"

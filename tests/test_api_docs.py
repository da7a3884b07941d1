"""Every ```python example in docs/api.md runs, in a real repository of its own, so the
library's documentation cannot drift from `git_memory.api.memory.Memory`."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

DOC = Path(__file__).resolve().parents[1] / "docs" / "api.md"
EXAMPLES = re.findall(r"^```python\n(.*?)^```", DOC.read_text(encoding="utf-8"), re.M | re.S)


def test_the_doc_has_examples() -> None:
    assert len(EXAMPLES) >= 5


@pytest.mark.parametrize("code", EXAMPLES, ids=[f"example-{i}" for i in range(len(EXAMPLES))])
def test_an_example_runs(code: str, git_repo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(git_repo)
    exec(compile(code, str(DOC), "exec"), {"__name__": "__api_doc__"})

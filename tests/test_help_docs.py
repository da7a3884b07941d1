"""Help works the ways people ask for it, and docs/cli.md matches --help."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from conftest import out

ROOT = Path(__file__).resolve().parents[1]


def test_short_help_and_help_command(git_repo: Path, gm) -> None:
    top = gm("-h")
    assert top.returncode == 0 and "Commands:" in out(top)
    assert out(gm("help")) .strip() == out(top).strip()
    sub = gm("help", "add")
    assert sub.returncode == 0 and "Usage: git memory add" in out(sub)
    assert out(gm("add", "-h")) == out(sub)
    unknown = gm("help", "nope")
    assert unknown.returncode == 2


def test_every_command_has_help_text() -> None:
    from git_memory.cli import cli

    for name, command in cli.commands.items():
        assert (command.help or "").strip(), f"command {name} has no help"


def test_cli_reference_is_current() -> None:
    result = subprocess.run(
        [sys.executable, str(ROOT / "scripts" / "gen_cli_docs.py"), "--check"],
        capture_output=True, text=True,
    )
    assert result.returncode == 0, result.stdout


def test_readme_test_command_matches_ci() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    assert "pip install -e '.[test]' && python -m pytest" in readme
    assert "python -m pip install -q -e '.[test]'" in ci and "python -m pytest" in ci


def test_branch_attributes_match_top_level_copy() -> None:
    assert (ROOT / "gitattributes").read_bytes() == (
        ROOT / "git_memory" / "resources" / "gitattributes"
    ).read_bytes()

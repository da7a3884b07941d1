"""A fresh clone goes green: the tests read nothing outside the repository.

The data sets the tests need are copies in tests/data (with their licenses). One quick test
keeps any test file from reaching for the `shared` folder beside the repository again; a slow
one clones the committed HEAD into a folder with nothing beside it and runs the README's test
command there.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
# Spelled in pieces so that this file does not match itself.
SHARED_WORD = "sha" + "red"
REACHES_OUT = re.compile(
    r"\.\./" + SHARED_WORD + r"\b"  # a path written out
    r"|/\s*[\"']" + SHARED_WORD + r"[\"']"  # pathlib: a parent joined with the name
    r"|\b" + SHARED_WORD + r"_dir\b"  # the old helper that went looking for it
)


def test_no_test_reads_the_shared_folder() -> None:
    offenders = []
    for path in sorted((ROOT / "tests").rglob("*.py")):
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            if REACHES_OUT.search(line):
                offenders.append(f"{path.relative_to(ROOT)}:{number}: {line.strip()}")
    assert not offenders, "tests must read tests/data, not the folder beside the repository:\n" + "\n".join(offenders)


def _readme_test_command() -> str:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    match = re.search(r"Run the whole test suite:\s*```sh\n(.+?)\n```", readme, re.S)
    assert match, "README.md lost its test command"
    return match.group(1).strip()


def _clean_env(clone: Path) -> dict[str, str]:
    """This interpreter with the clone's code first: PYTHONPATH wins over the editable install."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("GIT_", "PYTEST"))}
    env["PYTHONPATH"] = str(clone)
    env["PATH"] = os.path.dirname(sys.executable) + os.pathsep + env.get("PATH", "")
    return env


def _pytest(clone: Path, env: dict[str, str], *args: str) -> str:
    result = subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-rs", *args],
        cwd=clone, env=env, capture_output=True, text=True,
    )
    tail = result.stdout[-3000:] + result.stderr[-2000:]
    assert result.returncode == 0, tail
    assert not re.search(r"\d+ skipped", result.stdout), tail
    return result.stdout


@pytest.mark.slow
def test_a_fresh_clone_passes_the_readme_test_command(tmp_path: Path) -> None:
    command = _readme_test_command()
    # The README's command: a venv, an editable install, the everyday suite, then the slow one.
    assert "pip install -e '.[test]'" in command
    assert "python -m pytest && python -m pytest -m slow" in command
    clone = tmp_path / "clone"
    subprocess.run(["git", "clone", "-q", str(ROOT), str(clone)], check=True, capture_output=True)
    assert not (tmp_path / SHARED_WORD).exists() and not (clone / "tests" / "conftest.py").is_symlink()
    env = _clean_env(clone)
    # The clone's code runs, not this checkout's (a fresh venv would cost minutes of pip).
    where = subprocess.run([sys.executable, "-c", "import git_memory; print(git_memory.__file__)"],
                           cwd=tmp_path, env=env, capture_output=True, text=True, check=True)
    assert where.stdout.strip() == str(clone / "git_memory" / "__init__.py")
    everyday = _pytest(clone, env)
    assert re.search(r"\d+ passed", everyday)
    # The slow run, without this test itself (it would clone again, forever).
    slow = _pytest(clone, env, "-m", "slow", "--deselect",
                   "tests/test_fresh_clone.py::test_a_fresh_clone_passes_the_readme_test_command")
    assert re.search(r"\d+ passed", slow)

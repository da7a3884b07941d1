"""The shape of the command line: explicit registration, shared options, keyword-only flags,
and `python -m git_memory` taking the same (click-free) road as the `git-memory` script."""

from __future__ import annotations

import inspect
import json
import subprocess
import sys
from pathlib import Path

import click

from conftest import out

ROOT = Path(__file__).resolve().parents[1]


def test_area_modules_register_only_when_asked() -> None:
    """Importing an area module adds nothing to any group; register() adds its commands."""
    from git_memory.cli import agents, core, curation, hooks, main, recall, sync

    for area in (core, hooks, agents, sync, curation, recall):
        group = click.Group("probe")
        assert group.commands == {}
        area.register(group)
        assert list(group.commands) == [c.name for c in area.COMMANDS]
        for name in group.commands:
            assert main.cli.commands[name] is group.commands[name], name
    assert set(main.cli.commands) == {"help"} | {
        c.name for area in main.AREAS for c in area.COMMANDS
    }


def test_area_modules_do_not_import_the_group() -> None:
    """No cycle: the areas never import cli.main (main imports them)."""
    for path in (ROOT / "git_memory" / "cli").glob("*.py"):
        if path.name != "main.py":
            assert "cli.main" not in path.read_text(encoding="utf-8"), path.name


def _options(command: click.Command) -> list[click.Option]:
    found = [p for p in command.params if isinstance(p, click.Option)]
    if isinstance(command, click.Group):
        for sub in command.commands.values():
            found.extend(_options(sub))
    return found


def test_json_flag_has_one_wording_everywhere() -> None:
    from git_memory.cli.main import cli
    from git_memory.cli.options import JSON_HELP

    flags = [o for c in cli.commands.values() for o in _options(c) if "--json" in o.opts]
    assert len(flags) >= 13
    assert {o.help for o in flags} == {JSON_HELP}
    assert {o.name for o in flags} == {"as_json"}


def test_run_functions_take_flags_keyword_only() -> None:
    """A flag passed by position could land in the wrong parameter silently."""
    import importlib
    import pkgutil

    import git_memory.commands as package

    checked = 0
    for info in pkgutil.iter_modules(package.__path__):
        module = importlib.import_module(f"git_memory.commands.{info.name}")
        for name, function in vars(module).items():
            if not (name == "run" or name.startswith("run_")) or not inspect.isfunction(function):
                continue
            if function.__module__ != module.__name__:
                continue
            for param in inspect.signature(function).parameters.values():
                if param.annotation in ("bool", "bool | None") or param.name in (
                    "as_json", "limit", "yes", "reason", "fmt", "include_all"
                ):
                    assert param.kind is inspect.Parameter.KEYWORD_ONLY, (module.__name__, name,
                                                                           param.name)
                    checked += 1
    assert checked >= 15


def test_python_dash_m_takes_the_fast_path(git_repo: Path, gm) -> None:
    """`python -m git_memory recall` runs through entry.main, so click is never imported."""
    assert gm("add", "LEARNED: the cache must be warm before the benchmark").returncode == 0
    assert gm("recall", "cache").returncode == 0  # the index is current now
    code = (
        "import runpy, sys\n"
        "sys.argv = ['git_memory', 'recall', '--json', 'cache warm']\n"
        "try:\n    runpy.run_module('git_memory', run_name='__main__')\n"
        "except SystemExit as exc:\n    rc = exc.code\n"
        "sys.stderr.write('CLICK=' + str('click' in sys.modules))\nsys.exit(rc)\n"
    )
    result = subprocess.run([sys.executable, "-c", code], cwd=git_repo, capture_output=True,
                            text=True)
    assert result.returncode == 0, result.stderr
    assert "cache must be warm" in json.loads(result.stdout)[0]["content"]
    assert result.stderr.strip().endswith("CLICK=False")
    # and everything else still reaches click through the same entry
    other = subprocess.run([sys.executable, "-m", "git_memory", "list", "--json"], cwd=git_repo,
                           capture_output=True, text=True)
    assert other.returncode == 0 and len(json.loads(other.stdout)) == 1
    usage = subprocess.run([sys.executable, "-m", "git_memory", "recall", "--bogus"],
                           cwd=git_repo, capture_output=True, text=True)
    assert usage.returncode == 2 and "--bogus" in usage.stderr
    assert out(gm("list", "--json"))  # the script agrees

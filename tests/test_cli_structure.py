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


def _commands() -> dict[str, click.Command]:
    """Every top-level command, as the group loads it."""
    from git_memory.cli.main import cli

    ctx = click.Context(cli)
    found = {name: cli.get_command(ctx, name) for name in cli.list_commands(ctx)}
    assert None not in found.values()
    return found  # type: ignore[return-value]


def test_each_command_is_loaded_from_its_own_module_when_asked() -> None:
    """The group's one table names every command; `git memory add` imports no other
    command's module, and each command's click definition sits in its module."""
    code = ("import sys\nfrom git_memory.cli import main\n"
            "before = {m for m in sys.modules if m.startswith('git_memory.commands.')}\n"
            "main.cli.get_command(None, 'add')\n"
            "after = {m for m in sys.modules if m.startswith('git_memory.commands.')}\n"
            "print(sorted(before), sorted(after - before))\n")
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    before, loaded = result.stdout.strip().split("] [")
    assert before == "[" and loaded.startswith("'git_memory.commands.add'"), result.stdout
    assert "list_" not in loaded and "recall" not in loaded
    from git_memory.cli import main

    commands = _commands()
    assert list(commands) == ["help", *main.COMMANDS]
    for name, command in commands.items():
        assert command.name == name
        module = command.callback.__module__  # type: ignore[union-attr]
        expected = "main" if name == "help" else main.COMMANDS[name]
        assert module.rsplit(".", 1)[-1] == expected, (name, module)


def test_command_modules_do_not_import_the_group() -> None:
    """No cycle: command modules never import cli.main (the group loads them)."""
    for path in (ROOT / "git_memory" / "commands").glob("*.py"):
        assert "cli.main" not in path.read_text(encoding="utf-8"), path.name


def _options(command: click.Command) -> list[click.Option]:
    found = [p for p in command.params if isinstance(p, click.Option)]
    if isinstance(command, click.Group):
        for sub in command.commands.values():
            found.extend(_options(sub))
    return found


def test_json_flag_has_one_wording_everywhere() -> None:
    from git_memory.cli.options import JSON_HELP

    flags = [o for c in _commands().values() for o in _options(c) if "--json" in o.opts]
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

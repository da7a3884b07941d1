#!/usr/bin/env python3
"""Write docs/cli.md from the commands' own --help, so the reference cannot drift.

    python scripts/gen_cli_docs.py          rewrite docs/cli.md
    python scripts/gen_cli_docs.py --check  exit 1 when docs/cli.md is out of date
"""
from __future__ import annotations

import sys
from pathlib import Path

import click

from git_memory.cli import cli

DOC = Path(__file__).resolve().parents[1] / "docs" / "cli.md"
INTRO = """# Command-line reference

Generated from `--help` by `scripts/gen_cli_docs.py`; a test fails when this file and the
commands disagree. Run `git memory -h` or `git memory help COMMAND` for the same text
(`git memory --help` is turned by git into `man git-memory`, which is not installed).

Exit codes: 0 success, 1 an error you can fix (one `error: ...` line, nothing written),
2 usage error, 3 unexpected failure (a log file is named), 130 interrupted.
"""


def _help(command: click.Command, name: str, parent: click.Context) -> str:
    with click.Context(command, info_name=name, parent=parent, terminal_width=100,
                       max_content_width=100, help_option_names=["-h", "--help"]) as ctx:
        return command.get_help(ctx)


def _walk(group: click.Group, ctx: click.Context, prefix: str) -> list[str]:
    parts: list[str] = []
    for name in group.list_commands(ctx):
        command = group.get_command(ctx, name)
        if command is None or command.hidden:
            continue
        full = f"{prefix} {name}"
        parts.append(f"## `{full}`\n\n```text\n{_help(command, name, ctx)}\n```\n")
        if isinstance(command, click.Group):
            with click.Context(command, info_name=name, parent=ctx) as sub:
                parts.extend(_walk(command, sub, full))
    return parts


def render() -> str:
    with click.Context(cli, info_name="git memory", terminal_width=100,
                       max_content_width=100, help_option_names=["-h", "--help"]) as ctx:
        top = cli.get_help(ctx)
        body = _walk(cli, ctx, "git memory")
    return INTRO + f"\n## `git memory`\n\n```text\n{top}\n```\n\n" + "\n".join(body)


def main() -> int:
    text = render()
    if "--check" in sys.argv:
        if not DOC.exists() or DOC.read_text(encoding="utf-8") != text:
            print("docs/cli.md is out of date: run python scripts/gen_cli_docs.py")
            return 1
        return 0
    DOC.write_text(text, encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())

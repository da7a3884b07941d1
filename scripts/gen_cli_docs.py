#!/usr/bin/env python3
"""Write docs/cli.md and the man page from the commands' own --help, so neither can drift.

    python scripts/gen_cli_docs.py          rewrite docs/cli.md and man/git-memory.1
    python scripts/gen_cli_docs.py --check  exit 1 when either is out of date

The man page matters because git answers `git memory --help` with `man git-memory`;
pyproject.toml installs it as share/man/man1/git-memory.1 next to the venv's bin/, where
man finds it (man-db looks in ../share/man of every PATH directory; pipx links it too).
"""
from __future__ import annotations

import sys
from pathlib import Path

import click

from git_memory.cli.main import cli

ROOT = Path(__file__).resolve().parents[1]
DOC = ROOT / "docs" / "cli.md"
MAN = ROOT / "man" / "git-memory.1"
INTRO = """# Command-line reference

Generated from `--help` by `scripts/gen_cli_docs.py`; a test fails when this file and the
commands disagree. Run `git memory -h` or `git memory help COMMAND` for the same text;
`git memory --help` opens the same reference as a man page (`man git-memory`).

Exit codes: 0 success, 1 an error you can fix (one `error: ...` line, nothing written),
2 usage error, 3 unexpected failure (a log file is named), 130 interrupted.
"""


def _help(command: click.Command, name: str, parent: click.Context, width: int) -> str:
    with click.Context(command, info_name=name, parent=parent, terminal_width=width,
                       max_content_width=width, help_option_names=["-h", "--help"]) as ctx:
        return command.get_help(ctx)


def _walk(group: click.Group, ctx: click.Context, prefix: str, width: int = 100) -> list[str]:
    parts: list[str] = []
    for name in group.list_commands(ctx):
        command = group.get_command(ctx, name)
        if command is None or command.hidden:
            continue
        full = f"{prefix} {name}"
        parts.append(f"## `{full}`\n\n```text\n{_help(command, name, ctx, width)}\n```\n")
        if isinstance(command, click.Group):
            with click.Context(command, info_name=name, parent=ctx) as sub:
                parts.extend(_walk(command, sub, full, width))
    return parts


def _sections(width: int = 100) -> tuple[str, list[str]]:
    """The top-level help, and a Markdown section for every command."""
    with click.Context(cli, info_name="git memory", terminal_width=width,
                       max_content_width=width, help_option_names=["-h", "--help"]) as ctx:
        top = cli.get_help(ctx)
        parts = _walk(cli, ctx, "git memory", width)
    return top, parts


def _walk_pairs(parts: list[str]) -> list[tuple[str, str]]:
    pairs = []
    for part in parts:
        title, _, rest = part.partition("\n\n```text\n")
        pairs.append((title[len("## `"):-1], rest.rsplit("\n```", 1)[0]))
    return pairs


def render() -> str:
    top, parts = _sections()
    return INTRO + f"\n## `git memory`\n\n```text\n{top}\n```\n\n" + "\n".join(parts)


def _roff(text: str) -> str:
    """Verbatim text for a .nf block: backslashes escaped, no line read as a request."""
    lines = []
    for line in text.replace("\\", "\\e").splitlines():
        lines.append("\\&" + line if line.startswith((".", "'")) else line)
    return "\n".join(lines)


def render_man() -> str:
    from git_memory import __version__

    top, parts = _sections(width=74)  # a man page reads best within 80 columns
    out = [
        f'.TH GIT-MEMORY 1 "" "git-memory-cli {__version__}" "Git Memory Manual"',
        ".SH NAME",
        "git-memory \\- typed, reviewable memory for AI coding agents, kept on a git branch",
        ".SH SYNOPSIS",
        ".B git memory",
        ".I command",
        "[\\fIoptions\\fR] [\\fIarguments\\fR]",
        ".SH DESCRIPTION",
        "Knowledge entries (LEARNED, DECISION, ...) live as files on a dedicated branch",
        "(refs/heads/git-memory) beside the code. They are captured from commit messages and",
        "agent transcripts, sanitized, recalled from a local SQLite index, curated with their",
        "provenance kept, and shared with ordinary push and pull.",
        ".PP",
        ".nf",
        _roff(top),
        ".fi",
        ".SH COMMANDS",
    ]
    for title, text in _walk_pairs(parts):
        out += [f'.SS "{title}"', ".nf", _roff(text), ".fi"]
    out += [
        ".SH EXIT STATUS",
        "0 success; 1 an error you can fix (one error: line, nothing written); 2 usage error;",
        "3 unexpected failure (a log file is named); 130 interrupted.",
        ".SH FILES",
        ".TP",
        ".I $(git rev-parse --git-common-dir)/git-memory/",
        "the derived index (index.sqlite), the sanitizer's audit log (audit.jsonl) and local",
        "state; deleting the index loses nothing.",
        ".SH SEE ALSO",
        ".BR git (1)",
    ]
    return "\n".join(out) + "\n"


def main() -> int:
    targets = [(DOC, render()), (MAN, render_man())]
    if "--check" in sys.argv:
        stale = [str(path.relative_to(ROOT)) for path, text in targets
                 if not path.exists() or path.read_text(encoding="utf-8") != text]
        if stale:
            print(f"{', '.join(stale)} out of date: run python scripts/gen_cli_docs.py")
            return 1
        return 0
    for path, text in targets:
        path.parent.mkdir(exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())

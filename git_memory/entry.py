"""The console entry point: `git memory recall ...` without click (importing click costs
about 20 ms, and recall is the command run most), everything else through click, which
also takes any recall arguments `commands.recall.parse_argv` does not understand."""

from __future__ import annotations

import sys

from git_memory.commands import recall
from git_memory.exits import guarded


def main(argv: list[str] | None = None) -> object:
    args = sys.argv[1:] if argv is None else argv
    if args[:1] == ["recall"]:
        parsed = recall.parse_argv(args[1:])
        if parsed is not None:
            return guarded(recall.run, parsed)
    from git_memory.cli.main import main as click_main  # lazy: hot path; click

    return click_main(argv)

"""The console entry point: `git memory recall ...` without click, everything else through it.

recall is the command people and agents run most, and click alone costs about
20 ms to import. When `commands.recall.parse_argv` understands the arguments,
the recall runs here with the same error handling as `cli.main.main`; help, unknown
options and bad values go to click, which prints the usual usage messages.
`python -m git_memory` (`__main__.py`) comes here too. May import `commands.recall`,
`exits` and, off the fast path, `cli.main`.
"""

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

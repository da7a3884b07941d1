"""A person at a terminal: pager, editor, colour and width, each resolved by asking git
(`git var GIT_PAGER`, `git var GIT_EDITOR`, `git config --get-colorbool`) so they mean
what they mean to git. Off a terminal nothing here changes the output."""

from __future__ import annotations

import contextlib
import io
import os
import shutil
import subprocess
import sys
import unicodedata
from typing import Iterator

from git_memory.errors import BadInput
from git_memory.store import gitrun

NO_PAGER = False  # set by `git memory --no-pager`
_COLOURS = {"id": "33", "status": "36", "warn": "31", "dim": "2"}  # git's yellow for ids


def _git_value(*args: str) -> str | None:
    try:
        result = gitrun.run(list(args), stdin_null=True)
    except gitrun.GitUnavailable:
        return None
    return gitrun.text(result.stdout).strip() if result.returncode == 0 else None


def pager_command() -> str | None:
    """The pager git would use for this repository, or None for none (`cat`, empty)."""
    if NO_PAGER or not sys.stdout.isatty() or os.environ.get("GIT_PAGER_IN_USE"):
        return None
    pager = _git_value("var", "GIT_PAGER")
    if not pager or pager == "cat":
        return None
    return pager


@contextlib.contextmanager
def paged() -> Iterator[None]:
    """Send standard output through the pager (if any) while the block runs. Like git: LESS=FRX
    and LV=-c unless set, so a short output is left on the screen and colours pass through."""
    pager = pager_command()
    if pager is None:
        yield
        return
    env = {**os.environ, "GIT_PAGER_IN_USE": "true"}
    env.setdefault("LESS", "FRX")
    env.setdefault("LV", "-c")
    sys.stdout.flush()
    proc = subprocess.Popen(pager, shell=True, stdin=subprocess.PIPE, env=env)
    assert proc.stdin is not None
    real = sys.stdout
    sys.stdout = io.TextIOWrapper(proc.stdin, encoding="utf-8", errors="replace",
                                  line_buffering=False)
    try:
        yield
    except BrokenPipeError:
        pass  # the reader quit the pager
    finally:
        try:
            sys.stdout.close()
        except BrokenPipeError:
            pass
        sys.stdout = real
        proc.wait()


def use_colour() -> bool:
    """Colour when git would colour this output (color.memory, else color.ui; `auto` on a
    terminal) and NO_COLOR is not set."""
    if os.environ.get("NO_COLOR"):
        return False
    tty = "true" if sys.stdout.isatty() else "false"
    return _git_value("config", "--get-colorbool", "color.memory", tty) == "true"


def paint(text: str, role: str, on: bool) -> str:
    return f"\033[{_COLOURS[role]}m{text}\033[m" if on and text else text


def width() -> int | None:
    """The terminal's columns (COLUMNS wins, as in git), or None off a terminal."""
    if not sys.stdout.isatty() and not os.environ.get("COLUMNS"):
        return None
    return shutil.get_terminal_size((80, 24)).columns


def _char_width(char: str) -> int:
    if unicodedata.combining(char):
        return 0
    return 2 if unicodedata.east_asian_width(char) in ("W", "F") else 1


def display_width(text: str) -> int:
    """Columns `text` takes on a terminal: wide (CJK) characters count two, marks none."""
    return sum(_char_width(c) for c in text)


def fit(text: str, columns: int) -> str:
    """The first line of `text`, cut to `columns` display columns with an ellipsis."""
    line = text.strip().split("\n", 1)[0]
    if display_width(line) <= columns:
        return line
    kept, used = [], 0
    for char in line:
        w = _char_width(char)
        if used + w > columns - 1:
            break
        kept.append(char)
        used += w
    return "".join(kept) + "…"


def editor_command() -> str:
    """The editor git would start for this repository (BadInput when git has none)."""
    result = gitrun.run(["var", "GIT_EDITOR"], stdin_null=True)
    editor = gitrun.text(result.stdout).strip()
    if result.returncode != 0 or not editor:
        reason = gitrun.last_line(gitrun.text(result.stderr)) or "no editor configured"
        raise BadInput(f"cannot start an editor: {reason} (set core.editor or GIT_EDITOR)")
    return editor


def edit(path: str, text: str) -> str:
    """Let the person edit `text` in their editor, as git does: the text is written to
    `path`, the editor runs as `sh -c '<editor> "$@"' <editor> <path>` (so an editor
    setting with arguments works), and what the file holds afterwards comes back, less
    lines starting with '#' (the instructions). BadInput when the editor fails."""
    editor = editor_command()
    with open(path, "w", encoding="utf-8") as handle:
        handle.write(text)
    sys.stdout.flush()
    done = subprocess.run(["sh", "-c", editor + ' "$@"', editor, path])
    if done.returncode != 0:
        raise BadInput(f"the editor ({editor}) exited with {done.returncode}; nothing changed")
    with open(path, encoding="utf-8") as handle:
        kept = [line for line in handle.read().splitlines() if not line.startswith("#")]
    return "\n".join(kept).strip()

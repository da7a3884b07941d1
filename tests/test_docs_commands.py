"""The docs match the commands: every `git memory ...` line in a code block of README.md and
docs/*.md runs, in a repository with some entries, without a usage error (a line shown on
several pages runs once).

Synopsis notation is read as a person would: `[...]` is optional (left out), `a|b` takes
the first, `...` after a word means one, and the placeholders (ID, OLD, NEW, A, B, FILE,
TEXT, NAME, DIR) get real values: ids of entries made for the purpose, files from tests/data.
"""

from __future__ import annotations

import json
import re
import shlex
import subprocess
from pathlib import Path

from conftest import DATA, err, out

ROOT = Path(__file__).resolve().parents[1]
DOCS = [ROOT / "README.md"] + sorted(p for p in (ROOT / "docs").glob("*.md") if p.name != "cli.md")
COMMAND = re.compile(r"(?:^|\$ |&& |; |\| )(git memory\b.*)")
STDIN = "FACT: text from a pipe\n"  # for `... | git memory add -` and the like
# Commands that cannot succeed in a lone temporary repository, and why; they must still
# get past argument parsing (no usage error, no crash).
MAY_FAIL = {
    "sync": "needs a remote",
}
TRANSCRIPT = next((DATA / "claude-code-transcripts").rglob("*.jsonl"))
LAVRA = DATA / "lavra-knowledge" / "lavra.knowledge.jsonl"


# Commands that run until stopped: started, checked for their address, stopped.
SERVES = {"serve"}


def documented_commands() -> list[tuple[str, str]]:
    """(where, command line) for each `git memory` line inside a fenced code block."""
    found = []
    for doc in DOCS:
        inside = sample = False
        for number, line in enumerate(doc.read_text(encoding="utf-8").splitlines(), 1):
            if line.lstrip().startswith("```"):
                inside = not inside
                # A ```text block shows what a command prints, not commands to run.
                sample = inside and line.strip() == "```text"
                continue
            match = COMMAND.search(line) if inside and not sample else None
            if match:
                for part in _without_comment(match.group(1)).split(" / "):
                    part = part.strip()
                    found.append((f"{doc.name}:{number}", part if part.startswith("git ")
                                  else "git memory " + part))
    return found


def _without_comment(line: str) -> str:
    """The line up to a ` #` comment that is outside quotes."""
    quote = None
    for i, char in enumerate(line):
        if char in "\"'" and quote in (None, char):
            quote = None if quote else char
        elif char == "#" and quote is None and i and line[i - 1] == " " and (
                i + 1 == len(line) or line[i + 1] == " "):
            return line[:i].rstrip()
    return line


class Values:
    """Real values for placeholders: a fresh entry id each time one is asked for."""

    def __init__(self, ids: list[str], tmp: Path) -> None:
        self.ids = ids
        self.tmp = tmp
        self.markdown = tmp / "CLAUDE.md"
        self.markdown.write_text("# Notes\n\n- Run the tests with pytest\n", encoding="utf-8")

    def word(self, word: str) -> str:
        if word in ("ID", "OLD", "NEW", "A", "B"):
            return self.ids.pop(0)
        if word in ("FILE", "FILE..."):
            return str(TRANSCRIPT)
        if word == "knowledge.jsonl":
            return str(LAVRA)
        if word == "CLAUDE.md":
            return str(self.markdown)
        if word in ("out/", "DIR"):
            return str(self.tmp / f"out-{len(self.ids)}")
        if word == "TEXT":
            return "open items for the next session"
        if word == "NAME":
            return "main"
        if word == "…":
            return "a reason"
        return word.split("|")[0] if "|" in word and not word.startswith("-") else word


def _runnable(line: str, values: Values) -> list[str]:
    words, depth = [], 0
    for word in shlex.split(line)[2:]:
        opens, closes = word.count("["), word.count("]")
        if depth or opens:
            depth += opens - closes
            continue
        words.append(values.word(word))
    return words


def _serves(where: str, line: str, args: list[str]) -> list[str]:
    """A command that serves until stopped (`serve`): it must print its address, then it
    is stopped. The browser tests (tests/test_web_browser.py) cover what it serves."""
    proc = subprocess.Popen(["git", "memory", *args, "--no-open"], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, stdin=subprocess.DEVNULL, text=True)
    try:
        first = proc.stdout.readline() if proc.stdout else ""
    finally:
        proc.terminate()
        _, stderr = proc.communicate(timeout=30)
    if "http://127.0.0.1:" in first:
        return []
    return [f"{where}: {line}\n    ran {args}: printed {first.strip()[:200]!r}, {stderr.strip()[:300]}"]


def test_every_documented_command_parses_and_runs(git_repo: Path, gm, tmp_path: Path) -> None:
    rows = tmp_path / "pool.jsonl"
    rows.write_text("".join(json.dumps({"type": "fact", "content": f"documented fact {n}",
                                        "tags": ["auth"]}) + "\n" for n in range(60)))
    assert gm("import", str(rows)).returncode == 0
    ids = [e["id"] for e in json.loads(out(gm("list", "--json")))]
    values = Values(ids, tmp_path)
    commands = documented_commands()
    assert len(commands) >= 40  # the README and every page of docs/ have their examples
    failures = []
    ran = set()
    for where, line in commands:
        if line in ran:  # shown again on another page: the same words already ran
            continue
        ran.add(line)
        args = _runnable(line, values)
        name = args[0] if args else ""
        if name in SERVES:
            failures += _serves(where, line, args)
            continue
        result = gm(*args, input=STDIN)
        if result.returncode == 2 or result.returncode > 1 or (
                result.returncode == 1 and name not in MAY_FAIL):
            failures.append(f"{where}: {line}\n    ran {args} -> {result.returncode}:"
                            f" {err(result).strip()[:300]}")
    assert not failures, "\n".join(failures)

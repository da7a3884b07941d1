"""Shell debris, command lines and repeated lines in captured text.

Agents record knowledge through commands (`bd comment X "LEARNED: ..." 2>&1 | tail -3`)
whose tail the capture keeps. Debris is cut only after a quote unbalanced on its line
(`echo "x" 2>&1` keeps its own); a line goes as a command only when every word after a
known command is an argument, never indented or in a fence (examples); a repeated line
of four words or more is kept once.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass

# The tail after a stray quote: redirections, operators, and short commands.
_TAIL_TOKEN = re.compile(
    r"[12&]?>>?[ \t]*&[12]|[12&]?>>?[ \t]*/dev/null|\|\||&&|\||;|\\|[^\s|;&\\\"']+"
)
_REDIRECT = re.compile(r"[12&]?>>?[ \t]*(?:&[12]|/dev/null)")
_DEBRIS_MAX = 80
_MAX_PLAIN_ARGS = 2
COMMANDS = frozenset(
    "true exit git bd cd cat echo printf npm npx pnpm yarn cargo make pip pip3 python python3 uv go "
    "docker kubectl gh ls rm mkdir cp mv sed jq curl wget tail head grep rg pytest chmod "
    "export source sudo brew apt apt-get touch tee".split()
)
_HEREDOC = re.compile(
    r"^\s*(?:cat\s*)?<<-?\s*['\"]?[A-Z_]+['\"]?\s*$"  # cat << 'EOF
    r"|^\s*(?:EOF|EOT|END|DESC|MSG|BODY)\s*$"  # EOF
    r"|^\s*\)\"?(?:\s+--?[\w-]+(?:=\S*)?)*\s*$"  # )" --type=task
)
_FENCE = re.compile(r"^\s*(```|~~~)")
_WORDS = re.compile(r"\w+")
_SHELL_WORD = re.compile(r"""(?:"[^"]*"?|'[^']*'?|[^ \t"'])+""")


@dataclass
class Cut:
    """One thing removed: `rule` (shell-debris, command-noise, duplicate-line), where, what."""

    rule: str
    line: int
    removed: str


def _unbalanced(before: str, quote: str) -> bool:
    """True when `quote` at the end of `before` has no opening partner on the line."""
    count = 0
    for index, ch in enumerate(before):
        if ch != quote or (index and before[index - 1] == "\\"):
            continue
        if quote == "'" and 0 < index < len(before) - 1:
            if before[index - 1].isalnum() and before[index + 1].isalnum():
                continue  # an apostrophe: don't, it's
        count += 1
    return count % 2 == 0


def _is_tail(rest: str) -> bool:
    """True when `rest` is only shell plumbing: `2>&1 | tail -3`, `&& \\`, `|| true`."""
    tokens = _TAIL_TOKEN.findall(rest)
    if not tokens or "".join(tokens) != "".join(rest.split()):
        return False  # something (a quote, an odd character) is not shell plumbing
    state, plain = "op", 0
    for position, token in enumerate(tokens):
        if token == "\\":  # a line continuation, after something, ends the tail
            return 0 < position == len(tokens) - 1
        if _REDIRECT.fullmatch(token):
            continue
        if token in ("&&", "||", "|", ";"):
            if state == "cmd-expected":
                return False
            state, plain = "cmd-expected", 0
            continue
        if state == "cmd-expected":
            if token not in COMMANDS:
                return False
            state = "in-cmd"
            continue
        if state != "in-cmd":
            return False  # a word right after the quote: prose, not plumbing
        if re.fullmatch(r"[A-Za-z]+", token):
            plain += 1
            if plain > _MAX_PLAIN_ARGS:
                return False
    return state != "cmd-expected"


def cut_debris(line: str) -> tuple[str, str]:
    """(line without its trailing shell debris, the debris), or (line, "")."""
    tail_start = max(0, len(line) - _DEBRIS_MAX)
    if '"' not in line[tail_start:] and "'" not in line[tail_start:]:
        return line, ""  # debris starts at a quote: none here, the common case
    for start in range(tail_start, len(line)):
        quote = line[start]
        if quote not in "\"'":
            continue
        rest = line[start + 1:]
        if not rest.strip() or not _is_tail(rest):
            continue
        if _unbalanced(line[:start], quote):
            return line[:start].rstrip(), line[start:]
    return line, ""


def _tokens(line: str) -> list[str]:
    """Shell-like words; a quote runs to its partner or to the end of the line."""
    return _SHELL_WORD.findall(line)


def _is_argument(word: str) -> bool:
    if word in ("&&", "||", "|", ";", "\\", "&&\\"):
        return True
    if word[0] in "-\"'$/~." or "=" in word or "/" in word:
        return True
    return any(ch.isdigit() for ch in word) or bool(re.search(r"\.\w+$", word))


def is_command_line(line: str) -> bool:
    """True for a line that is a shell command and nothing else."""
    if _HEREDOC.match(line):
        return True
    first = line.split(None, 1)
    if not first or first[0] not in COMMANDS:
        return False  # decided without tokenizing the whole line
    words = _tokens(line.strip())
    if not words or words[0] not in COMMANDS:
        return False
    rest = words[1:]
    if rest and re.fullmatch(r"[a-z][a-z-]*", rest[0]) and words[0] in (
        "git", "bd", "npm", "pnpm", "yarn", "cargo", "docker", "kubectl", "gh", "uv", "go",
        "pip", "pip3", "brew", "apt", "apt-get", "make",
    ):
        rest = rest[1:]  # the subcommand: git add, bd close, npm install
    return all(_is_argument(word) for word in rest)


def _dedup_form(line: str) -> str:
    return " ".join(unicodedata.normalize("NFKC", line).casefold().split()).rstrip(".!;,: ")


def _all_commands(lines: list[str]) -> bool:
    """True when every line with words is a command: then the commands are the content."""
    words = [kept for kept in (cut_debris(line)[0] for line in lines) if kept.strip()]
    return bool(words) and all(is_command_line(line) for line in words)


def clean_noise(text: str) -> tuple[str, list[Cut]]:
    """Cut shell debris, drop command lines and repeated lines; report every cut. A text
    made only of commands (`LEARNED: make test` means what it says) keeps them."""
    if "\n" not in text and not _FENCE.match(text):
        # One line (most entries): it cannot repeat, and a command is then the whole
        # text, which keeps it; only debris can go.
        line, debris = cut_debris(text)
        if not debris:
            return text, []
        return (line if line.strip() else ""), [Cut("shell-debris", 1, debris)]
    drop_commands = not _all_commands(text.split("\n"))
    cuts: list[Cut] = []
    kept: list[str] = []
    seen: set[str] = set()
    in_fence = False
    for number, line in enumerate(text.split("\n"), 1):
        if _FENCE.match(line):
            in_fence = not in_fence
            kept.append(line)
            continue
        if in_fence:
            kept.append(line)
            continue
        line, debris = cut_debris(line)
        if debris:
            cuts.append(Cut("shell-debris", number, debris))
            if not line.strip():
                continue
        if drop_commands and not line[:1].isspace() and is_command_line(line):
            cuts.append(Cut("command-noise", number, line.strip()))
            continue
        form = _dedup_form(line)
        if len(_WORDS.findall(form)) >= 4:
            if form in seen:
                cuts.append(Cut("duplicate-line", number, line.strip()))
                continue
            seen.add(form)
        kept.append(line)
    return "\n".join(kept), cuts

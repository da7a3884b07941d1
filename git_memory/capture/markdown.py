"""Import a Markdown notes file (CLAUDE.md, AGENTS.md, a notes page): each top-level list
item (its indented lines, nested items and fenced blocks) and each paragraph is an entry
tagged by the nearest heading above it, typed by its marker or `default_type`. Front
matter, headings, rules, HTML comments and `@path` include lines are not entries.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from git_memory.capture.jsonl import ParsedFile
from git_memory.errors import BadInput
from git_memory.model import check_type, split_marker
from git_memory.sanitize.scan import rule_of
from git_memory.write.append import NewEntry

_HEADING = re.compile(r"^ {0,3}(#{1,6})[ \t]+(.*?)[ \t]*#*[ \t]*$")
_BULLET = re.compile(r"^( *)(?:[-*+]|\d{1,9}[.)])[ \t]+(.*)$")
_UNDERLINE = re.compile(r"^ {0,3}(=+|-+)[ \t]*$")  # a setext heading's second line
_RULE = re.compile(r"^ {0,3}([-*_])(?:[ \t]*\1){2,}[ \t]*$")
_INCLUDE = re.compile(r"^@\S+$")  # Claude Code: `@docs/style.md` pulls another file in
_FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})")
_TAG_WORD = re.compile(r"[a-z0-9]+")


@dataclass(slots=True)
class _Block:
    line: int
    item: bool  # a list item, not a paragraph
    lines: list[str]
    tag: str | None
    indent: int = 0  # of the bullet, for an item: deeper bullets are nested in it


def parse_markdown(data: bytes, default_type: str, name: str) -> ParsedFile:
    """The entries of a Markdown file; BadInput when unreadable."""
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError:
        raise BadInput(f"{name} is not valid UTF-8") from None
    if "\x00" in text:
        raise BadInput(f"{name} contains a NUL byte")
    kind = check_type(default_type)
    parsed = ParsedFile()
    blocks = _blocks(text.splitlines())
    parsed.lines = text.count("\n") + 1
    for block in blocks:
        label = f"line {block.line}"
        content = _content(block)
        if not content:
            continue
        marked, rest = split_marker(content)
        parsed.items.append(NewEntry(
            content=rest if marked else content,
            type=marked or kind,
            tags=[block.tag] if block.tag else [],
            source="import",
            origin={"file": name, "line": block.line},
            label=label,
        ))
    return parsed


def _blocks(lines: list[str]) -> list[_Block]:
    """Group lines into entries, tracking fences and comments."""
    blocks: list[_Block] = []
    current: _Block | None = None
    tag: str | None = None
    fence = ""  # the open fence's marker, while inside a fenced block
    comment = blank = False
    start = _front_matter_end(lines)
    for number, line in enumerate(lines[start:], start + 1):
        stripped = line.strip()
        if fence:
            if current is not None:
                current.lines.append(line)
            if stripped.startswith(fence):
                fence = ""
            continue
        if comment:
            comment = "-->" not in line
            continue
        if stripped.startswith("<!--"):
            comment = "-->" not in stripped
            continue
        opened = _FENCE.match(line)
        if opened:
            fence = opened.group(1)[:3]
            if current is None:
                current = _start(blocks, _Block(number, False, [line], tag))
            else:  # a code block belongs to the text it follows ("run this: ```...```")
                current.lines += ([""] if blank else []) + [line]
            blank = False
            continue
        if not stripped:
            blank = True
            continue
        if (_UNDERLINE.match(line) and not blank and current is not None and not current.item
                and len(current.lines) == 1 and current is blocks[-1]):
            blocks.pop()  # "Title" over "=====": a heading, not an entry
            tag, current = _tag(current.lines[0]), None
            continue
        heading = _HEADING.match(line)
        if heading or _RULE.match(line) or _INCLUDE.match(stripped):
            current, blank = None, False
            if heading:
                tag = _tag(heading.group(2))
            continue
        bullet = _BULLET.match(line)
        indent = len(bullet.group(1)) if bullet else 0
        if bullet and not (current is not None and current.item and indent > current.indent + 1):
            current = _start(blocks, _Block(number, True, [bullet.group(2)], tag, indent))
        elif current is not None and (not blank or (current.item and line[:1] in " \t")):
            current.lines += ([""] if blank else []) + [line]  # continuation of the entry
        else:
            current = _start(blocks, _Block(number, False, [line], tag))
        blank = False
    return blocks


def _start(blocks: list[_Block], block: _Block) -> _Block:
    blocks.append(block)
    return block


def _front_matter_end(lines: list[str]) -> int:
    """Index of the first line after a leading `---` front matter block (0 when none)."""
    if not lines or lines[0].strip() != "---":
        return 0
    for index in range(1, len(lines)):
        if lines[index].strip() in ("---", "..."):
            return index + 1
    return 0


def _content(block: _Block) -> str:
    """The entry's text: first line as is, the rest dedented by their common indent."""
    first, rest = block.lines[0].strip(), block.lines[1:]
    indents = [len(line) - len(line.lstrip()) for line in rest if line.strip()]
    cut = min(indents) if indents and block.item else 0
    body = [line[cut:].rstrip() if line.strip() else "" for line in rest]
    return "\n".join([first, *body]).strip()


def _tag(heading: str) -> str | None:
    if rule_of(heading):
        # Lower-cased and cut to 40 characters, a secret could slip past the scan as a
        # fragment; kept whole, the writer's scan of every tag refuses or redacts it.
        return heading.strip()
    words = _TAG_WORD.findall(heading.lower())
    return "-".join(words)[:40].strip("-") or None

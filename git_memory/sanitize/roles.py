"""Role prefixes and chat-template tokens that could pass for a new turn in what an agent
reads: the words stay, the form breaks (`System: x` -> `(System): x`, `<|im_start|>` ->
`(im_start)`). `neutralise_for_agent` adds, on read, line starts too common to rewrite
on write and the tags a model's host marks turns with (`<system-reminder>`).
"""

from __future__ import annotations

import re

# A role word at a line start, after optional quote/heading/bold decoration.
_ROLE_LINE = re.compile(
    r"^(?P<lead>[ \t>#*_]*)(?P<role>system|assistant|human|user)(?P<trail>[*_]*)[ \t]*:",
    re.IGNORECASE | re.MULTILINE,
)
# Chat-template tokens are never knowledge; break them wherever they are.
_TEMPLATE_TOKENS = re.compile(
    r"<\|(?P<pipe>[A-Za-z_][A-Za-z0-9_]{0,30})\|>"
    r"|\[(?P<inst>/?INST)\]"
    r"|<<(?P<sys>/?SYS)>>",
)


def _template(match: re.Match[str]) -> str:
    name = match.group("pipe") or match.group("inst") or match.group("sys")
    return f"({name})"


def neutralise_roles(text: str) -> tuple[str, int]:
    """The text with role prefixes and template tokens broken; how many were."""
    tokens = roles = 0
    # Each pattern needs a character most texts lack: a few `in` tests spare both scans.
    if "|>" in text or "INST]" in text or "SYS>>" in text:
        text, tokens = _TEMPLATE_TOKENS.subn(_template, text)
    if ":" not in text or _no_line_starts(text, _ROLE_WORDS):
        return text, tokens
    text, roles = _ROLE_LINE.subn(
        lambda m: f"{m.group('lead')}({m.group('role')}){m.group('trail')}:", text
    )
    return text, tokens + roles


_ROLE_WORDS = ("system", "assistant", "human", "user")


def _no_line_starts(text: str, words: tuple[str, ...]) -> bool:
    """True when no line of an ASCII `text` starts (after spaces, tabs and `>#*_`) with
    one of `words`, so no line pattern can match: their `^` is no anchor to the regex
    engine, which tries it at every position (about 5 us on a 400-character text; this
    test about 1 us). ASCII only: with IGNORECASE the long s matches `s`, and others."""
    return text.isascii() and not any(line.lstrip(" \t>#*_").startswith(words)
                                      for line in text.lower().split("\n"))


# Read side only: more line starts a model may take for a change of speaker (on write,
# `### System design` is a fine heading and `Tool: ruff` a fine fact).
_AGENT_LINE = re.compile(
    r"^(?P<lead>[ \t>#*_]*)(?P<role>developer|tool)(?P<trail>[*_]*)[ \t]*:"
    r"|^(?P<hlead>[ \t]*###[ \t]*)(?P<heading>instruction|system|response)\b",
    re.IGNORECASE | re.MULTILINE,
)
_SPACED_SYS = re.compile(r"<<\s*(?P<sys>/?SYS)\s*>>", re.IGNORECASE)
# Read side: a tag naming a speaker or an instruction channel, opening or closing, any
# attributes and case, an angle bracket or a lookalike; not an opening one glued to a
# word (`Vec<User>` is code). `<system-reminder>` becomes `(system-reminder)`.
_OPEN = "<\u2039\u2329\u27e8\u3008\u29fc\u276e\u02c2\uff1c\ufe64"
_CLOSE = ">\u203a\u232a\u27e9\u3009\u29fd\u276f\u02c3\uff1e\ufe65"
_ROLE_TAG = re.compile(
    rf"(?:(?<!\w)|(?=[{_OPEN}]\s*/))[{_OPEN}]\s*(?P<slash>/?)\s*(?P<name>"
    r"system(?:[-_ ]?(?:reminder|prompt|message|instructions?))?"
    r"|assistant|user|human|developer"
    r"|instructions?|prompt|important"
    r"|tool(?:[-_ ]?(?:call|calls|use|result|results|output|response))?"
    r"|function(?:[-_ ]?(?:calls?|results?))?|antml:[a-z_]+"
    r"|im[-_ ]?(?:start|end|sep)|start[-_ ]of[-_ ]turn|end[-_ ]of[-_ ]turn|eot[-_ ]id"
    r"|(?:start|end)[-_ ]header[-_ ]id)"
    rf"(?P<attrs>\s[^{_CLOSE}]{{0,200}})?\s*/?\s*[{_CLOSE}]",
    re.IGNORECASE,
)


def _role_tag(match: re.Match[str]) -> str:
    return f"({match.group('slash')}{match.group('name')})"


def _agent_line(match: re.Match[str]) -> str:
    if match.group("heading"):
        return f"{match.group('hlead')}({match.group('heading')})"
    return f"{match.group('lead')}({match.group('role')}){match.group('trail')}:"


# The words every line pattern here starts with (trying them cost an agent's read ~20 us
# an entry; most entries hold none at a line start).
_LINE_WORDS = (*_ROLE_WORDS, "developer", "tool", "instruction", "response")


def _nothing_to_neutralise(text: str) -> bool:
    """True when no pattern here can match: no template token, no role tag, no line
    starting with one of their words."""
    if not text.isascii() or "<<" in text or "<|" in text or "INST]" in text:
        return False
    if "<" in text and _ROLE_TAG.search(text):
        return False
    return _no_line_starts(text, _LINE_WORDS)


def neutralise_for_agent(text: str) -> str:
    """`neutralise_roles`, plus the read-side line starts above, for text shown to an agent."""
    return text if _nothing_to_neutralise(text) else _neutralise_all(text)


def _neutralise_all(text: str) -> str:
    text = _SPACED_SYS.sub(lambda m: f"({m.group('sys')})", text)
    text = _ROLE_TAG.sub(_role_tag, text)
    text, _ = neutralise_roles(text)
    return _AGENT_LINE.sub(_agent_line, text)

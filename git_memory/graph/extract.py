"""What an entry is about: the paths, identifiers and tags named in it.

Plain text rules, no language model: `code spans`, file-like paths (a slash, or a known
file extension), dotted.names, CamelCase, snake_case and SCREAMING_SNAKE identifiers,
plus the entry's anchored paths and tags. Each entry gives at most MAX_PER_ENTRY names,
so one long text cannot flood the graph. Pure Python; imports nothing of the package.
"""

from __future__ import annotations

import re

MAX_PER_ENTRY = 40
NAME_MAX = 120  # characters of one path or identifier; longer ones are left out

_URL = re.compile(r"\b[a-z][a-z0-9+.-]*://\S+", re.IGNORECASE)
_CODE = re.compile(r"`([^`\n]{2,%d})`" % NAME_MAX)
# A path: segments joined by slashes (`src/auth/token.py`, `.github/workflows/`, `~/x`),
# or one file name with an extension from FILE_EXTENSIONS (`setup.cfg`).
_PATH = re.compile(r"(?<![\w/.@:-])(?:[~.]{0,2}/)?(?:[\w.@+-]+/)+[\w.@+-]*")
_FILE = re.compile(r"(?<![\w/.-])[\w-]+(?:\.[\w-]+)*\.([A-Za-z0-9]{1,10})(?![\w/])")
_DOTTED = re.compile(r"(?<![\w.])[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)+(?![\w])")
_CAMEL = re.compile(r"(?<![\w.])(?:[A-Z][a-z0-9]+(?:[A-Z][a-z0-9]*)+|[a-z][a-z0-9]*(?:[A-Z][a-z0-9]*)+)(?![\w])")
_SNAKE = re.compile(r"(?<![\w.])_{0,2}[A-Za-z][A-Za-z0-9]*(?:_[A-Za-z0-9]+)+_{0,2}(?![\w])")
# Words joined by a slash in prose, not folders.
WORD_PAIRS = frozenset("and/or either/or read/write yes/no true/false on/off input/output"
                       " pros/cons he/she his/her before/after client/server".split())
FILE_EXTENSIONS = frozenset("""
py pyi js jsx ts tsx mjs cjs rb go rs java kt kts scala c h cc cpp hpp cs swift m mm php
pl sh bash zsh fish ps1 lua r sql html htm css scss sass less vue svelte json jsonl yaml
yml toml ini cfg conf env lock md rst txt csv xml gradle mk cmake dockerfile tf hcl proto
graphql ex exs erl hs ml clj el nix ipynb sqlite db log pem lockb
""".split())


def about(content: str, tags: list[str], anchors: list[str]) -> list[tuple[str, str]]:
    """(kind, name) pairs, kind in path/symbol/tag, in order of first appearance, each once."""
    found: dict[tuple[str, str], None] = {}
    for path in anchors:
        _add(found, "path", clean_path(path))
    for kind, name in identifiers(content):
        _add(found, kind, name)
    for tag in tags:
        _add(found, "tag", tag.strip().lstrip("#").lower())
    return list(found)[:MAX_PER_ENTRY]


def _add(found: dict[tuple[str, str], None], kind: str, name: str) -> None:
    if name and len(name) <= NAME_MAX and len(found) < MAX_PER_ENTRY:
        found.setdefault((kind, name), None)


def identifiers(text: str) -> list[tuple[str, str]]:
    """("path", p) and ("symbol", s) pairs named in a text, in order, each once."""
    text = _URL.sub(" ", text)
    spans: list[tuple[int, str, str]] = []
    taken: list[tuple[int, int]] = []
    for match in _CODE.finditer(text):  # a code span is one name, whatever it holds
        name = _code_name(match.group(1))
        if name:
            spans.append((match.start(), *name))
        taken.append(match.span())
    rest = _blank(text, taken)
    for pattern, kind in ((_PATH, "path"), (_FILE, "file"), (_DOTTED, "symbol"),
                          (_CAMEL, "symbol"), (_SNAKE, "symbol")):
        accepted = []
        for match in pattern.finditer(rest):
            named = _classify(match.group(0), kind)
            if named:
                spans.append((match.start(), *named))
                accepted.append(match.span())
        rest = _blank(rest, accepted)
    out: dict[tuple[str, str], None] = {}
    for _, found_kind, found_name in sorted(spans, key=lambda s: s[0]):
        out.setdefault((found_kind, found_name), None)
    return list(out)


def _blank(text: str, spans: list[tuple[int, int]]) -> str:
    """The text with these spans replaced by spaces (offsets kept), so a later pattern
    does not find part of a name an earlier one took."""
    if not spans:
        return text
    chars = list(text)
    for start, end in spans:
        chars[start:end] = " " * (end - start)
    return "".join(chars)


def _code_name(raw: str) -> tuple[str, str] | None:
    """A code span as a name: a path when it looks like one, else a symbol; a span with
    spaces (a command line, a sentence) names nothing unless it is a call `f(x, y)`."""
    text = raw.strip()
    if text.endswith(")") and "(" in text:
        text = text[: text.index("(")]
    if not text or any(ch.isspace() for ch in text):
        return None
    if _looks_like_path(text):
        return "path", clean_path(text)
    text = text.strip(".,;:")
    if not re.search(r"[A-Za-z_]", text) or len(text) < 2:
        return None
    return "symbol", text


def _classify(raw: str, kind: str) -> tuple[str, str] | None:
    token = raw.rstrip(".,;:!?)")
    if kind == "path":
        if not _rooted_or_file(token) and not _folder_words(token):
            return None  # `and/or`, `B/C/D`, `Locked/Deferred`: words joined by slashes
        cleaned = clean_path(token)
        return ("path", cleaned) if len(cleaned) > 1 and re.search(r"\w", cleaned) else None
    if kind == "file":
        ext = token.rsplit(".", 1)[-1].lower()
        return ("path", token) if ext in FILE_EXTENSIONS else None
    if kind == "symbol" and "." in token:
        parts = token.split(".")
        if any(len(p) < 2 for p in parts):
            return None  # e.g., i.e., a.b: abbreviations rather than names
    return ("symbol", token) if len(token) >= 3 else None


def _rooted_or_file(token: str) -> bool:
    """Starts at a root (`/`, `./`, `~/`, a dot folder) or ends in a known file extension."""
    last = token.rstrip("/").rsplit("/", 1)[-1]
    ext = last.rsplit(".", 1)[-1].lower() if "." in last else ""
    return token.startswith(("/", "./", "../", "~/", ".")) or ext in FILE_EXTENSIONS


def _folder_words(token: str) -> bool:
    """Plain folder names such as `src/auth/` or `app/models`: lower-case segments of two
    characters or more (a trailing slash alone makes a single word a folder)."""
    parts = [p for p in token.split("/") if p]
    if token.lower() in WORD_PAIRS or not parts or any(len(p) < 2 or not p[0].islower() for p in parts):
        return False
    return len(parts) >= 2 or token.endswith("/")


def _looks_like_path(text: str) -> bool:
    if "/" in text and re.search(r"\w", text):
        return True
    ext = text.rsplit(".", 1)[-1].lower() if "." in text else ""
    return ext in FILE_EXTENSIONS and bool(re.fullmatch(r"[\w.@+-]+", text))


def clean_path(path: str) -> str:
    """One spelling per path: no leading `./`, no trailing punctuation."""
    text = path.strip().strip("'\"")
    while text.startswith("./"):
        text = text[2:]
    return text.rstrip(".,;:!?")

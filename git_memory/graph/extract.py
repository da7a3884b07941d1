"""What an entry is about: the paths, identifiers and tags named in it, by plain text rules
(code spans, file-like paths, dotted.names, CamelCase and snake_case), at most MAX_PER_ENTRY
per entry so that one long text cannot flood the graph."""

from __future__ import annotations

import re

MAX_PER_ENTRY = 40
NAME_MAX = 120  # characters of one path or identifier; longer ones are left out

_URL = re.compile(r"\b[a-z][a-z0-9+.-]*://\S+", re.IGNORECASE)
_CODE = re.compile(r"`([^`\n]{2,%d})`" % NAME_MAX)
# A word of text is cut into pieces at brackets, quotes and other punctuation that no
# name holds; each piece is then matched whole against the patterns below, in order.
# A word that may hold a name: a slash, an underscore, a dot between word characters, or
# a lower-case letter followed by an upper-case one (plain prose has none of these).
_CANDIDATE = re.compile(r"(?<!\S)\S*?(?:[/_]|\w\.\w|[a-z][A-Z]|[A-Z][a-z0-9]+[A-Z])\S*")
_CUT = re.compile(r"[()\[\]{}<>,;=\"'`|*!?:&$%^\\]+")
# A path: segments joined by slashes (`src/auth/token.py`, `.github/workflows/`, `~/x`),
# or one file name with an extension from FILE_EXTENSIONS (`setup.cfg`).
_PATH = re.compile(r"(?:[~.]{0,2}/)?(?:[\w.@+-]+/)+[\w.@+-]*")
_FILE = re.compile(r"[\w-]+(?:\.[\w-]+)*\.([A-Za-z0-9]{1,10})")
_DOTTED = re.compile(r"[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)+")
_CAMEL = re.compile(r"[A-Z][a-z0-9]+(?:[A-Z][a-z0-9]*)+|[a-z][a-z0-9]*(?:[A-Z][a-z0-9]*)+")
_SNAKE = re.compile(r"_{0,2}[A-Za-z][A-Za-z0-9]*(?:_[A-Za-z0-9]+)+_{0,2}")
# Words joined by a slash in prose, not folders.
WORD_PAIRS = frozenset("and/or either/or read/write yes/no true/false on/off input/output"
                       " pros/cons he/she his/her before/after client/server".split())
# `log` is left out of FILE_EXTENSIONS: in prose it ends more calls (console.log) than files.
# First folders of a path that say "this is a path" without a slash at the end.
TOP_FOLDERS = frozenset("""
src lib app apps test tests spec docs doc scripts bin pkg cmd internal plugins packages site
config configs hooks tools web server client include vendor build dist public assets static
templates migrations modules components pages services utils installers releases examples
""".split())
FILE_EXTENSIONS = frozenset("""
py pyi js jsx ts tsx mjs cjs rb go rs java kt kts scala c h cc cpp hpp cs swift m mm php
pl sh bash zsh fish ps1 lua r sql html htm css scss sass less vue svelte json jsonl yaml
yml toml ini cfg conf env lock md rst txt csv xml gradle mk cmake dockerfile tf hcl proto
graphql ex exs erl hs ml clj el nix ipynb sqlite db pem lockb
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
    """("path", p) and ("symbol", s) pairs named in a text, in order, each once.

    One pass of a C-speed pattern picks the words that may hold a name (most words of
    prose cannot), and only those are cut and matched, which keeps a cold graph of 100k
    entries cheap."""
    if "://" in text:
        text = _URL.sub(" ", text)
    out: dict[tuple[str, str], None] = {}
    parts = _CODE.split(text) if "`" in text else [text]  # prose, code, prose, ..., prose
    for number, part in enumerate(parts):
        if number % 2:  # a code span is one name, whatever it holds
            named = _code_name(part)
            if named:
                out.setdefault(named, None)
            continue
        for word in _CANDIDATE.findall(part):
            for piece in (word,) if word.isalnum() else _CUT.split(word):
                named = _piece(piece if piece.endswith("/") else piece.rstrip("."))
                if named:
                    out.setdefault(named, None)
    return list(out)


def _piece(token: str) -> tuple[str, str] | None:
    """The name a piece of a word is, if any: a path, a file, a dotted name, a CamelCase or
    snake_case identifier."""
    if len(token) < 3 or len(token) > NAME_MAX:
        return None
    if "/" in token:
        return _classify(token, "path") if _PATH.fullmatch(token) else None
    if "." in token:
        found = _FILE.fullmatch(token)
        if found and found.group(1).lower() in FILE_EXTENSIONS:
            return "path", token
        return _classify(token, "symbol") if _DOTTED.fullmatch(token) else None
    if _CAMEL.fullmatch(token) or "_" in token and _SNAKE.fullmatch(token):
        return "symbol", token
    return None


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
    """Folder names (`src/auth`, `plugins/lavra/`), not words joined by slashes (`stdin/stdout`):
    lower-case segments of two characters or more, and a trailing slash, a usual top folder
    first, or a segment holding `-`, `_`, `.` or a digit."""
    parts = [p for p in token.split("/") if p]
    if token.lower() in WORD_PAIRS or not parts or any(len(p) < 2 or not p[0].islower() for p in parts):
        return False
    if token.endswith("/") or parts[0] in TOP_FOLDERS:
        return True
    return len(parts) >= 2 and any(not p.isalpha() for p in parts)


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

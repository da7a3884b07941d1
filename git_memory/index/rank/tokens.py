"""Search text: what the FTS table sees for an entry, and which words of a query count.

FTS5's unicode61 tokenizer splits on `_`, `.`, `/`, `-` and `:` but not `camelCase` or
`HTTPServer`, nor a run of CJK characters (written without spaces): we append those parts
(identifier parts, overlapping CJK pairs). Stemming is SQLite's porter tokenizer, so index
and query agree.
"""

from __future__ import annotations

import re
from itertools import filterfalse

# Words that carry no meaning of their own in a query ("how to ...", "what is the ...").
# Removed from queries only (the index keeps them), and only when other words remain.
STOP_WORDS = frozenset(
    """
    a about above after again against all am an and any are as at be because been
    before being below between both but by can could did do does doing down during
    each few for from further had has have having he her here hers herself him
    himself his how i if in into is it its itself just me more most my myself no
    nor not of off on once only or other our ours ourselves out over own same she
    should so some such than that the their theirs them themselves then there these
    they this those through to too under until up very was we were what when where
    which while who whom why will with would you your yours yourself yourselves
    """.split()
)

# A query that starts with one of these, or ends with "?", is a question ("how do I ...",
# "does X support Y?"): stage two then scores only its content words (index.rerank).
QUESTION_LEADS = frozenset(
    """
    what why how when where who whom whose which is are was were am do does did can could
    should would will shall may might must has have had
    """.split()
)
# Words a question is made of beside its subject: function words, and these modal verbs.
QUESTION_WORDS = STOP_WORDS | frozenset("may might must shall whose".split())

_WORD = re.compile(r"[^\W_]+")
_CAMEL_TOKEN = re.compile(r"[A-Za-z][a-z0-9]*[A-Z][A-Za-z0-9]*")
_CAMEL_PARTS = re.compile(r"[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+|[A-Z]+|[0-9]+")
# Han, Hiragana, Katakana, Hangul: scripts written without spaces between words.
_CJK_PATTERN = r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff]{2,}"
MAX_QUERY_WORDS = 32


# Text is scanned as bytes (a regular expression over every entry was a sixth of a build):
# each byte mapped to its class (a, A, d, or space), so a camelCase boundary is three
# substring tests; and each byte outside [A-Za-z0-9] to a space, for bytes.split().
_CLASSES = bytes(
    (97 if 97 <= i <= 122 else 65 if 65 <= i <= 90 else 100 if 48 <= i <= 57 else 32)
    for i in range(256)
)
_ALNUM = bytes(i if 48 <= i <= 57 or 65 <= i <= 90 or 97 <= i <= 122 else 32 for i in range(256))


def identifier_parts(text: str) -> list[str]:
    """The parts of every camelCase / PascalCase word in `text`, lower-cased."""
    # Only runs of [A-Za-z0-9] holding an upper-case letter can hold a token. A character
    # outside ASCII, as '?', separates runs as well (51 us a text by regex, this 10 us).
    raw = text.encode("ascii") if text.isascii() else text.encode("ascii", "replace")
    classes = raw.translate(_CLASSES)
    if b"aA" not in classes and b"dA" not in classes and b"AAa" not in classes:
        return []  # the common case
    extra: list[str] = []
    cache = _RUNS
    # filterfalse: the test per word runs in C, not as a Python loop
    for run in filterfalse(bytes.islower, raw.translate(_ALNUM).split()):
        parts = cache.get(run)
        if parts is None:
            parts = _run_parts(run.decode("ascii"))
            if len(cache) >= _MAX_RUNS:
                cache.clear()
            cache[run] = parts
        if parts:
            extra += parts
    return extra


# The parts of the runs seen before (identifiers repeat across entries: useEffect,
# JavaScript, RSpec), so a build splits each once.
_RUNS: dict[bytes, list[str]] = {}
_MAX_RUNS = 16384


def _run_parts(words: str) -> list[str]:
    """The lower-cased parts of the tokens in `words` that split in two or more."""
    extra: list[str] = []
    for word in _CAMEL_TOKEN.findall(words):
        parts = _CAMEL_PARTS.findall(word)
        if len(parts) > 1:
            extra.extend(p.lower() for p in parts)
    return extra


def cjk_pairs(text: str) -> list[str]:
    """Overlapping character pairs of every CJK run (a common stand-in for word breaking)."""
    pairs: list[str] = []
    for run in re.findall(_CJK_PATTERN, text):
        pairs.extend(run[i : i + 2] for i in range(len(run) - 1))
    return pairs


def search_text(text: str) -> str:
    """Text plus the identifier parts and CJK pairs FTS5 would not find by itself."""
    extra = identifier_parts(text)
    if not text.isascii():
        extra += cjk_pairs(text)
    return text + ("\n" + " ".join(extra) if extra else "")


def is_question(query: str) -> bool:
    """Whether `query` is asked as a question: a final "?", or a leading interrogative or auxiliary."""
    text = query.strip()
    if text.endswith("?"):
        return True
    first = _WORD.search(text)
    return first is not None and first.group().lower() in QUESTION_LEADS


def query_words(
    query: str, limit: int = MAX_QUERY_WORDS, keep_stop_words: bool = False
) -> list[str]:
    """The distinct words of a query that count, lower-cased, in query order (identifier
    parts and CJK pairs after their word; stop words dropped unless nothing else is left or
    `keep_stop_words`); at most `limit`, so a pasted page stays a fast query."""
    found: list[str] = []
    seen: set[str] = set()
    for match in re.finditer(r"\S+", query):
        chunk = match.group()
        pieces = [w.lower() for w in _WORD.findall(chunk)]
        pieces += identifier_parts(chunk)
        if not chunk.isascii():
            pieces += cjk_pairs(chunk)
        for word in pieces:
            if word not in seen:
                seen.add(word)
                found.append(word)
        if len(found) >= 4 * limit:
            break
    meaningful = found if keep_stop_words else [w for w in found if w not in STOP_WORDS]
    return (meaningful or found)[:limit]

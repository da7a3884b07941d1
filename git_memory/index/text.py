"""Search text: what the FTS table sees for an entry and for a query.

FTS5's unicode61 tokenizer already splits on `_`, `.`, `/` and `-`, so
`redirect_uri` and `redirect URI` meet; what it cannot do is split `camelCase`
or `HTTPServer`, so we append those parts. Pure Python, standard library only.
"""

from __future__ import annotations

import re

_HAS_CAMEL = re.compile(r"[a-z0-9][A-Z]|[A-Z]{2}[a-z]")
_CAMEL_TOKEN = re.compile(r"[A-Za-z][a-z0-9]*[A-Z][A-Za-z0-9]*")
_CAMEL_PARTS = re.compile(r"[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+|[A-Z]+|[0-9]+")


def identifier_parts(text: str) -> list[str]:
    """The parts of every camelCase / PascalCase word in `text`."""
    extra: list[str] = []
    if not _HAS_CAMEL.search(text):
        return extra  # the common case, decided by one scan
    for word in _CAMEL_TOKEN.findall(text):
        parts = _CAMEL_PARTS.findall(word)
        if len(parts) > 1:
            extra.extend(p.lower() for p in parts)
    return extra


def search_text(text: str) -> str:
    """Text plus the identifier parts FTS5 would not find by itself."""
    extra = identifier_parts(text)
    return text + ("\n" + " ".join(extra) if extra else "")

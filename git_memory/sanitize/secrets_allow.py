"""The allow list: placeholders and documented example keys, which look like a secret's
slot but hold none, and the shape tests that tell a random token from a word. A false
refusal costs a retry, a missed secret is shared with everyone who fetches: only values
that cannot be a live credential are allowed. Also `LazyPattern`.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Callable, Iterator


_METHODS = ("search", "match", "fullmatch", "finditer", "findall")


class LazyPattern:
    """A regular expression compiled on first use (a hook scanning one short message
    compiles only what it needs; compiling every pattern costs more than the scan), from
    a string or a function that builds it. After the first call its methods are the
    compiled pattern's own: a hot loop pays nothing for the laziness."""

    __slots__ = ("_source", "_flags", "_compiled", *_METHODS)

    search: Callable[..., re.Match[str] | None]
    match: Callable[..., re.Match[str] | None]
    fullmatch: Callable[..., re.Match[str] | None]
    finditer: Callable[..., Iterator[re.Match[str]]]
    findall: Callable[..., list[str]]

    def __init__(self, source: str | Callable[[], str], flags: int = 0) -> None:
        self._source = source
        self._flags = flags
        self._compiled: re.Pattern[str] | None = None
        for name in _METHODS:
            setattr(self, name, self._first_call(name))

    def _first_call(self, name: str) -> Callable[..., object]:
        def first(*args: object) -> object:
            return getattr(self.compiled, name)(*args)

        return first

    @property
    def compiled(self) -> re.Pattern[str]:
        if self._compiled is None:
            source = self._source if isinstance(self._source, str) else self._source()
            self._compiled = re.compile(source, self._flags)
            for name in _METHODS:
                setattr(self, name, getattr(self._compiled, name))
        return self._compiled


# Whole values that are names of a slot, not its content.
_PLACEHOLDER_WORDS = frozenset({
    "pass", "password", "passwd", "secret", "changeme", "change-me", "change_me", "example",
    "pwd", "token", "redacted", "hunter2", "none", "null", "nil", "true", "false", "undefined",
    "username", "user", "test", "testing", "secret123", "password123", "mypassword",
    "mysecret", "mytoken", "apikey", "api_key", "api-key", "your_password", "yourpassword",
    "placeholder", "dummy", "sample", "foo", "bar", "foobar", "baz", "abc", "abc123", "123456",
    "12345678", "qwerty", "letmein", "admin", "root", "default", "string", "str", "value",
    "required", "optional", "empty", "notset", "unset", "tbd", "todo", "fixme", "omitted",
    "hidden", "masked", "removed", "censored", "private", "key", "secretkey", "accesskey",
    "postgres", "mysql", "guest", "s3cret", "p@ssw0rd", "passw0rd", "pa55word",
})

# Documented example credentials (AWS's and Stripe's own docs): public on purpose.
_DOCUMENTED_EXAMPLES = (
    "akiaiosfodnn7example", "wjalrxutnfemi/k7mdeng/bpxrficyexamplekey",
    "sk_test_bqokikjovbii2hlwgh4olfq2", "sk_test_4ec39hqlyjwdarjtt1zdp7dc",
)
# Keys Google publishes in its own open-source apps and SDK samples (Firebase, Maps):
# public on purpose and restricted to those apps, so a note quoting one shares nothing
# (gitleaks keeps the same list). Only exact keys: any other AIza key is refused.
_PUBLISHED_KEYS = frozenset({
    "AIzaSyAnLA7NfeLquW1tJFpx_eQCxoX-oo6YyIs", "AIzaSyCkEhVjf3pduRDt6d1yKOMitrUEke8agEM",
    "AIzaSyDMAScliyLx7F0NPDEJi1QmyCgHIAODrlU", "AIzaSyD3asb-2pEZVqMkmL6M9N6nHZRR_znhrh0",
    "AIzayDNSXIbFmlXbIE6mCzDLQAqITYefhixbX4A", "AIzaSyAdOS2zB6NCsk1pCdZ4-P6GBdi_UUPwX7c",
    "AIzaSyASWm6HmTMdYWpgMnjRBjxcQ9CKctWmLd4", "AIzaSyANUvH9H9BsUccjsu2pCmEkOPjjaXeDQgY",
    "AIzaSyA5_iVawFQ8ABuTZNUdcwERLJv_a_p4wtM", "AIzaSyA4UrcGxgwQFTfaI3no3t7Lt1sjmdnP5sQ",
    "AIzaSyDSb51JiIcB6OJpwwMicseKRhhrOq1cS7g", "AIzaSyBF2RrAIm4a0mO64EShQfqfd2AFnzAvvuU",
    "AIzaSyBcE-OOIbhjyR83gm4r2MFCu4MJmprNXsw", "AIzaSyB8qGxt4ec15vitgn44duC5ucxaOi4FmqE",
    "AIzaSyA8vmApnrHNFE0bApF4hoZ11srVL_n0nvY",
})
_LONG_SEQUENCES = ("abcdefghijklmnop", "qrstuvwxyz1234")
_SEQUENCES = ("01234567890123456789" * 2, "abcdefghijklmnopqrstuvwxyz")

# Markers of a template or a variable reference at the start or around the value.
_VARIABLE = LazyPattern(
    r"""^(?:\$\{?[A-Za-z_][\w.]*\}?|\$\(|%[A-Za-z_]\w*%|\{\{.*\}\}|\{[%#].*|<[^<>]*>|\[[^\[\]]*\]
        |\#\{.*\}|@[A-Za-z_]\w*@|ENV\[|process\.env|os\.environ|os\.getenv|getenv\(
        |env\.|secrets\.|vars?\.|var\(|local\.|data\.|module\.|self\.|this\.|settings\.
        |config\.|ctx\.|args?\.|params?\.|props\.)""",
    re.X,
)

# Words inside a value that mark it as a stand-in, not a credential.
_STANDIN = LazyPattern(
    r"(?i)x{4,}|\*{3,}|\.{3}|…|#{4,}|_here\b|-here\b|here_|(?:^|[_-])your[_-]|^your[A-Z]"
    r"|example|placeholder|changeme|redacted|<[a-z_ -]+>|insert[_-]|replace[_-]?me|dummy"
    r"|notreal|not[_-]a[_-]real|fake|sample",
)


def _sequence_runs(low: str) -> bool:
    """Only runs of 3+ consecutive characters (`abc123efg456`, `abcd1234`): a value
    typed along the alphabet and the digit row, as docs examples are; no generator
    makes one. Short values only: the scanners' suites use a long repeated
    `abcd1234abcd1234...` as a stand-in for a real key, and so do we."""
    if not 6 <= len(low) <= 16 or not low.isalnum():
        return False
    run = 1
    for a, b in zip(low, low[1:]):
        if ord(b) == ord(a) + 1:
            run += 1
            continue
        if run < 3:
            return False
        run = 1
    return run >= 3


_LEET = str.maketrans("013457@$!", "oieastasi")
# Words a sample password is spelled from (`super_s3cr3t`, `My-P4ssw0rd!`): undone
# leetspeak leaves only these, so it is a stand-in, not a chosen password.
_SAMPLE_WORDS = frozenset({
    "super", "secret", "secrets", "password", "passwd", "pass", "my", "your", "our", "the",
    "test", "demo", "example", "sample", "admin", "user", "changeme", "change", "me",
    "letmein", "qwerty", "dev", "local", "default", "top", "very", "app", "db",
})


def _sample_words(low: str) -> bool:
    parts = [p for p in re.split(r"[_\-. ]+", low.translate(_LEET)) if p]
    return bool(parts) and len(parts) <= 4 and all(p in _SAMPLE_WORDS for p in parts) \
        and any(p in ("secret", "secrets", "password", "passwd", "pass") for p in parts)


def is_placeholder(value: str) -> bool:
    """True for a value that stands in for a secret rather than being one."""
    v = value.strip().strip("\"'`")
    if not v:
        return True
    low = v.lower()
    if low in _PLACEHOLDER_WORDS or any(example in low for example in _DOCUMENTED_EXAMPLES):
        return True
    if len(v) >= 39 and any(key in v for key in _PUBLISHED_KEYS):
        return True
    if len(low) >= 4 and any(low in seq for seq in _SEQUENCES):  # 12345678, abcdef
        return True
    if any(seq in low for seq in _LONG_SEQUENCES) or v.startswith("$"):
        return True
    if _sequence_runs(low) or _sample_words(low.rstrip("!?.")):
        return True
    if len(set(low) - set("-_.:/+=")) <= 2:  # "xxxx-xxxx", "0000", "aaaa==": no secret
        return True
    if _VARIABLE.match(v) or v[0] == "`":  # `$(cmd)`, `` `cmd` ``: run at run time
        return True
    if not any(c.isalnum() for c in v):  # only punctuation: a separator list, no secret
        return True
    return bool(_STANDIN.search(v))


def is_token_placeholder(token: str) -> bool:
    """A provider-format token that is a documented stand-in: a run of x's or stars, a
    single repeated character after its prefix, or EXAMPLE in it."""
    if token in _PUBLISHED_KEYS:
        return True
    low = token.lower()
    if "example" in low or "xxxxxxxx" in low or "****" in low or "…" in low:
        return True
    if any(example in low for example in _DOCUMENTED_EXAMPLES):
        return True
    if any(seq in low for seq in _LONG_SEQUENCES):
        return True
    # The body after the fixed prefix: one stand-in character repeated ("ghp_xxxx",
    # "0000"), or a few characters in long runs ("5555555dAAAAA7777777Cccc").
    body = re.sub(r"^[A-Za-z]{2,8}[_-]", "", token)
    if len(body) >= 8 and not set(body.lower()) - set("x*0#-_."):
        return True
    runs = 1 + sum(1 for a, b in zip(body, body[1:]) if a != b)
    return len(body) >= 30 and runs < len(body) / 3


def entropy(value: str) -> float:
    """Shannon entropy of the characters of `value`, in bits per character."""
    if not value:
        return 0.0
    n = len(value)
    return -sum(c / n * math.log2(c / n) for c in Counter(value).values())


_WORDISH = LazyPattern(r"^[A-Za-z]+(?:[_\-.][A-Za-z]+)*$")


def looks_random(value: str, min_len: int = 12) -> bool:
    """A value shaped like a generated token: long enough, letters and digits (or a
    high character entropy), and not a dotted/snake-cased run of words."""
    if len(value) < min_len or is_placeholder(value):
        return False
    if _WORDISH.match(value):  # some_identifier, a.b.c, SomeWord
        return entropy(value) >= 4.2 and any(c.isupper() for c in value[1:]) and len(value) >= 20
    has_digit = any(c.isdigit() for c in value)
    has_alpha = any(c.isalpha() for c in value)
    if has_digit and has_alpha:
        return entropy(value) >= 2.8
    return entropy(value) >= 3.5 and len(value) >= 16

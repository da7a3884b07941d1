"""Context detectors: a secret known by where it sits (an assignment, a command line, an
Authorization header, a URL, a Kubernetes Secret), not by its shape. Each finder yields
(rule, start, end) spans of the value.
"""

from __future__ import annotations

import base64
import binascii
import re
from collections.abc import Iterator

from git_memory.sanitize.secrets_allow import LazyPattern, is_placeholder, looks_random


Span = tuple[str, int, int]

ASSIGNMENT_RULE = "secret-assignment"
URL_RULE = "credentials-in-url"
CLI_RULE = "secret-in-command-line"
HEADER_RULE = "authorization-header"
K8S_RULE = "kubernetes-secret"

# Names whose value is a secret whatever it looks like (a password may be a word).
_PASSWORDISH = r"pass(?:wd|word|phrase|code)?|pwd|pw|secrete?|private[_.-]?key"
# Names whose value is a secret when it looks generated (a token is never a word).
_TOKENISH = (r"credentials?|token|api[_.-]?key|apikey|access[_.-]?key|auth(?:[_.-]?key|[_.-]?code)?|"
             r"client[_.-]?secret|key|login|bearer")

_NAME = (r"(?P<name>[A-Za-z0-9_.\-]*?(?:(?P<pw>" + _PASSWORDISH + r")|(?P<tok>" + _TOKENISH
         + r"))s?(?-i:(?![a-z]))[A-Za-z0-9_]*)(?:\[\d*\])?")
# The keyword a name holds; the scan starts from each keyword (cheap to find) instead of
# trying a name at every position of the text.
_KEYWORD = LazyPattern(
    r"(?i)(?:(?P<pw>" + _PASSWORDISH + r")|(?P<tok>" + _TOKENISH + r"))s?(?-i:(?![a-z]))"
)
_NAME_CHARS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_.-")
_OPERATOR_START = frozenset(":=?!>-")
# After the keyword: the rest of the name, an optional closing quote, an operator of
# any common syntax, the value.
_AFTER_KEYWORD = LazyPattern(
    r"(?P<rest>[A-Za-z0-9_]*)(?:\[\d*\])?[\"'`]?\]?[ \t]{0,8}"
    r"(?P<op>:?:?:=|\?=|=>|->|!==?|===?|=|:|[ \t](?=[\"']))[ \t]{0,8}"
    r"@?(?P<value>\"(?:[^\"\\\n]|\\.){1,500}\"|'[^'\n]{1,500}'|`[^`\n]{1,500}`"
    # NFKC (applied before any scan) turns a spacing diacritic into a space and a
    # combining mark (`¨` -> ` \u0308`): that space is inside the value, not after it.
    r"|(?:[^\s\"'`;)}\]]| (?=[\u0300-\u036f])){1,500})"
)
# The reverse comparison: `"value" == password`.
_COMPARE = LazyPattern(
    r"(?i)(?P<value>\"[^\"\n]{4,500}\"|'[^'\n]{4,500}')\s*[!=]==?\s*" + _NAME + r"\b"
)
_XML = LazyPattern(
    r"(?i)key\s*=\s*\"[^\"]*(?:pass|secret|token|apikey|api_key)[^\"]*\"\s+value\s*=\s*"
    r"\"(?P<value>[^\"]{1,500})\""
)
_CLI = LazyPattern(
    r"(?i)(?<![\w-])--?[A-Za-z0-9-]*(?:password|passwd|secret|token|api-?key|access-key|auth)"
    r"(?:[= ]|\s+)\s*(?P<value>\"[^\"\n]{1,300}\"|'[^'\n]{1,300}'|[^\s\"']{1,300})"
)
# Words one of which every `_CLI` match holds, looked for before the pattern compiles.
_CLI_WORDS = ("passw", "secret", "token", "api", "access-key", "auth")
_CURL_USER = LazyPattern(
    r"(?<![\w-])(?:-u|--user)[ \t]+(?P<q>[\"']?)\{?(?P<user>[^\s:\"']*)\}?(?P=q)?:(?P<q2>[\"']?)"
    r"(?P<value>[^\s\"']{1,300})"
)
_CURL_KEY_ONLY = LazyPattern(r"(?<![\w-])(?:-u|--user)[ \t]+[\"']?(?P<value>[^\s:\"']{10,}):[\"']?(?=\s|$)")
_HEADER = LazyPattern(
    r"(?i)\b(?:authorization|proxy-authorization)\s*[:=]\s*[\"']?(?:[a-z][a-z-]{1,20}\s+)?"
    r"(?P<value>[A-Za-z0-9._~+/=@-]{8,})"
)
_URL_CREDENTIALS = LazyPattern(
    r"(?i)\b[a-z][a-z0-9+.-]{1,20}://(?P<user>[^\s:/@'\"<>]{0,100}):(?P<pw>[^\s/@'\"<>]{3,200})@"
    r"(?=[A-Za-z0-9\[])"
)
_K8S_KIND = LazyPattern(r"(?im)^\s*kind:\s*[\"']?secret[\"']?\s*$")
_K8S_DATA = LazyPattern(
    r"(?m)^\s*(?:data|stringData):\s*$(?P<body>(?:\n[ \t]+.*|\n\s*#.*)+)"
)
_K8S_VALUE = LazyPattern(
    r"(?m)^[ \t]+[\w.-]+:\s*(?:[>|]-?\s*\n\s*)?[\"']?(?P<value>[A-Za-z0-9+/]{8,}={0,2})[\"']?\s*$"
)

def _unquote(value: str) -> tuple[str, bool]:
    if len(value) >= 2 and value[0] in "\"'`" and value[-1] == value[0]:
        return value[1:-1], True
    return value, False


def _value_span(m: re.Match[str]) -> tuple[int, int]:
    start, end = m.span("value")
    return (start + 1, end - 1) if _unquote(m.group("value"))[1] else (start, end)


def _secret_value(value: str, quoted: bool, passwordish: bool) -> bool:
    """Whether an assigned value is a credential and not a placeholder, a reference to a
    variable, a function call, a type or a word."""
    v = value.strip()
    if is_placeholder(v) or re.match(r"(?i)[a-z][a-z0-9+.-]*://", v):
        return False
    if not quoted:
        v = v.rstrip(".,:;")
        # A call, an attribute path or a bare identifier is code, not a literal.
        if "(" in v or "[" in v or (re.fullmatch(r"[A-Za-z_][\w.]*", v)
                                    and not any(c.isdigit() for c in v)):
            return False
        if v[:1] in "({[<$%&@" or v.lower() in ("true", "false", "null", "none"):
            return False
    if passwordish:
        if len(v) < 4:
            return False
        if quoted:
            return not re.fullmatch(r"[A-Za-z_]\w*\.[A-Za-z_][\w.]*", v)  # a dotted reference
        # Unquoted: a literal password has a digit or a symbol in it; prose does not.
        return bool(re.search(r"[0-9!@#$%^&*+=?~|\\/{}\[\]<>-]", v[1:])) or looks_random(v, 10)
    if quoted and " " in v.strip():
        # A quoted phrase in a key's slot: a passphrase unless it reads as a label.
        return len(v) >= 12 and not re.search(r"(?i)\b(?:the|your|an?|of|for|to|is)\b", v)
    # 10+: no API key or token is shorter (a 9-character value under `ACCESS_KEY` is a
    # sample such as `AbCeFG123`)
    return looks_random(v, 10) and " " not in v


# A name that holds where or what a secret is, not the secret: `ssh_key_url`,
# `token_type`, `password_length`, `api_key_name`, `secret_id`.
_NOT_SECRET_NAME = LazyPattern(
    r"(?i)(?:url|uri|path|file|name|id|ids|type|length|len|size|count|format|prefix|field|header"
    r"|env|dir|hint|mode|expiry|expires|expires_in|expiration|ttl|policy|label|placeholder"
    r"|min|max|regex|pattern|hash|digest|endpoint|provider|store|storage|ref|arn|version|help"
    r"|description|desc|error|message|msg|title|text|input|button|validator|strength)$"
)

# A name that says its value is not a live credential: `nonMatchingToken`, `fake_key`.
_NOT_REAL_NAME = LazyPattern(
    r"(?i)(?:non|not|fake|dummy|example|sample|invalid|wrong|mock|placeholder)(?![a-z])"
    r"|(?-i:(?:non|not|fake|dummy|example|sample|invalid|wrong|mock|placeholder)(?=[A-Z_]))"
)

# The stems every keyword holds, found with str.find (C speed) before any regex runs.
_STEMS = ("pass", "pw", "secret", "credential", "token", "key", "auth", "login", "bearer")


def keyword_positions(low: str) -> list[int]:
    """Where the stems of the secret-like names stand in `low`, in order."""
    stems = [stem for stem in _STEMS if stem in low]  # most texts hold none: 9 `in` tests
    if not stems:
        return []
    found: set[int] = set()
    for stem in stems:
        pos = low.find(stem)
        while pos != -1:
            found.add(pos)
            pos = low.find(stem, pos + 1)
    return sorted(found)


def _may_assign(text: str, pos: int) -> bool:
    """A necessary condition, in plain Python, for `_AFTER_KEYWORD` to match after the
    stem at `pos` (the rest of the name, `[n]`, a closing quote and `]`, up to 8 blanks,
    an operator or a quote after a blank): most stems in prose (`passes`, `the key
    insight`) fail it, so a short text never pays for compiling the assignment patterns."""
    end, n = pos, len(text)
    while end < n and text[end] in _NAME_CHARS:
        end += 1
    if end < n and text[end] == "[":
        close = text.find("]", end)
        if close != -1 and text[end + 1:close].isdigit() or close == end + 1:
            end = close + 1
    if end < n and text[end] in "\"'`":
        end += 1
    if end < n and text[end] == "]":
        end += 1
    blanks = end
    while blanks < n and blanks - end < 9 and text[blanks] in " \t":  # 8, and a 9th before a quote
        blanks += 1
    if blanks >= n:
        return False
    return text[blanks] in _OPERATOR_START or (blanks > end and text[blanks] in "\"'")


def find_assignments(text: str, low: str = "",
                     positions: list[int] | None = None) -> Iterator[Span]:
    """`name = value` in code, config, JSON, YAML, env files and comparisons.
    `positions`: where the keyword stems stand in `low` (found here when not given)."""
    low = low or text.lower()
    done = 0  # end of the last name looked at: a name with two keywords counts once
    for pos in keyword_positions(low) if positions is None else positions:
        if pos < done or not _may_assign(text, pos):
            continue
        start, floor = pos, max(0, pos - 80)
        while start > floor and text[start - 1] in _NAME_CHARS:  # back to the name's start
            start -= 1
        if start and text[start - 1].isascii() and text[start - 1].isalnum():
            continue
        # The earliest keyword of the name followed by an assignment says what kind of
        # name it is (`imagePullSecretJfrog.password=` is a password).
        m = k = None
        at = start
        while True:
            k = _KEYWORD.search(text, at, pos + 40)
            if not k or k.start() > pos:  # the stem at `pos` is no keyword ("Keydown")
                break
            m = _AFTER_KEYWORD.match(text, k.end())
            if m:
                break
            at = k.start() + 1
        if not k or not m:
            continue
        done = m.end("rest")
        name = text[start:done]
        if _NOT_SECRET_NAME.search(name) or _NOT_REAL_NAME.match(name) or name == "_authToken":
            continue
        value, quoted = _unquote(m.group("value"))
        if m.group("op").strip() == "" and not quoted:
            continue
        if _code_expression(text, m, quoted) or _command_substitution(m.group("value")):
            continue
        if _secret_value(value, quoted, bool(k.group("pw"))):
            yield (ASSIGNMENT_RULE, *_value_span(m))
    for m in _COMPARE.finditer(text) if "==" in text or "!=" in text else ():
        value, quoted = _unquote(m.group("value"))
        if _secret_value(value, quoted, bool(m.group("pw"))):
            yield (ASSIGNMENT_RULE, *_value_span(m))
    for m in _XML.finditer(text) if "value" in low else ():
        if _secret_value(m.group("value"), True, True):
            yield (ASSIGNMENT_RULE, *m.span("value"))


def _code_expression(text: str, m: re.Match[str], quoted: bool) -> bool:
    """An unquoted value holding `()[]{}$` after `=>` (a hash entry, an arrow) or in a
    statement `name = value;` (spaces around `=`, `;` ending it: C, Java, JavaScript,
    PHP; a shell assignment has no spaces, an env or YAML file no `;`). Without those
    marks the same value is a literal (`db_pass = m{x}y` in a config file)."""
    if quoted:
        return False
    rest = text[m.start("value"):]
    statement = rest.split(None, 1)[0] if rest.strip() else ""
    if not _CODE_CHARS.intersection(statement):
        return False
    op = m.group("op")
    if op == "=>":
        return True
    spaced = (text[m.start("op") - 1:m.start("op")] in (" ", "\t")
              and text[m.end("op"):m.end("op") + 1] in (" ", "\t"))
    return op == "=" and spaced and statement.endswith(";")


_CODE_CHARS = frozenset("()[]{}$")


def _command_substitution(value: str) -> bool:
    """A backquoted value holding a space is a shell command whose output is the value
    at run time (`KEY=`etcdctl get /app/key``), not the value."""
    return value.startswith("`") and any(c.isspace() for c in value)


def find_command_lines(text: str) -> Iterator[Span]:
    """`--password xyz`, `--token=xyz`, `curl -u user:pw`, `Authorization: Bearer xyz`."""
    low = text.lower()
    for m in _CLI.finditer(text) if "-" in text and any(w in low for w in _CLI_WORDS) else ():
        value, quoted = _unquote(m.group("value"))
        if _secret_value(value, quoted, True):
            yield (CLI_RULE, *_value_span(m))
    if "-u" in text or "--user" in text:
        for m in _CURL_USER.finditer(text):
            value = m.group("value").strip("{}")
            if _secret_value(value, True, True) and not is_placeholder(m.group("user") + value):
                yield (CLI_RULE, *m.span("value"))
        for m in _CURL_KEY_ONLY.finditer(text):  # `-u KEY:` an API key as the user name
            if looks_random(m.group("value"), 10):
                yield (CLI_RULE, *m.span("value"))
    for m in _HEADER.finditer(text) if "authorization" in low else ():
        value = m.group("value")
        if is_placeholder(value) or len(set(value)) <= 4 or _placeholder_basic(value):
            continue
        yield (HEADER_RULE, *m.span("value"))


def _placeholder_basic(value: str) -> bool:
    """A Basic credential whose base64 decodes to `user:placeholder` (docs examples)."""
    try:
        decoded = base64.b64decode(value + "=" * (-len(value) % 4), validate=True).decode()
    except (binascii.Error, UnicodeDecodeError, ValueError):
        return False
    user, _, password = decoded.strip().partition(":")
    return bool(_) and is_placeholder(password)


def find_url_credentials(text: str) -> Iterator[Span]:
    """user:password@ in a URL of any scheme, the password no placeholder or variable."""
    for m in _URL_CREDENTIALS.finditer(text):
        pw = m.group("pw")
        if not is_placeholder(pw) and pw[0] not in "$<{[%…":
            yield (URL_RULE, *m.span("pw"))


def find_kubernetes_secret(text: str) -> Iterator[Span]:
    """The base64 values under `data:` of a manifest of `kind: Secret`."""
    breaks = list(re.finditer(r"(?m)^---[ \t]*$", text))
    starts = [0] + [m.end() for m in breaks]
    ends = [m.start() for m in breaks] + [len(text)]
    for begin, end in zip(starts, ends):  # each YAML document on its own
        doc = text[begin:end]
        if not _K8S_KIND.search(doc):
            continue
        for block in _K8S_DATA.finditer(doc):
            base = begin + block.start("body")
            for m in _K8S_VALUE.finditer(block.group("body")):
                if not is_placeholder(m.group("value")):
                    yield (K8S_RULE, base + m.start("value"), base + m.end("value"))

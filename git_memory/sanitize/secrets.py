"""The secret scanner: `scan` (every secret's span), `find_secret` (the first rule that
fires), `redact_secrets`. Provider rules (`secrets_rules`) run only when a word of 12+
characters holds one of their literals; context rules (`secrets_context`,
`secrets_tokens`) only from where a keyword stands. `SHIM_HINTS` (`secrets_shim`) is the
commit-msg shim's grep, built from the same literals and keywords.
"""

from __future__ import annotations

import base64
import binascii
import re
from dataclasses import dataclass

from git_memory.sanitize import secrets_context as ctx
from git_memory.sanitize import secrets_allowlist as allowlist
from git_memory.sanitize import secrets_shapes as shapes
from git_memory.sanitize import secrets_tokens as tokens
from git_memory.sanitize.secrets_allow import LazyPattern, is_token_placeholder
from git_memory.sanitize.secrets_rules import PROVIDER_RULES, Rule
from git_memory.sanitize.secrets_shim import shim_hints

DETECTORS: tuple[Rule, ...] = PROVIDER_RULES

CONTEXT_RULES: dict[str, str] = {
    ctx.ASSIGNMENT_RULE: "a password, secret, token or key assigned a literal "
                         "(=, :, JSON, YAML, env files, XML, comparisons; not a value "
                         "that syntax marks as code, nor a backquoted command)",
    ctx.CLI_RULE: "a secret on a command line (--password x, --token=x, curl -u user:pw)",
    ctx.HEADER_RULE: "an Authorization header with a Bearer / Basic / token credential",
    ctx.URL_RULE: "user:password@ in a URL of any scheme (placeholders such as "
                  "`password`, `$VAR`, `<pw>` pass)",
    ctx.K8S_RULE: "a value under data: of a Kubernetes Secret manifest",
    tokens.SERVICE_RULE: "a random-looking token right after a service's name",
    tokens.LONE_RULE: "a text that is nothing but one random-looking token (not words "
                   "written together)",
    **shapes.DESCRIPTIONS,
}


@dataclass(frozen=True)
class Finding:
    """One secret: the rule that found it and the span of its value."""

    rule: str
    start: int
    end: int


# Every provider token lies in one whitespace-separated word of 12+ characters (a run),
# so literals and gates are looked for in these runs only: prose has few of them.
RUN_MIN = 12

# Run literals -> indexes of the rules they gate. A trie-shaped regex in a lookahead finds
# the longest literal at each position (overlapping ones too), `_RULES_AT` adds those
# that are its prefixes. Literals that may stand outside a run (spaces, quotes, scope
# "text") are looked for in the whole text.
_RUN_LITERALS: dict[str, list[int]] = {}
_TEXT_LITERALS: dict[str, list[int]] = {}
_GATE_OF: dict[int, LazyPattern] = {}
for _index, _rule in enumerate(PROVIDER_RULES):
    if _rule.gate:
        _GATE_OF[_index] = LazyPattern(_rule.gate)
    for _literal in _rule.literals:
        if _rule.scope == "text" or " " in _literal or '"' in _literal:
            _TEXT_LITERALS.setdefault(_literal, []).append(_index)
        else:
            _RUN_LITERALS.setdefault(_literal, []).append(_index)
# (each prefix looked up: comparing every pair of literals cost 2 ms of a hook's import)
_RULES_AT: dict[str, frozenset[int]] = {
    lit: frozenset(i for k in range(1, len(lit) + 1) for i in _RUN_LITERALS.get(lit[:k], ()))
    for lit in _RUN_LITERALS
}


def _trie_pattern(words: list[str]) -> str:
    """A regex matching any of `words`, factored by common prefixes (one branch per
    position for the regex engine instead of every word)."""
    tree: dict[str, dict] = {}  # type: ignore[type-arg]
    for word in words:
        node = tree
        for ch in word:
            node = node.setdefault(ch, {})
        node[""] = {}

    def build(node: dict) -> str:  # type: ignore[type-arg]
        alts = [re.escape(ch) + build(sub) for ch, sub in sorted(node.items()) if ch]
        if not alts:
            return ""
        body = alts[0] if len(alts) == 1 else "(?:" + "|".join(alts) + ")"
        return f"(?:{body})?" if "" in node else body

    return build(tree)


# Rules gated by a one-character literal ("." or "-", in most texts' runs): their gates
# are tried together first.
_WEAK = frozenset(i for i, r in enumerate(PROVIDER_RULES) if r.gate and min(map(len, r.literals)) == 1)
# The same gates starting at their separator, a lookbehind checking what precedes: a
# pattern that starts with a literal lets the regex engine skip to it (three times
# cheaper on prose). tests/test_sanitize_secrets.py checks they match where the gates do.
_WEAK_FAST = {
    "discord-bot-token": r"\.(?:(?<=[mnoa][\w-]{23}\.)|(?<=[mnoa][\w-]{24}\.)"
                         r"|(?<=[mnoa][\w-]{25}\.))[\w-]{6}\.",
    "mailgun-signing-key": r"-(?<=[a-h0-9]{32}-)[a-h0-9]{8}-",
    "facebook-app-token": r"\|(?<=\d{15}\|)",
    "twitter-access-token": r"-(?<=\d{15}-)[a-z0-9]{20}",
}
_WEAK_NAMES = {PROVIDER_RULES[i].rule for i in _WEAK}
_ANY_WEAK = LazyPattern("|".join(
    _WEAK_FAST.values() if _WEAK_NAMES == set(_WEAK_FAST)
    else (f"(?:{PROVIDER_RULES[i].gate})" for i in sorted(_WEAK))))
# One-character literals ("." "-" "|") are found with `in`; the trie holds the longer ones.
_ONE_CHAR = {lit: idx for lit, idx in _RUN_LITERALS.items() if len(lit) == 1}
_MULTI = sorted(lit for lit in _RUN_LITERALS if len(lit) > 1)
_TRIE: list[str] = []


def _literal_trie() -> str:
    """Built once, on first use: a text with no run of 12+ characters never needs it."""
    if not _TRIE:
        _TRIE.append(_trie_pattern(_MULTI))
    return _TRIE[0]


_ANY_LITERAL = LazyPattern(_literal_trie)
# The first texts with long runs get ~110 `in` tests (10-70 µs a text) instead of the
# trie (4-50 µs, but 2.5 ms to compile): a hook's few markers never compile it.
_FEW_SCANS = [16]
_LITERAL_AT = LazyPattern(lambda: "(?=(" + _literal_trie() + "))")
# Prefixes a provider rule owns: a lone token starting with one is that rule's business.
_OWNED_PREFIXES = tuple(sorted(
    {lit for r in PROVIDER_RULES for lit in r.literals if len(lit) >= 3 and lit[0].isalpha()}
    # OpenAI's project, service-account and admin keys: a wrong length is a near miss
    | {"eyj", "sk-ant", "aiza", "sk-proj-", "sk-svcacct-", "sk-admin-"}))


def _provider_candidates(low: str, runs: str) -> list[Rule]:
    hit: set[int] = set()
    for literal, indexes in _TEXT_LITERALS.items():
        if literal in low:
            hit.update(indexes)
    if runs:
        for literal, indexes in _ONE_CHAR.items():
            if literal in runs:
                hit.update(indexes)
        if _FEW_SCANS[0] > 0:  # `in` per literal: no trie to compile for a hook
            _FEW_SCANS[0] -= 1
            for literal in _MULTI:
                if literal in runs:
                    hit.update(_RUN_LITERALS[literal])
        elif _ANY_LITERAL.search(runs):  # then every literal, overlapping ones too
            for literal in set(_LITERAL_AT.findall(runs)):
                hit.update(_RULES_AT[literal])
    if not hit:
        return []
    weak = hit & _WEAK
    if weak and not _ANY_WEAK.search(runs):  # one search for the common case: none
        hit -= weak
    return [PROVIDER_RULES[i] for i in sorted(hit)
            if i not in _GATE_OF or _GATE_OF[i].search(runs)]


def _provider_findings(text: str, low: str, runs: str) -> list[Finding]:
    found: list[Finding] = []
    for rule in _provider_candidates(low, runs):
        for m in rule.pattern.finditer(text):
            group = "s" if "s" in rule.pattern.groupindex and m.group("s") else 0
            start, end = m.span(group)
            if rule.rule == "private-key-block":
                key_end = _KEY_END.search(text, start)
                end = key_end.end() if key_end else len(text)
                if not _key_body(text[start:end]):
                    continue
            elif is_token_placeholder(text[start:end]):
                continue
            elif rule.rule == "jwt" and not _jwt_header(m.group(0)):
                continue
            found.append(Finding(rule.rule, start, end))
    return found


# A private key's body follows its BEGIN line: the finding runs to the END line (or
# the end of the text, when a paste lost it). An empty block is a docs example.
_KEY_END = LazyPattern(r"-----END (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----")


def _key_body(block: str) -> str:
    body = block.split("-----", 2)[-1]
    return _KEY_END.compiled.sub("", body).strip()


def _jwt_header(token: str) -> bool:
    """A JWT whose header is base64 of `{"...` must decode to a whole JSON object that
    names "alg" or "typ"; one that does not start so is judged by its shape alone."""
    head = token.split(".", 1)[0]
    if not head.startswith("eyJ"):
        return True
    try:
        raw = base64.urlsafe_b64decode(head + "=" * (-len(head) % 4)).decode("utf-8", "replace")
    except (binascii.Error, UnicodeDecodeError, ValueError):
        return False
    # A JOSE header always names its algorithm ("alg"), usually its type ("typ").
    return raw.rstrip().endswith("}") and ('"alg"' in raw or '"typ"' in raw)


@dataclass(slots=True)
class _Prepared:
    """What every detector starts from, computed once per text."""

    low: str  # the text lower-cased, offsets kept
    long: list[str]  # its words of 12+ characters, in order
    runs: str  # the same joined by spaces
    single: bool  # the text is one word


def _prepare(text: str) -> _Prepared:
    low = text.lower()
    if len(low) != len(text):  # a few characters lower-case to two: keep offsets exact
        low = "".join(c if len(c.lower()) != 1 else c.lower() for c in text)
    # str.split (whitespace as `\s` has it) then a length test: half the time of a
    # `\S{12,}` regex, which retries at every character of a short word
    long = [word for word in low.split() if len(word) >= RUN_MIN]
    # one word in all: the single long word is the whole stripped text
    return _Prepared(low, long, " ".join(long), len(long) == 1 and len(long[0]) == len(low.strip()))


def _context_findings(text: str, p: _Prepared) -> list[Finding]:
    spans: list[tuple[str, int, int]] = []
    low = p.low
    positions = ctx.keyword_positions(low)
    if positions or "-u" in low or "--user" in low:
        spans.extend(ctx.find_assignments(text, low, positions))
        spans.extend(ctx.find_command_lines(text))
        if "kind:" in low:
            spans.extend(ctx.find_kubernetes_secret(text))
    if "://" in text and "@" in text:
        spans.extend(ctx.find_url_credentials(text))
    long_words: list[tuple[int, str]] = []
    if p.runs:  # the other rules need a word of 14+ characters
        long_words = _words(low, p.long, 14)  # once, for the service and shape rules
        if tokens.has_digit(p.runs):  # a service's token has digits
            spans.extend(tokens.find_service_tokens(text, low, long_words))
        if p.single:
            spans.extend(tokens.find_lone_token(text, _OWNED_PREFIXES))
    spans.extend(shapes.find_shapes(text, low, [w for w in long_words if len(w[1]) >= 22],
                                    _OWNED_PREFIXES, bool(positions)))
    return [Finding(rule, start, end) for rule, start, end in spans
            if rule != ctx.ASSIGNMENT_RULE or not _near_miss_value(low[start:end])]


# Prefixes that say which provider issued a token, precise enough to judge an assigned
# value by (a bare `pat`, `key-`, `test_`, `secret_` is too common in names and words).
_ISSUER_PREFIXES = tuple(sorted(
    p for p in _OWNED_PREFIXES
    if len(p) >= 4 and p[-1] in "_-." and p not in ("api-", "key-", "test_", "live_", "secret_")
) + ["dapi", "xox"])


def _near_miss_value(value: str) -> bool:
    """An assigned value with a provider's own prefix that its rule did not take (a
    near miss): the provider rule is the judge of its own format."""
    return value.lstrip("\"'`").startswith(_ISSUER_PREFIXES)


def _words(low: str, long: list[str], minimum: int) -> list[tuple[int, str]]:
    """(offset, word) of each of the `long` words of `minimum`+ characters (str.find:
    far cheaper than a regex over the text)."""
    out: list[tuple[int, str]] = []
    pos = 0
    for word in long:
        start = low.find(word, pos)
        pos = start + len(word)
        if len(word) >= minimum:
            out.append((start, word))
    return out


def _not_allowed(text: str, found: list[Finding]) -> list[Finding]:
    """`found` less what a person allowed (`secrets_allowlist`; only inside `honoured`)."""
    if not found or not allowlist.active():
        return found
    return [f for f in found if not allowlist.is_allowed(text, f.rule, f.start, f.end)]


def scan(text: str) -> list[Finding]:
    """Every secret in `text`, provider rules first, by position; overlapping findings
    of context rules give way to the provider rule that covers them."""
    p = _prepare(text)
    found = _provider_findings(text, p.low, p.runs)
    for finding in _context_findings(text, p):
        if not any(f.start < finding.end and finding.start < f.end for f in found):
            found.append(finding)
    return sorted(_not_allowed(text, found), key=lambda f: (f.start, f.end))


def find_secret(text: str) -> str | None:
    """The first rule that matches (provider rules first), or None."""
    p = _prepare(text)
    provider = _not_allowed(text, _provider_findings(text, p.low, p.runs))
    if provider:
        return min(provider, key=lambda f: f.start).rule
    context = _not_allowed(text, _context_findings(text, p))
    return context[0].rule if context else None


def redact_secrets(text: str) -> tuple[str, list[str]]:
    """`text` with every secret value replaced by `[REDACTED:rule]`, and the rules that
    fired, once each in order (the caller checks `find_secret` again afterwards)."""
    out: list[str] = []
    fired: list[str] = []
    pos = 0
    for f in scan(text):
        if f.start < pos:  # inside a span already cut
            continue
        out.append(text[pos:f.start])
        out.append(f"[REDACTED:{f.rule}]")
        pos = f.end
        if f.rule not in fired:
            fired.append(f.rule)
    out.append(text[pos:])
    return "".join(out), fired


def rules() -> list[str]:
    return [r.rule for r in PROVIDER_RULES] + list(CONTEXT_RULES)


def describe() -> list[tuple[str, str, str]]:
    """(rule, family, description) of every detector, for docs."""
    rows = [(r.rule, r.family, r.description) for r in PROVIDER_RULES]
    return rows + [(name, "context", text) for name, text in CONTEXT_RULES.items()]


def __getattr__(name: str) -> str:
    # SHIM_HINTS is built on first use (`secrets_shim`): only `install` renders it, and
    # the hooks that scan a message should not pay for joining ~250 patterns.
    if name == "SHIM_HINTS":
        return shim_hints()
    raise AttributeError(name)

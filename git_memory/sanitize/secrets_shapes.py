"""Shape detectors (issue #32): a credential known by what it looks like, for providers no
rule names. Here: a vendor-shaped prefix before a random body (`abc_pat_...`, `dp.st.`)
and issuers of a fixed shape without a prefix literal; `find_shapes`, the one entry
point, also runs the password hashes (`secrets_hashes`) and the slots, webhooks and env
lines (`secrets_slots`). Each finder is gated by a `str` test so that prose (no `$`, no
`://`, no long word) pays a few `in` checks.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from git_memory.sanitize.secrets_allow import LazyPattern, entropy, is_token_placeholder, looks_random
from git_memory.sanitize.secrets_hashes import HASH_RULE, find_password_hashes
from git_memory.sanitize.secrets_slots import (
    ENV_RULE, SLOT_RULE, WEBHOOK_RULE, find_env_secrets, find_slots, find_webhooks,
    has_command_mark,
)
from git_memory.sanitize.secrets_tokens import glued_words, random_run

__all__ = ["DESCRIPTIONS", "ENV_RULE", "HASH_RULE", "SLOT_RULE", "VENDOR_RULE", "WEBHOOK_RULE",
           "find_shapes"]

Span = tuple[str, int, int]

VENDOR_RULE = "vendor-prefixed-token"

DESCRIPTIONS: dict[str, str] = {
    VENDOR_RULE: "a short vendor-shaped prefix (`abc_`, `abc_pat_`, `ab.cd.`, `ABCD-`) before "
                 "a random body of 20+ letters and digits, for providers no rule names",
    HASH_RULE: "a password hash by its format's signature: crypt (`$2b$`, `$1$`, `$5$`, `$6$`, "
               "`$y$`, Cisco `$8$`/`$9$`), argon2/scrypt/PBKDF2, Kerberos `$krb5tgs$`/"
               "`$krb5asrep$`, pwdump and NetNTLM lines, LDAP `{SSHA}`",
    WEBHOOK_RULE: "a webhook URL whose path is the key (Teams / Office 365, Discord, Slack, "
                  "Google Chat, Zapier, Mattermost, Power Automate, any `/hooks/<random>`)",
    SLOT_RULE: "a value where a syntax keeps a password: .netrc, <password> elements, "
               "NetworkCredential(...) / DirectoryEntry(...), sshpass/psexec/mysql -p, "
               "connection strings, unseal keys, API-key headers",
    ENV_RULE: "an env-file line NAME=value whose value is a long random token",
}

# --- a vendor-shaped prefix before a random body ----------------------------------------
# A prefix of 2-7 letters of one case (an issuer's mark, not a word: `dckr`, `tvly`, `NRAK`)
# and maybe a digit, up to three more short parts,
# a separator; then a body of 20+ (`_`/`-` inside it allowed). Not glued to a longer
# word before, nor followed by `+/=` (base64, an SRI `sha512-...` hash) or `.ext`.
_VENDOR = LazyPattern(
    r"(?<![A-Za-z0-9_.+/=-])(?P<prefix>(?:[a-z]{2,7}(?:[0-9][a-z]{0,4})?|[A-Z]{2,7}(?:[0-9][A-Z]{0,4})?)(?:[_.-][A-Za-z0-9]{1,8}){0,3}[_.-])"
    r"(?P<body>[A-Za-z0-9][A-Za-z0-9_-]{19,199})(?![A-Za-z0-9+/=_-]|\.[A-Za-z0-9])"
)
# Prefixes that name a hash, an encoding or a version, not an issuer.
_NOT_VENDOR = frozenset({
    "sha", "sha1", "sha224", "sha256", "sha384", "sha512", "md5", "blake2b", "crc32", "uuid",
    "guid", "hex", "base64", "b64", "commit", "rev", "ref", "build", "run", "job", "id",
    "test", "tests", "fix", "release", "v", "r", "x", "xn", "gh", "pr", "issue", "tmp",
    # a key its own prefix calls public (Stripe's and others' publishable keys)
    "pk", "pub", "public",
    # object ids, public by design (Stripe's customers, charges, events, sessions...;
    # GitHub's GraphQL node ids): shown in URLs and dashboards, no credential
    "cus", "pi", "ch", "evt", "in", "sub", "price", "prod", "acct", "req", "txn", "re", "pm",
    "seti", "src", "ii", "po", "tr", "py", "cs", "pvt", "pvti",
})
# A name right before the token that says it is no live credential (`fakeToken = `).
_NOT_REAL_BEFORE = LazyPattern(
    r"(?i)(?:non|not|fake|dummy|example|sample|invalid|wrong|mock)[\w.-]{0,30}[\"'`]?\s*"
    r"(?::=|=>|[:=])\s*[\"'`]?$"
)
_HEX_ONLY = LazyPattern(r"[0-9a-fA-F]+")
_UUID_IN = LazyPattern(r"[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}")


def find_vendor_tokens(text: str, words: list[tuple[int, str]],
                       owned: tuple[str, ...] = ()) -> Iterator[Span]:
    """`words`: (offset, word) of the text's words of 22+ characters (lower-cased). A
    token with a prefix a provider rule owns (`owned`, lower-case) is that rule's to
    judge: its near misses (a wrong length) are not refused here."""
    for offset, word in words:
        if not ("_" in word or "-" in word or "." in word) or "://" in word:
            continue
        chunk = text[offset:offset + len(word)]
        for m in _VENDOR.finditer(chunk):
            start = offset + m.start()
            if word[m.start():].startswith(owned) or not _vendor_token(m.group("prefix"), m.group("body")):
                continue
            line_start = text.rfind("\n", 0, start) + 1
            if not _NOT_REAL_BEFORE.search(text, max(line_start, start - 60), start):
                yield (VENDOR_RULE, start, offset + m.end())


def _vendor_token(prefix: str, body: str) -> bool:
    head = re.split(r"[_.-]", prefix, maxsplit=1)[0].lower()
    if head in _NOT_VENDOR or head.isdigit():
        return False
    pieces = [p for p in re.split(r"[_-]", body) if p]
    core = max(pieces, key=len)
    # The random part: 20+ characters in one piece, or numbered groups and a random piece
    # (`xoxe-4726...-e0b1...`); not a UUID, not words glued together or in CamelCase.
    whole = "".join(pieces)
    if len(core) < 20 and not (len(pieces) <= 6 and len(whole) >= 24 and len(core) >= 10):
        return False
    if not any(c.isalpha() for c in whole):
        return False
    if not any(c.isdigit() for c in whole):
        # letters alone (`hf_` + 34): one piece of 20+, both cases, spread like random letters
        if len(core) < 20 or core.islower() or core.isupper() or entropy(core) < 4.0:
            return False
    # a commit id or digest after a word is no token (`sha-`, `commit-` are excluded
    # above); after a vendor's mark it is one (`glptt-` + 40 hex)
    if _HEX_ONLY.fullmatch(core) and len(core) in (40, 64) and len(head) < 3:
        return False
    if _UUID_IN.search(body) or is_token_placeholder(prefix + body):
        return False
    # Vendors draw bodies from 16+ symbols: 20 of them hold 12+ distinct characters.
    if len(set(whole)) < 12 or entropy(whole) < 3.4:
        return False
    return (random_run(core) or random_run(whole)) and not glued_words(core) \
        and not camel_words(core)


_CAMEL_PART = LazyPattern(r"[A-Z]?[a-z]+|[A-Z]+(?![a-z])|\d+")


def camel_words(core: str) -> bool:
    """Words in CamelCase (`SponsoredProductsRemoteRHFSearch`): four fifths of the
    characters in parts of 3+ letters voweled as words are (random letters fall in
    parts of one or two)."""
    wordy = sum(len(p) for p in _CAMEL_PART.findall(core)
                if len(p) >= 3 and p.isalpha() and sum(c in "aeiouyAEIOUY" for c in p) * 4 >= len(p))
    return wordy * 5 >= len(core) * 4


# Issuers whose tokens have a fixed shape but no prefix literal a provider rule could gate
# on (a suffix, a two-character start, a bare base32 run): looked for in long words.
_FIXED: tuple[tuple[str, str, str], ...] = (
    ("newrelic-license-key", r"[a-fA-F0-9]{36}NRAL", "New Relic license key (36 hex + NRAL)"),
    ("nuget-api-key", r"oy2[a-z0-9]{43}", "NuGet API key (oy2 + 43)"),
    ("okta-api-token", r"00[A-Za-z0-9_-]{40}", "Okta API token (00 + 40)"),
    ("truenas-api-key", r"\d{1,4}-[A-Za-z0-9]{64}", "TrueNAS API key (N-64)"),
    ("azure-devops-pat", r"[a-z2-7]{52}|[A-Za-z0-9]{76}AZDO[A-Za-z0-9]{4}", "Azure DevOps personal access token"),
    ("jenkins-api-token", r"11[0-9a-f]{32}", "Jenkins API token (11 + 32 hex)"),
)
_FIXED_RE = LazyPattern(
    r"(?<![A-Za-z0-9_-])(?:" + "|".join(f"(?P<g{i}>{src})" for i, (_, src, _) in enumerate(_FIXED))
    + r")(?![A-Za-z0-9_-])"
)
DESCRIPTIONS.update({name: text for name, _, text in _FIXED})


def find_fixed_formats(text: str, words: list[tuple[int, str]]) -> Iterator[Span]:
    for offset, word in words:
        if "/" in word:  # a path or URL: none of these formats holds a `/`
            continue
        chunk = text[offset:offset + len(word)]
        for m in _FIXED_RE.finditer(chunk):
            name = _FIXED[int(str(m.lastgroup)[1:])][0]
            value = m.group(0)
            body = value[2:] if name != "truenas-api-key" else value.split("-", 1)[1]
            if name == "azure-devops-pat" and sum(c.isdigit() for c in value) < 4:
                continue  # base32 of random bytes: ~1 character in 5 is a digit 2-7
            if name in ("okta-api-token", "truenas-api-key") and not (
                    any(c.isupper() for c in body) and any(c.islower() for c in body)
                    and any(c.isdigit() for c in body)):
                continue
            if is_token_placeholder(value) or not looks_random(body, 12) or glued_words(body):
                continue
            yield (name, offset + m.start(), offset + m.end())


# --- all of them -----------------------------------------------------------------------------


def find_shapes(text: str, low: str, words: list[tuple[int, str]],
                owned: tuple[str, ...] = (), stems: bool = True) -> list[Span]:
    """Every shape finding. `words`: (offset, word) of the 22+ character words;
    `owned`: the prefixes provider rules judge; `stems`: whether the text holds a
    secret-like keyword (the context rules' stems). A list, each finder called only past
    its gate: on prose (nearly every text) no generator is made at all."""
    out: list[Span] = []
    if words:
        out.extend(find_vendor_tokens(text, words, owned))
        out.extend(find_fixed_formats(text, words))
        if "=" in text:
            out.extend(find_env_secrets(text, owned))
    if "$" in text or "::" in text or "{" in text:
        out.extend(find_password_hashes(text))
    if "/" in text and ("hook" in low or "googleapis" in low or "ifttt" in low):
        out.extend(find_webhooks(text))
    if stems or has_command_mark(low):
        out.extend(find_slots(text, low, stems))
    return out

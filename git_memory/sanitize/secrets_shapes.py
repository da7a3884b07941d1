"""Shape detectors (issue #32): a credential known by what it looks like, for providers no
rule names. Four shapes: a vendor-shaped prefix before a random body (`abc_pat_...`,
`dp.st.`), a password hash's own signature (`$2b$`, `$6$`, `$krb5tgs$`, pwdump lines), a
webhook URL whose path is the key, and a value in a slot that holds a secret in some
syntax the assignment rule does not read (`.netrc`, `<password>` elements, constructors,
password flags of commands that take one, env-file lines). Each finder is gated by a
`str` test so that prose (no `$`, no `://`, no long word) pays a few `in` checks.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from git_memory.sanitize.secrets_allow import LazyPattern, entropy, is_placeholder, is_token_placeholder, looks_random
from git_memory.sanitize.secrets_tokens import glued_words, random_run

Span = tuple[str, int, int]

VENDOR_RULE = "vendor-prefixed-token"
HASH_RULE = "password-hash"
WEBHOOK_RULE = "webhook-url"
SLOT_RULE = "secret-in-known-slot"
ENV_RULE = "env-file-secret"

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
        if not any(sep in word for sep in "_-.") or "://" in word:
            continue
        chunk = text[offset:offset + len(word)]
        for m in _VENDOR.finditer(chunk):
            if m.group(0).lower().startswith(owned):
                continue
            line_start = text.rfind("\n", 0, offset + m.start()) + 1
            if _NOT_REAL_BEFORE.search(text, max(line_start, offset + m.start() - 60), offset + m.start()):
                continue
            if _vendor_token(m.group("prefix"), m.group("body")):
                yield (VENDOR_RULE, offset + m.start(), offset + m.end())


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


# --- password hashes ----------------------------------------------------------------------
_B64 = r"[./A-Za-z0-9]"
_HASHES = LazyPattern(
    r"(?<![\w$])(?:"
    r"\$2[abxy]?\$\d{2}\$" + _B64 + r"{53}"  # bcrypt
    r"|\$(?:1|apr1|md5)\$" + _B64 + r"{1,8}\$" + _B64 + r"{22}"  # md5crypt
    r"|\$[56]\$(?:rounds=\d{1,9}\$)?" + _B64 + r"{1,16}\$" + _B64 + r"{43}(?:" + _B64 + r"{43})?"
    r"|\$[89]\$" + _B64 + r"{14}\$" + _B64 + r"{43}"  # Cisco type 8 (PBKDF2) / 9 (scrypt)
    r"|\$(?:y|gy|7)\$[./A-Za-z0-9$]{20,}"  # yescrypt, scrypt
    r"|\$argon2(?:id|i|d)\$v=\d+\$m=\d+,t=\d+,p=\d+\$[A-Za-z0-9+/]{8,}\$[A-Za-z0-9+/]{20,}"
    r"|\$(?:pbkdf2|pbkdf2-sha\d{1,3}|scrypt|sha1|sha256|sha512|md5|ml|dcc2|django)\$"
    r"[^\s$]{0,40}(?:\$[^\s$]{0,80}){0,3}\$[A-Za-z0-9+/.=_-]{20,}"
    r"|\$krb5(?:asrep|tgs|pa|tgt)\$[^\s]{0,200}?[0-9a-fA-F]{32,}"  # Kerberos roasting
    r"|\{(?:S?SHA(?:256|384|512)?|S?MD5|CRYPT|PBKDF2[\w-]*)\}[A-Za-z0-9+/.$]{16,}={0,2}"  # LDAP
    r")"
    # Django's form: algorithm$iterations$salt$hash
    r"|(?<![\w$])(?:pbkdf2_sha(?:1|256)|bcrypt_sha256|argon2|scrypt)\$[^\s$]{1,80}\$[^\s$]{0,80}"
    r"\$?[A-Za-z0-9+/=]{20,}"
    # pwdump / secretsdump: user:RID:LM:NT:::
    r"|(?<![\w$])[^\s:]{1,64}:\d{1,10}:[0-9a-fA-F]{32}:[0-9a-fA-F]{32}:::"
    # NetNTLMv1/v2 (hashcat 5500/5600): user::domain:challenge:response:blob
    r"|(?<![\w$])[^\s:]{1,64}::[^\s:]{0,64}:[0-9a-fA-F]{16}:[0-9a-fA-F]{32,48}:[0-9a-fA-F]{16,}"
)


def find_password_hashes(text: str) -> Iterator[Span]:
    for m in _HASHES.finditer(text):
        value = m.group(0)
        tail = re.split(r"[$:]", value.rstrip(":"))[-1]
        if is_placeholder(tail) or len(set(tail)) < 8:  # `$2b$12$xxxx...`, all zeros
            continue
        yield (HASH_RULE, m.start(), m.end())


# --- webhook URLs ---------------------------------------------------------------------------
_WEBHOOKS = LazyPattern(
    r"(?i)(?:https?://)?(?:"
    r"[a-z0-9-]+\.webhook\.office\.com/webhookb2/|outlook\.office(?:365)?\.com/webhook/"
    r"|(?:ptb\.|canary\.)?discord(?:app)?\.com/api/webhooks/"
    r"|hooks\.slack\.com/(?:services|workflows|triggers)/"
    r"|chat\.googleapis\.com/v1/spaces/"
    r"|hooks\.zapier\.com/hooks/catch/"
    r"|[a-z0-9.-]+\.logic\.azure\.com(?::\d+)?/workflows/"
    r"|maker\.ifttt\.com/(?:trigger|use)/"
    r"|[a-z0-9.-]+(?::\d+)?/(?:hooks|webhooks?)/"
    r")(?P<path>[^\s\"'<>)\]]{8,600})"
)
_SIGNED_QUERY = LazyPattern(r"(?i)[?&](?:token|sig|key|secret)=([^&\s]{16,})")


def find_webhooks(text: str) -> Iterator[Span]:
    """A hook URL whose path (or its signed query) holds a random piece: the URL is the
    credential, anyone holding it can post."""
    for m in _WEBHOOKS.finditer(text):
        path = m.group("path")
        pieces = [p for p in re.split(r"[/@?&=#~]", path) if p]
        query = [q for q in _SIGNED_QUERY.findall(path)]
        random_piece = any(_hook_piece(p) for p in pieces) or any(_hook_piece(q) for q in query)
        if random_piece and not is_token_placeholder(path):
            yield (WEBHOOK_RULE, m.start(), m.end())


def _hook_piece(piece: str) -> bool:
    piece = piece.replace("%3D", "").replace("-", "").replace("_", "")
    if len(piece) < 7 or piece.isdigit() or not any(c.isdigit() for c in piece):
        return False
    if not piece.isalnum():
        return False
    # Zapier's hook key is 7 lower-case characters; others are 20+ characters
    return len(set(piece)) >= 6 and (len(piece) >= 20 or entropy(piece) >= 2.5)


# --- values in a slot a syntax keeps for a password -----------------------------------------
_VALUE = r"(?P<q>[\"']?)(?P<value>[^\s\"'<>;]{4,200})(?P=q)"
_SLOTS: tuple[tuple[str, LazyPattern], ...] = (
    # .netrc / _netrc: machine HOST login USER password PW (any spacing, on lines)
    ("machine", LazyPattern(r"(?is)\b(?:machine\s+\S+|default)\s+(?:(?:login|account)\s+\S+\s+)*"
                            r"password\s+" + _VALUE)),
    # Maven settings.xml, web.config, any XML element named for a secret
    ("<", LazyPattern(r"(?i)<(?P<tag>[\w:.-]*(?:password|passwd|passphrase|secret|apikey|api-key"
                      r"|api_key|token))(?:\s[^>]*)?>\s*(?P<value>[^<\s][^<]{3,200}?)\s*</(?P=tag)>")),
    # .NET / PowerShell constructors: the second literal (the third for DirectoryEntry)
    ("credential", LazyPattern(r"(?i)\b(?:NetworkCredential|PSCredential|UsernamePasswordCredential"
                               r"|BasicAWSCredentials|HTTPBasicAuth|HTTPDigestAuth|BasicAuth)\s*\(\s*"
                               r"(?:@?\"[^\"\n]*\"|'[^'\n]*')\s*,\s*@?[\"'](?P<value>[^\"'\n]{4,200})[\"']")),
    ("directoryentry", LazyPattern(r"(?i)\bDirectoryEntry\s*\(\s*@?\"[^\"\n]*\"\s*,\s*@?\"[^\"\n]*\"\s*,"
                                   r"\s*@?\"(?P<value>[^\"\n]{4,200})\"")),
    ("securestring", LazyPattern(r"(?i)ConvertTo-SecureString\s+(?:-String\s+)?[\"'](?P<value>[^\"'\n]{4,200})[\"']"
                                 r"\s+-AsPlainText")),
    # Commands whose -p (or -P, /p:) is a password, not a port
    ("-p", LazyPattern(r"(?i)\b(?:sshpass|psexec(?:64)?(?:\.exe)?|paexec|rdesktop|winexe|zip|7z|7za|unzip"
                       r"|redis-cli|mosquitto_pub|mosquitto_sub|ldapsearch|ldapmodify)\b"
                       r"[^\n|;&]{0,200}?\s(?:-[pPaw]|--pass(?:word)?)[ =]?" + _VALUE)),
    ("mysql", LazyPattern(r"\b(?:mysql|mysqldump|mysqladmin|mariadb|mysqlimport)\b[^\n|;&]{0,200}?"
                          r"\s-p(?P<q>[\"']?)(?P<value>[^\s\"']{3,200})(?P=q)")),
    ("/p:", LazyPattern(r"(?i)\b(?:xfreerdp|wfreerdp|net\s+use|wmic|cmdkey|schtasks|runas)\b[^\n|;&]{0,200}?"
                        r"\s/(?:p|pass|password)[: ]" + _VALUE)),
    ("client", LazyPattern(r"\b(?:smbclient|rpcclient|winexe)\b[^\n|;&]{0,200}?\s-U\s+[^\s%]+%" + _VALUE)),
    ("pass:", LazyPattern(r"(?i)\s-pass(?:in|out)?\s+pass:" + _VALUE)),
    # HashiCorp Vault's init output
    ("unseal", LazyPattern(r"(?i)\bunseal key(?:\s*\d+)?\s*:\s*(?P<value>[A-Za-z0-9+/]{40,}={0,2})")),
    # headers that carry a key whatever their name's spelling
    ("crumb", LazyPattern(r"(?i)\b(?:jenkins-crumb|x-jfrog-art-api|x-api-key|x-auth-token|private-token"
                          r"|x-vault-token|api-key|x-apikey|x-access-token|ocp-apim-subscription-key)"
                          r"[\"']?\s*[:=]\s*[\"']?(?P<value>[A-Za-z0-9._~+/=-]{16,})")),
)
_SLOT_LITERALS = tuple(lit for lit, _ in _SLOTS)


def find_slots(text: str, low: str) -> Iterator[Span]:
    for literal, pattern in _SLOTS:
        if literal not in low:
            continue
        for m in pattern.finditer(text):
            value = m.group("value").strip()
            if _slot_value(value, literal):
                start = m.start("value")
                yield (SLOT_RULE, start, start + len(value))


def _slot_value(value: str, literal: str) -> bool:
    if is_placeholder(value) or value[0] in "$%{<[(" or value.startswith(("env.", "secrets.")):
        return False
    if literal in ("crumb", "unseal"):
        return looks_random(value, 16)
    if literal == "<" and " " in value:  # prose in a <secret> element is a description
        return False
    # A password slot: any literal but a bare word of letters (`password prompt`)
    return any(not c.isalpha() for c in value) or looks_random(value, 10)


# --- env files ------------------------------------------------------------------------------
_ENV_LINE = LazyPattern(
    r"(?m)^[ \t]*(?:export[ \t]+)?(?P<name>[A-Z][A-Z0-9_]{2,60})[ \t]*=[ \t]*(?P<q>[\"']?)"
    r"(?P<value>[A-Za-z0-9+/_.~-]{24,400}={0,2})(?P=q)[ \t]*(?:#.*)?$"
)
_NOT_ENV_SECRET = LazyPattern(
    r"(?:_|^)(?:URL|URI|HOST|PATH|DIR|FILE|NAME|ID|SHA|COMMIT|REV|REF|HASH|DIGEST|VERSION|IMAGE"
    r"|TAG|BRANCH|REGION|ZONE|ENDPOINT|DOMAIN|BUCKET|USER|USERNAME|EMAIL|MODE|LEVEL)$"
)


def find_env_secrets(text: str, owned: tuple[str, ...] = ()) -> Iterator[Span]:
    """`NAME=value` on a line of its own, the value a long random token (`.env` files);
    one with a provider's prefix is that provider rule's to judge."""
    for m in _ENV_LINE.finditer(text):
        value = m.group("value")
        if value.lower().startswith(owned):
            continue
        if _NOT_ENV_SECRET.search(m.group("name")):
            continue
        core = value.rstrip("=")
        if core.count("/") > 1 or core.count(".") > 1:  # a path, a host, a version
            continue
        if _HEX_ONLY.fullmatch(core) and len(core) in (40, 64):  # a commit or a digest
            continue
        if len(set(core)) >= 14 and entropy(core) >= 4.0 and looks_random(core, 24) \
                and not glued_words(core) and not is_token_placeholder(core):
            yield (ENV_RULE, m.start("value"), m.end("value"))


# --- all of them -----------------------------------------------------------------------------


def find_shapes(text: str, low: str, words: list[tuple[int, str]],
                owned: tuple[str, ...] = ()) -> Iterator[Span]:
    """Every shape finding. `words`: (offset, word) of the 22+ character words;
    `owned`: the prefixes provider rules judge."""
    if words:
        yield from find_vendor_tokens(text, words, owned)
        yield from find_fixed_formats(text, words)
    if "$" in text or "::" in text or "}" in text:
        yield from find_password_hashes(text)
    if "/" in text and ("hook" in low or "googleapis" in low or "ifttt" in low):
        yield from find_webhooks(text)
    if any(lit in low for lit in _SLOT_LITERALS):
        yield from find_slots(text, low)
    if "=" in text and words:
        yield from find_env_secrets(text, owned)

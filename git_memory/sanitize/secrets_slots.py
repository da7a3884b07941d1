"""Credentials known by their place (issue #32): a webhook URL whose path is the key, a
value in a slot a syntax keeps for a password (.netrc, XML elements, constructors, the
password flags of commands that take one, key headers), an env-file line's random value.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from git_memory.sanitize.secrets_allow import LazyPattern, entropy, is_placeholder, is_token_placeholder, looks_random
from git_memory.sanitize.secrets_tokens import glued_words

Span = tuple[str, int, int]

WEBHOOK_RULE = "webhook-url"
SLOT_RULE = "secret-in-known-slot"
ENV_RULE = "env-file-secret"
_HEX_ONLY = LazyPattern(r"[0-9a-fA-F]+")

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
    ("</", LazyPattern(r"(?i)<(?P<tag>[\w:.-]*(?:password|passwd|passphrase|secret|apikey|api-key"
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
    ("-", LazyPattern(r"(?i)\b(?:jenkins-crumb|x-jfrog-art-api|x-api-key|x-auth-token|private-token"
                          r"|x-vault-token|api-key|x-apikey|x-access-token|ocp-apim-subscription-key)"
                          r"[\"']?\s*[:=]\s*[\"']?(?P<value>[A-Za-z0-9._~+/=-]{16,})")),
)
SLOT_LITERALS = tuple(lit for lit, _ in _SLOTS)
# What each slot's text must hold besides its literal (any one of them).
_ALSO: dict[str, tuple[str, ...]] = {
    "machine": ("password",),
    "</": ("pass", "secret", "apikey", "api-key", "api_key", "token"),
    "-p": ("sshpass", "psexec", "paexec", "rdesktop", "winexe", "zip", "7z", "redis-cli",
           "mosquitto", "ldapsearch", "ldapmodify"),
    "mysql": (" -p",),
    "client": ("smbclient", "rpcclient"),
    "-": ("key", "token", "crumb", "jfrog"),  # every header name holds one
}
# The slots a text without a secret-like keyword (`secrets_context.keyword_positions`'s
# stems) can still hold: commands and their flags, and two .NET calls. Nearly all prose
# has none of these marks, so it skips every slot pattern after a few `in` tests.
_NO_STEM = frozenset({"directoryentry", "securestring", "-p", "mysql", "/p:", "client", "-"})


def has_command_mark(low: str) -> bool:
    """A flag (` -p`, ` /p:`), `DirectoryEntry` or `Jenkins-Crumb`: what a slot of a text
    with no secret-like keyword needs."""
    return " -" in low or " /" in low or "\t-" in low or "entry" in low or "crumb" in low


def find_slots(text: str, low: str, stems: bool = True) -> Iterator[Span]:
    """`stems`: whether the text holds a secret-like keyword (`pass`, `key`, `token`...);
    without one, only the command-line and .NET slots are looked for."""
    if not stems and not has_command_mark(low):
        return
    for literal, pattern in _SLOTS:
        if (not stems and literal not in _NO_STEM) or literal not in low:
            continue
        also = _ALSO.get(literal)
        if also and not any(word in low for word in also):
            continue
        for m in pattern.finditer(text):
            value = m.group("value").strip()
            if _slot_value(value, literal):
                start = m.start("value")
                yield (SLOT_RULE, start, start + len(value))


def _slot_value(value: str, literal: str) -> bool:
    if is_placeholder(value) or value[0] in "$%{<[(" or value.startswith(("env.", "secrets.")):
        return False
    if literal in ("-", "unseal"):
        return looks_random(value, 16)
    if literal == "</" and " " in value:  # prose in a <secret> element is a description
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

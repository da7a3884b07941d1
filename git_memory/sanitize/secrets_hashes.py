"""Password hashes by their format's own signature (issue #32): crypt's `$id$` forms,
Kerberos roasting output, pwdump and NetNTLM lines, LDAP `{SSHA}` values. A hash is
crackable offline: it is refused like the password it stands for.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from git_memory.sanitize.secrets_allow import LazyPattern, is_placeholder

Span = tuple[str, int, int]

HASH_RULE = "password-hash"

# Each pattern starts with a literal (`$`, `{`, `::`), which the regex engine looks for
# first: a text with shell prompts (`$ ls`) or C++ (`std::`) pays a quick skip, not an
# attempt at every position. What precedes the literal is checked in Python.
_B64 = r"[./A-Za-z0-9]"
_CRYPT = LazyPattern(
    r"\$(?:"
    r"2[abxy]?\$\d{2}\$" + _B64 + r"{53}"  # bcrypt
    r"|(?:1|apr1|md5)\$" + _B64 + r"{1,8}\$" + _B64 + r"{22}"  # md5crypt
    r"|[56]\$(?:rounds=\d{1,9}\$)?" + _B64 + r"{1,16}\$" + _B64 + r"{43}(?:" + _B64 + r"{43})?"
    r"|[89]\$" + _B64 + r"{14}\$" + _B64 + r"{43}"  # Cisco type 8 (PBKDF2) / 9 (scrypt)
    r"|(?:y|gy|7)\$[./A-Za-z0-9$]{20,}"  # yescrypt, scrypt
    r"|argon2(?:id|i|d)\$v=\d+\$m=\d+,t=\d+,p=\d+\$[A-Za-z0-9+/]{8,}\$[A-Za-z0-9+/]{20,}"
    r"|(?:pbkdf2|pbkdf2-sha\d{1,3}|scrypt|sha1|sha256|sha512|md5|ml|dcc2|django)\$"
    r"[^\s$]{0,40}(?:\$[^\s$]{0,80}){0,3}\$[A-Za-z0-9+/.=_-]{20,}"
    r"|krb5(?:asrep|tgs|pa|tgt)\$[^\s]{0,200}?[0-9a-fA-F]{32,}"  # Kerberos roasting
    r")"
)
_LDAP = LazyPattern(r"\{(?:S?SHA(?:256|384|512)?|S?MD5|CRYPT|PBKDF2[\w-]*)\}[A-Za-z0-9+/.$]{16,}={0,2}")
# Django's form: algorithm$iterations$salt$hash
_DJANGO_WORDS = ("pbkdf2_sha", "bcrypt_sha256$", "argon2$", "scrypt$")
_DJANGO = LazyPattern(r"(?<![\w$])(?:pbkdf2_sha(?:1|256)|bcrypt_sha256|argon2|scrypt)\$[^\s$]{1,80}"
                      r"\$[^\s$]{0,80}\$?[A-Za-z0-9+/=]{20,}")
# pwdump / secretsdump: user:RID:LM:NT:::
_PWDUMP = LazyPattern(r"(?<![\w$])[^\s:]{1,64}:\d{1,10}:[0-9a-fA-F]{32}:[0-9a-fA-F]{32}:::")
# NetNTLMv1/v2 (hashcat 5500/5600): user::domain:challenge:response:blob
_NETNTLM = LazyPattern(r"::[^\s:]{0,64}:[0-9a-fA-F]{16}:[0-9a-fA-F]{32,48}:[0-9a-fA-F]{16,}")
_NOT_BEFORE = frozenset("$_" + "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789")


def _matches(text: str) -> Iterator[tuple[int, int]]:
    if "$" in text:
        for m in _CRYPT.finditer(text):
            if not m.start() or text[m.start() - 1] not in _NOT_BEFORE:
                yield m.span()
        if any(word in text for word in _DJANGO_WORDS):
            yield from (m.span() for m in _DJANGO.finditer(text))
    if "{" in text:
        yield from (m.span() for m in _LDAP.finditer(text))
    if ":::" in text:
        yield from (m.span() for m in _PWDUMP.finditer(text))
    if "::" in text:
        for m in _NETNTLM.finditer(text):
            start = m.start()  # the user name before `::`: 1-64 of no space or colon
            while start > 0 and m.start() - start < 64 and not text[start - 1].isspace() \
                    and text[start - 1] != ":":
                start -= 1
            if start < m.start():
                yield (start, m.end())


def find_password_hashes(text: str) -> Iterator[Span]:
    for start, end in _matches(text):
        value = text[start:end]
        tail = re.split(r"[$:]", value.rstrip(":"))[-1]
        if is_placeholder(tail) or len(set(tail)) < 8:  # `$2b$12$xxxx...`, all zeros
            continue
        yield (HASH_RULE, start, end)

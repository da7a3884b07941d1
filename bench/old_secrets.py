"""Frozen copy of git_memory/sanitize/secrets.py before issue #11 (24 rules), kept so
bench/bench_scanner.py and bench/secrets_eval.py can measure the new scanner against it
in the same run. Not used by the package; do not edit. Its original docstring follows.

Secret detectors: high-precision patterns, each with a rule name.

A match refuses the text; the rule's name is reported, never the matched value.
Every pattern keys on a vendor prefix or a fixed structure (a known prefix, a
length, a checksum-like shape), so ordinary prose and hashes do not trip it:
a false refusal costs a user a retry, a missed secret is shared with everyone
who fetches the branch. May import nothing from the package.
"""

from __future__ import annotations

import re
from dataclasses import dataclass


@dataclass(frozen=True)
class Detector:
    rule: str
    pattern: re.Pattern[str]
    description: str = ""


def _d(rule: str, pattern: str, description: str, flags: int = 0) -> Detector:
    return Detector(rule, re.compile(pattern, flags), description)


# A POSIX ERE that matches wherever any detector could (a literal every match must hold),
# for the commit-msg shim: an ASCII message it does not match cannot hold a secret, so
# the shim need not start Python. Tests check every detector's fake token against it.
_WORD_START = "(^|[^[:alnum:]_])"
SHIM_HINTS = "|".join([
    "AKIA|ASIA|ABIA|ACCA",
    "[aA][wW][sS]_?[sS][eE][cC][rR][eE][tT]",
    _WORD_START + "gh[pousr]_", "github_pat_",
    "gl(pat|dt|rt|ptt|soat|cbt)-",
    "xox[abposr]-", "hooks[.]slack[.]com",
    "[sr]k_(live|test)_",
    _WORD_START + "sk-", "T3BlbkFJ",
    _WORD_START + "npm_", "pypi-AgEIcHlwaS5vcmc", "AIza", "GOCSPX-",
    "PRIVATE KEY", _WORD_START + "eyJ", _WORD_START + "hf_", "SG[.]",
    "do[opr]_v1_", "shp(at|ca|pa|ss)_", "discord", ":AA", "AccountKey=",
    "://[^[:space:]/@]+:[^[:space:]/@]+@",
])


# Placeholders people write in docs ("postgres://user:password@host"): not secrets.
_PLACEHOLDER_PASSWORDS = {
    "pass", "password", "passwd", "secret", "changeme", "example", "xxx", "xxxx", "****",
    "pwd", "token", "redacted", "hunter2",
}

DETECTORS: tuple[Detector, ...] = (
    _d("aws-access-key-id", r"\b(?:AKIA|ASIA|ABIA|ACCA)[0-9A-Z]{16}\b", "AWS access key id"),
    _d(
        "aws-secret-access-key",
        r"(?i)\baws_?secret_?access_?key\b[\"']?\s*[:=]\s*[\"']?[A-Za-z0-9/+]{40}(?![A-Za-z0-9/+])",
        "AWS secret access key in an assignment",
    ),
    _d("github-token", r"\bgh[pousr]_[A-Za-z0-9]{36,255}\b", "GitHub classic / OAuth / app token"),
    _d("github-fine-grained-token", r"\bgithub_pat_[A-Za-z0-9_]{60,255}\b",
       "GitHub fine-grained personal access token"),
    _d("gitlab-token", r"\b(?:glpat|gldt|glrt|glptt|glsoat|glcbt)-[A-Za-z0-9_-]{20,}",
       "GitLab personal, deploy, runner or trigger token"),
    _d("slack-token", r"\bxox[abposr]-(?:[0-9]+-)+[A-Za-z0-9-]{6,}", "Slack bot / user token"),
    _d("slack-webhook",
       r"https://hooks\.slack\.com/(?:services|workflows|triggers)/[A-Za-z0-9_/-]{20,}",
       "Slack incoming webhook URL"),
    _d("stripe-key", r"\b(?:sk|rk)_(?:live|test)_[0-9A-Za-z]{24,}\b", "Stripe secret / restricted key"),
    _d("anthropic-api-key", r"\bsk-ant-(?:api|admin)\d{2}-[A-Za-z0-9_-]{80,}",
       "Anthropic API key"),
    _d(
        "openai-api-key",
        r"\bsk-(?:proj|svcacct|admin)-[A-Za-z0-9_-]{40,}|\bsk-[A-Za-z0-9]{20}T3BlbkFJ[A-Za-z0-9]{20}\b",
        "OpenAI API key",
    ),
    _d("npm-token", r"\bnpm_[A-Za-z0-9]{36}\b", "npm access token"),
    _d("pypi-token", r"\bpypi-AgEIcHlwaS5vcmc[A-Za-z0-9_-]{50,}", "PyPI upload token"),
    _d("google-api-key", r"\bAIza[0-9A-Za-z_-]{35}(?![0-9A-Za-z_-])", "Google API key"),
    _d("google-oauth-client-secret", r"\bGOCSPX-[A-Za-z0-9_-]{28}\b", "Google OAuth client secret"),
    _d("private-key-block", r"-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----",
       "PEM / OpenSSH / PGP private key block"),
    _d("jwt", r"\beyJ[A-Za-z0-9_-]{10,}\.eyJ[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,}",
       "JSON Web Token"),
    _d("huggingface-token", r"\bhf_[A-Za-z]{34}\b", "Hugging Face access token"),
    _d("sendgrid-api-key", r"\bSG\.[A-Za-z0-9_-]{22}\.[A-Za-z0-9_-]{43}\b", "SendGrid API key"),
    _d("digitalocean-token", r"\bdo[opr]_v1_[a-f0-9]{64}\b", "DigitalOcean token"),
    _d("shopify-token", r"\bshp(?:at|ca|pa|ss)_[a-fA-F0-9]{32}\b", "Shopify access token"),
    _d("discord-webhook",
       r"https://(?:ptb\.|canary\.)?discord(?:app)?\.com/api/webhooks/\d+/[A-Za-z0-9_-]{60,}",
       "Discord webhook URL"),
    _d("telegram-bot-token", r"\b\d{8,10}:AA[0-9A-Za-z_-]{33}\b", "Telegram bot token"),
    _d("azure-storage-key", r"AccountKey=[A-Za-z0-9+/]{86}==", "Azure storage account key"),
)

# user:password@ in a URL; checked in code so placeholders pass.
_URL_CREDENTIALS = re.compile(
    r"\b[a-z][a-z0-9+.-]{1,20}://(?P<user>[^\s:/@'\"<>]{1,100}):(?P<pw>[^\s/@'\"<>]{3,200})@"
    r"[A-Za-z0-9.-]+", re.I,
)
URL_RULE = "credentials-in-url"


def _url_credentials(text: str) -> bool:
    return any(_real_password(m.group("pw")) for m in _URL_CREDENTIALS.finditer(text))


def _real_password(pw: str) -> bool:
    if pw.lower() in _PLACEHOLDER_PASSWORDS or set(pw) <= {"*", "x", "X", "."}:
        return False
    # A variable or a placeholder: $PASSWORD, <password>, {{ pw }}
    return not (pw[0] in "$<{[%" or pw.startswith("…"))


# A private key's body follows its BEGIN line: redaction takes everything up to the
# END line (or the end of the text, when a paste lost it).
_KEY_BLOCK = re.compile(
    r"-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----.*?"
    r"(?:-----END (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----|\Z)", re.S,
)


def redact_secrets(text: str) -> tuple[str, list[str]]:
    """`text` with every secret the detectors find replaced by `[REDACTED:rule]`,
    and the rules that fired (once each, in detector order).

    For writers that would rather keep an entry without its secret than refuse it
    (`import --redact-secrets`); the caller checks `find_secret` again afterwards.
    """
    fired: list[str] = []
    low = text.lower()
    for detector in DETECTORS:
        literals = _LITERALS.get(detector.rule, ())
        if literals and not any(lit in low for lit in literals):
            continue
        pattern = _KEY_BLOCK if detector.rule == "private-key-block" else detector.pattern
        text, count = pattern.subn(f"[REDACTED:{detector.rule}]", text)
        if count:
            fired.append(detector.rule)
    if "://" in text and "@" in text:
        hidden: list[str] = []
        text = _URL_CREDENTIALS.sub(lambda m: _redact_password(m, hidden), text)
        if hidden:
            fired.append(URL_RULE)
    return text, fired


def _redact_password(match: re.Match[str], hidden: list[str]) -> str:
    """The URL with its password replaced (user and host stay: they say which service)."""
    whole = match.group(0)
    if not _real_password(match.group("pw")):
        return whole
    hidden.append(URL_RULE)
    start, end = (i - match.start() for i in match.span("pw"))
    return f"{whole[:start]}[REDACTED:{URL_RULE}]{whole[end:]}"


def rules() -> list[str]:
    """Every rule name, for docs and tests."""
    return [d.rule for d in DETECTORS] + [URL_RULE]


# For each detector, literals one of which (lower-cased) every match contains: a
# detector runs only on text holding one, so a text with a URL no longer pays for all
# 24 scans (an import of 100k entries runs this 100k times). Tests run every
# detector's fake token through find_secret, so a literal missing here fails them.
_LITERALS: dict[str, tuple[str, ...]] = {
    "aws-access-key-id": ("akia", "asia", "abia", "acca"),
    "aws-secret-access-key": ("aws",),
    "github-token": ("ghp_", "gho_", "ghu_", "ghs_", "ghr_"),
    "github-fine-grained-token": ("github_pat_",),
    "gitlab-token": ("glpat-", "gldt-", "glrt-", "glptt-", "glsoat-", "glcbt-"),
    "slack-token": ("xox",),
    "slack-webhook": ("hooks.slack.com",),
    "stripe-key": ("k_live_", "k_test_"),
    "anthropic-api-key": ("sk-ant-",),
    "openai-api-key": ("sk-",),
    "npm-token": ("npm_",),
    "pypi-token": ("pypi-",),
    "google-api-key": ("aiza",),
    "google-oauth-client-secret": ("gocspx-",),
    "private-key-block": ("private key",),
    "jwt": ("eyj",),
    "huggingface-token": ("hf_",),
    "sendgrid-api-key": ("sg.",),
    "digitalocean-token": ("_v1_",),
    "shopify-token": ("shpat_", "shpca_", "shppa_", "shpss_"),
    "discord-webhook": ("discord",),
    "telegram-bot-token": (":aa",),
    "azure-storage-key": ("accountkey=",),
}


_ALL_LITERALS = tuple(sorted({lit for lits in _LITERALS.values() for lit in lits}))


def find_secret(text: str) -> str | None:
    """The name of the first rule that matches, or None."""
    low = text.lower()
    present = [literal for literal in _ALL_LITERALS if literal in low]
    if present:
        for detector in DETECTORS:
            literals = _LITERALS.get(detector.rule, ())
            if any(literal in present for literal in literals) and detector.pattern.search(text):
                return detector.rule
    if "://" in text and "@" in text and _url_credentials(text):
        return URL_RULE
    return None

"""Token detectors: a random-looking token right after a service's name, or alone as the
whole text (a pasted key); what "random-looking" means (not a slug of words, not words
written together, not a commit id). Finders yield (rule, start, end) spans.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from git_memory.sanitize.secrets_allow import LazyPattern, looks_random

Span = tuple[str, int, int]

SERVICE_RULE = "service-token"
LONE_RULE = "lone-random-token"

# A service's name next to a token: `sourcegraph: 6d2f...`, `facebook 123|abc`.
SERVICES: tuple[str, ...] = (
    "adafruit", "adobe", "airtable", "algolia", "alibaba", "asana", "atlassian", "jira",
    "confluence", "bitbucket", "bittrex", "cloudflare", "codecov", "cohere", "coinbase",
    "confluent", "contentful", "datadog", "discord", "droneci", "drone", "dropbox", "etsy",
    "facebook", "fastly", "finicity", "finnhub", "flickr", "freshbooks", "gitter", "heroku",
    "hubspot", "intercom", "jfrog", "artifactory", "kraken", "kucoin", "launchdarkly", "linkedin",
    "looker", "mailchimp", "mattermost", "messagebird", "meraki", "netlify", "nytimes", "okta",
    "plaid", "privateai", "rapidapi", "sendbird", "sentry", "snyk", "sonar", "sourcegraph",
    "squarespace", "sumologic", "sumo_", "travis", "trello", "twitch", "twitter", "zendesk", "yandex",
    "telegram", "twilio", "mapbox", "newrelic", "new_relic", "pagerduty", "circleci", "vercel",
    "supabase", "firebase", "algolia", "segment", "mixpanel", "amplitude", "bugsnag", "rollbar",
    "auth0", "clerk", "pusher", "stripe", "paypal", "braintree", "shopify", "slack", "github",
    "gitlab", "azure", "gcp", "aws", "digitalocean", "linode", "vultr", "openai", "anthropic",
    "mistral", "gemini", "cloudinary", "imgur", "spotify", "dockerhub", "docker", "npm",
)
_SERVICE_CONTEXT = 40  # characters before a token where the service name may stand

_HAS_DIGIT = LazyPattern(r"\d")
_TOKEN_RUN = LazyPattern(r"[A-Za-z0-9+/_.~|!-]{14,}={0,2}")
_SERVICE_BEFORE = LazyPattern(lambda: (
    r"(?<![a-z0-9])(?:" + "|".join(sorted(set(SERVICES), key=len, reverse=True))
    + r")[\w.-]{0,30}[\"'`]?[ \t]{0,3}(?::=|=>|[:=(,|]|[ \t])?[ \t]{0,3}[\"'`]?$"))
_LONE = LazyPattern(r"[A-Za-z0-9+/=_.~|:%!@#$^&*?-]{14,400}")


def has_digit(text: str) -> bool:
    return _HAS_DIGIT.search(text) is not None


def find_service_tokens(text: str, low: str, words: list[tuple[int, str]]) -> Iterator[Span]:
    """A random-looking token right after a service's name and an operator
    (`sourcegraph: 6d2f...`, `const hubspotKey = "..."`), in one of `words`: (offset,
    word) of the text's words of 14+ characters."""
    for offset, word in words:
        if "://" in word or word.count("/") > 2:  # a URL or a path
            continue
        if not _HAS_DIGIT.search(word):  # a generated token has digits; words do not
            continue
        for m in _TOKEN_RUN.finditer(word):
            start = offset + m.start()
            if start and text[start - 1] in "/.@:#?&%\\":  # part of a path, URL or address
                continue
            value = m.group(0)
            if not _random_run(value):
                continue
            before = low[max(0, start - _SERVICE_CONTEXT): start]
            if not any(name in before for name in SERVICES):
                continue
            if _SERVICE_BEFORE.search(before):
                yield (SERVICE_RULE, start, offset + m.end())


def _random_run(value: str) -> bool:
    """A run that looks generated: letters and digits with high entropy, and not a
    hyphenated name, a dotted host or a path."""
    if value.count("/") > 1 or not looks_random(value, 14):
        return False
    parts = [p for p in re.split(r"[-_./]", value) if p]
    if len(parts) >= 3 and max(len(p) for p in parts) < 12:
        return False
    # A slug of words (`learned-utc-normalization-was-applied-in-v0-1-5`): every part a
    # lower-case or capitalised word or a short number (generated tokens mix case and
    # digits inside parts); two parts when both have vowels as words do (`clojure/reductions`).
    if len(parts) >= 2 and all(_word_part(p) and _vowelled(p) for p in parts):
        return False
    return not (len(parts) >= 3 and all(_word_part(p) for p in parts))


def _vowelled(part: str) -> bool:
    """Vowels (and y) at a third or more of the letters, as in words (~40%), not random
    letters (~23%); a number passes."""
    return part.isdigit() or sum(c.lower() in "aeiouy" for c in part) * 3 >= len(part)


random_run = _random_run  # for secrets_shapes


def _word_part(part: str) -> bool:
    if part.isdigit() or (len(part) <= 3 and part.islower()):
        return len(part) <= 4  # a year, a version piece (`v0`, `x86`, `s3`)
    return part.isalpha() and part.isascii() and (part.islower() or part[1:].islower())


def find_lone_token(text: str, owned: tuple[str, ...] = ()) -> Iterator[Span]:
    """A text that is nothing but one random-looking token: a pasted key. One with a
    provider's prefix (`owned`, lower-case) is left to that provider's exact rule."""
    stripped = text.strip().strip("\"'`")
    if not stripped or len(stripped) > 400 or any(c.isspace() for c in stripped):
        return
    if not _LONE.fullmatch(stripped) or "://" in stripped or stripped[0] in "/~.":
        return
    low = stripped.lower()
    if low.startswith(owned) or low.replace("_", "-").startswith(owned):
        return
    if _NEAR_MISS.search(stripped):
        return
    if _lone_random(stripped):
        start = text.index(stripped)
        yield (LONE_RULE, start, start + len(stripped))


# Shapes that belong to a provider rule (three dotted parts: JWT, Discord, SendGrid; an
# address; `name:token`; Mailchimp's `-us20` data-centre suffix; Stripe's publishable
# keys, which are public): when that rule did not fire, the text is a near miss.
_NEAR_MISS = LazyPattern(
    r"^[^.]+\.[^.]*\.|@|^[A-Za-z-]+:|^[A-Za-z_-]{3,}=|-[a-z]{0,2}\d{1,2}$|^pk_(?:live|test)_", re.I
)


_HEX = frozenset("0123456789abcdefABCDEF")


def _lone_random(token: str) -> bool:
    if token.isdigit():
        return len(token) >= 16
    # A bare 40-hex value is a SHA-1: a commit or blob id pasted alone, not a key. (A
    # 64-hex value stays refused: several providers issue 64-hex keys.)
    if len(token) == 40 and not set(token) - _HEX:
        return False
    # A dotted name, a path or a version is not a token.
    if re.fullmatch(r"[\w-]+(?:\.[A-Za-z]{1,5})+", token) or token.count("/") >= 2:
        return False
    return _random_run(token) and not glued_words(token)


_VOWELS = frozenset("aeiouy")


def glued_words(token: str) -> bool:
    """Words written together (`testAP6withinsomeirrelevantstring`): 20+ letters, nearly
    all lower-case, at most one digit, vowels at a third or more (words ~40%, random
    letters 23%). Base-62 tokens are 42% lower-case, base-36 ones 28% digits; a token of
    lower-case letters alone passes about 1 time in 10 (providers mix in digits)."""
    letters = [c for c in token if c.isalpha()]
    if len(letters) < 20 or sum(c.isdigit() for c in token) > 1:
        return False
    lower = sum(c.islower() for c in letters)
    vowels = sum(c.lower() in _VOWELS for c in letters)
    return lower >= 0.85 * len(letters) and vowels * 3 >= len(letters)


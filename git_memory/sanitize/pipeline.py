"""The one path every writer's text takes before it becomes a record: check, strip
invisible characters, NFKC, refuse secrets, neutralise roles, cut noise, cap length.
A secret is refused before anything else is logged about the text.
"""

from __future__ import annotations

import re
import unicodedata

from git_memory.errors import BadInput, SecretFound
from git_memory.sanitize import audit
from git_memory.sanitize import secrets_allowlist as allowlist
from git_memory.sanitize.noise import clean_noise
from git_memory.sanitize.roles import neutralise_roles
from git_memory.sanitize.scan import digest, scan_string, shape
from git_memory.sanitize.secrets import find_secret, redact_secrets
from git_memory.sanitize.chars import (
    MAX_CHARS,
    outside_fences,
    cap_length,
    check_text,
    invisible_kinds,
    normalise,
    normalise_tidied,
    strip_invisible,
    tidy_lines,
)
from git_memory.store.locate import GitDirs

DETAIL_MAX = 120
_REDACTED = re.compile(r"\[REDACTED:[a-z-]+\]")


def _short(text: str) -> str:
    return text if len(text) <= DETAIL_MAX else text[: DETAIL_MAX - 1] + "…"


def clean(
    text: str, *, source: str = "", ref: str = "", redact: bool = False
) -> tuple[str, list[audit.Action]]:
    """Clean `text` without touching the disk: (clean text, actions taken). BadInput
    for unusable text, SecretFound for a secret (its `actions` attached), unless
    `redact` and the detectors can cut it out."""
    check_text(text)
    actions: list[audit.Action] = []

    def act(rule: str, action: str, detail: str = "") -> None:
        actions.append(audit.Action(rule, action, _short(detail), source, ref))

    kinds = invisible_kinds(text)
    if kinds:
        text, _ = strip_invisible(text)
        act("invisible-characters", "removed", ", ".join(f"{n} {k}" for k, n in kinds.items()))
    before = tidy_lines(text)
    text = normalise_tidied(before)  # = normalise(text), without tidying twice
    if text is not before and text != before:
        act("nfkc", "normalised", "compatibility characters folded (NFKC)")
    # Code is kept as written, so look for a secret in its folded form too.
    # ASCII is its own NFKC form: the second scan would see the same text.
    rule = find_secret(text) or (None if text.isascii() else
                                 find_secret(unicodedata.normalize("NFKC", text)))
    if rule and redact:
        hashed = digest(text)
        text, fired = redact_secrets(text)
        for name in fired:
            act(name, "redacted", f"secret (sha256 {hashed}) replaced by [REDACTED:{name}]")
        rule = find_secret(text)  # what redaction could not cut out is still refused
        if not rule and not _REDACTED.sub("", text).strip(" \t\n.,:;-"):
            raise BadInput("text is nothing but a secret; nothing is left to keep")
    for name, hashed, how in allowlist.take_allowed():  # a person let these through
        act(name, "allowed", f"secret (sha256 {hashed}) stored as written: allowed by {how}")
    if rule:
        act(rule, "refused", f"secret (sha256 {digest(text)}) detected; the text was not written")
        exc = SecretFound(rule)
        exc.actions = actions  # type: ignore[attr-defined]
        raise exc
    roles = 0

    def roles_outside(part: str) -> str:
        nonlocal roles
        part, count = neutralise_roles(part)
        roles += count
        return part

    text = outside_fences(text, roles_outside)  # a quoted transcript in a fence stays as is
    if roles:
        act("role-prefix", "neutralised", f"{roles} role prefix(es) or template token(s)")
    text, cuts = clean_noise(text)
    for cut in cuts:
        verb = "cut" if cut.rule == "shell-debris" else "dropped"
        # Never the removed text itself: a dropped `export TOKEN=...` line would put the
        # value in the log. Its shape (operators, command names, flags) and a hash only.
        act(cut.rule, verb, f"line {cut.line}: {shape(cut.removed)}")
    if cuts:
        text = normalise(text)
    if not text:
        raise BadInput("is empty after cleaning")
    text, capped = cap_length(text)
    if capped:
        act("length-cap", "truncated", f"to {len(text)} characters")
    return text, actions


def sanitize_for_write(
    text: str, *, source: str, dirs: GitDirs | None, what: str = "content", ref: str = "",
    redact: bool = False, allow_cut: bool = True, cut: list[int] | None = None,
) -> str:
    """Clean `text` for the memory branch, or raise BadInput / SecretFound
    (`redact`: see `clean`). A text longer than the cap is cut when `allow_cut` (its
    new length is appended to `cut`, so the caller can say so), refused otherwise."""
    try:
        if source in allowlist.AGENT_SOURCES:  # an agent's text takes no way out
            with allowlist.refused():
                cleaned, actions = clean(text, source=source, ref=ref, redact=redact)
        else:
            cleaned, actions = clean(text, source=source, ref=ref, redact=redact)
    except SecretFound as exc:
        actions = getattr(exc, "actions", [])
        found = scan_string(normalise(strip_invisible(text)[0]), what)
        where = found.where() if found else what
        for action in actions:
            if action.action == "refused":
                action.detail = f"{where}: {action.detail}"
        audit.write(dirs, actions)
        raise SecretFound(exc.rule, where) from None
    except BadInput as exc:
        message = str(exc)
        if message.startswith("is empty after"):
            raise BadInput(f"{what} {message}") from None
        raise BadInput(message.replace("text", what, 1)) from None
    if any(a.rule == "length-cap" for a in actions):
        if not allow_cut:
            raise BadInput(
                f"{what} is {len(text)} characters, more than the {MAX_CHARS} an entry holds;"
                f" shorten it, or pass --truncate to keep the first {MAX_CHARS}"
            )
        if cut is not None:
            cut.append(len(cleaned))
    audit.write(dirs, actions)
    return cleaned


MAX_TAGS = 20
MAX_TAG_CHARS = 64


def sanitize_tags(tags: list[str]) -> list[str]:
    """Tags as short words: lower-case, no spaces or '#', no duplicates; a control
    character, a long tag or too many are refused, not cut. Called after the secret
    scan of the tags as written: lower-cased, `AKIA...` would pass."""
    out: dict[str, None] = {}  # the distinct tags in order (a list's `in` was quadratic)
    for tag in tags:
        if "\x00" in tag:
            raise BadInput("tag contains a NUL byte")
        # an ASCII tag is printable exactly when it has no control character (Cc)
        if (not tag.isprintable() if tag.isascii()
                else any(unicodedata.category(c) == "Cc" for c in tag)):
            raise BadInput(f"tag {tag[:20]!r} contains a control character (a newline or tab)")
        clean_tag, _ = strip_invisible(tag)
        clean_tag = clean_tag.strip().lstrip("#").strip().lower().replace(" ", "-")
        if len(clean_tag) > MAX_TAG_CHARS:
            raise BadInput(f"tag {clean_tag[:20]!r}... is longer than {MAX_TAG_CHARS} characters")
        if clean_tag:
            out[clean_tag] = None
            if len(out) > MAX_TAGS:  # said at once: 100,000 tags are not all cleaned first
                raise BadInput(f"more than {MAX_TAGS} tags; an entry holds at most {MAX_TAGS}")
    return list(out)

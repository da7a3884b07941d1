"""The one path every writer's text takes before it becomes a record.

check (NUL, UTF-8, empty) -> strip invisible characters -> NFKC and line ends ->
refuse secrets -> neutralise role prefixes -> cut shell debris, command lines and
repeated lines -> cap length. Each step that changed something is written to the
audit log with the rule that fired; a secret is refused before anything else is
logged about the text, so no log line can carry it.
"""

from __future__ import annotations

import re
import unicodedata

from git_memory.errors import BadInput, SecretFound
from git_memory.sanitize import audit
from git_memory.sanitize.noise import clean_noise
from git_memory.sanitize.roles import neutralise_roles
from git_memory.sanitize.scan import digest, rule_of, scan_string, shape
from git_memory.sanitize.secrets import find_secret, redact_secrets
from git_memory.sanitize.chars import (
    cap_length,
    check_text,
    invisible_kinds,
    normalise,
    strip_invisible,
)
from git_memory.store.locate import GitDirs

DETAIL_MAX = 120
_REDACTED = re.compile(r"\[REDACTED:[a-z-]+\]")


def _short(text: str) -> str:
    return text if len(text) <= DETAIL_MAX else text[: DETAIL_MAX - 1] + "…"


def secret_rule(text: str) -> str | None:
    """The secret rule `text` trips once cleaned as a write would clean it, or None.

    Invisible characters are removed and NFKC applied first, so a zero-width
    space or full-width letters inside a key do not hide it.
    """
    return rule_of(text)


def clean(
    text: str, *, source: str = "", ref: str = "", redact: bool = False
) -> tuple[str, list[audit.Action]]:
    """Clean `text` without touching the disk: (clean text, actions taken).

    Raises BadInput for unusable text and SecretFound (with the rule) for a secret;
    the actions of a refused text are attached to the exception as `actions`.
    With `redact`, a secret the detectors can cut out is replaced by
    `[REDACTED:rule]` instead, and the text goes on.
    """
    check_text(text)
    actions: list[audit.Action] = []

    def act(rule: str, action: str, detail: str = "") -> None:
        actions.append(audit.Action(rule, action, _short(detail), source, ref))

    kinds = invisible_kinds(text)
    if kinds:
        text, _ = strip_invisible(text)
        act("invisible-characters", "removed", ", ".join(f"{n} {k}" for k, n in kinds.items()))
    before = text
    text = normalise(text)
    if unicodedata.normalize("NFKC", before) != before:
        act("nfkc", "normalised", "compatibility characters folded (NFKC)")
    rule = find_secret(text)
    if rule and redact:
        hashed = digest(text)
        text, fired = redact_secrets(text)
        for name in fired:
            act(name, "redacted", f"secret (sha256 {hashed}) replaced by [REDACTED:{name}]")
        rule = find_secret(text)  # what redaction could not cut out is still refused
        if not rule and not _REDACTED.sub("", text).strip(" \t\n.,:;-"):
            raise BadInput("text is nothing but a secret; nothing is left to keep")
    if rule:
        act(rule, "refused", f"secret (sha256 {digest(text)}) detected; the text was not written")
        exc = SecretFound(rule)
        exc.actions = actions  # type: ignore[attr-defined]
        raise exc
    text, roles = neutralise_roles(text)
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
    redact: bool = False,
) -> str:
    """Clean `text` for the memory branch, or raise BadInput / SecretFound
    (`redact`: see `clean`)."""
    try:
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
    audit.write(dirs, actions)
    return cleaned


def sanitize_tags(tags: list[str]) -> list[str]:
    """Tags are short words: lower-case, no spaces or '#', no duplicates."""
    out: list[str] = []
    for tag in tags:
        clean_tag, _ = strip_invisible(tag)
        clean_tag = clean_tag.strip().lstrip("#").strip().lower().replace(" ", "-")
        if "\x00" in clean_tag:
            raise BadInput("tag contains a NUL byte")
        if clean_tag and clean_tag not in out:
            out.append(clean_tag[:64])
    return out

"""The one path every writer's text takes before it becomes a record.

check (NUL, UTF-8, empty) -> strip invisible characters -> normalise -> refuse
secrets -> cap length, with each step that changed something written to the audit log.
"""

from __future__ import annotations

from git_memory.errors import BadInput, SecretFound
from git_memory.sanitize import audit
from git_memory.sanitize.secrets import find_secret
from git_memory.sanitize.text import cap_length, check_text, normalise, strip_invisible
from git_memory.store.locate import GitDirs


def sanitize_for_write(
    text: str, *, source: str, dirs: GitDirs | None, what: str = "content", ref: str = ""
) -> str:
    """Clean `text` for the memory branch, or raise BadInput / SecretFound."""
    check_text(text, what)
    actions: list[audit.Action] = []
    text, removed = strip_invisible(text)
    if removed:
        actions.append(
            audit.Action("invisible-characters", "removed", f"{removed} characters", source, ref)
        )
    text = normalise(text)
    if not text:
        audit.write(dirs, actions)
        raise BadInput(f"{what} is empty after cleaning")
    rule = find_secret(text)
    if rule:
        actions.append(audit.Action(rule, "refused", "secret detected", source, ref))
        audit.write(dirs, actions)
        raise SecretFound(rule, what)
    text, capped = cap_length(text)
    if capped:
        actions.append(audit.Action("length-cap", "truncated", "", source, ref))
    audit.write(dirs, actions)
    return text


def sanitize_tags(tags: list[str]) -> list[str]:
    """Tags are short words: lower-case, no spaces or '#', no duplicates."""
    out: list[str] = []
    for tag in tags:
        clean, _ = strip_invisible(tag)
        clean = clean.strip().lstrip("#").strip().lower().replace(" ", "-")
        if "\x00" in clean:
            raise BadInput("tag contains a NUL byte")
        if clean and clean not in out:
            out.append(clean[:64])
    return out

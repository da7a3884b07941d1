"""What a file on the memory branch may be: names, modes and places. A branch arrives
from anyone who can push, so a path that could leave a folder, a `.git` part, a link,
an executable or a file outside the layout is not a record: readers skip and count
it, sync keeps it out, export never writes it. Standard library only."""

from __future__ import annotations

import re

RECORD_ROOTS = ("entries", "records")
TOP_FILES = ("README.md", ".gitattributes")
MODE_BLOB = 0o100644
MODE_TREE = 0o040000
# entries/YYYY/MM/DD/<name>.md; the name is what record_path writes, or a merge's
# NAME.conflict-BLOB.md beside it.
_DAY = re.compile(r"^\d{4}/\d{2}/\d{2}$")
# One scan per part (20k names per first sync): separators, NUL and control characters.
_ODD = re.compile(r"[\x00-\x1f\x7f\\/:]")
_NAME = re.compile(r"^[A-Za-z0-9_][A-Za-z0-9._-]{0,199}\.md$")


def unsafe_part(part: str) -> str | None:
    """Why one path component must never be written out; None when it is harmless."""
    if part in ("", ".", ".."):
        return f"path part {part!r}"
    found = _ODD.search(part)
    if found:
        return "path part with a separator" if found.group() in "\\/:" else \
            "path part with control characters"
    if part[:1] in ".gG" and part.lower().rstrip(". ") in (".git", "git~1"):
        return "a .git path part"
    return None


# The shape of nearly every record file: it passes every check below (an index build
# checks every file, so one match first saves the split and the per-part scans).
_USUAL = re.compile(
    r"(?:entries|records)/[0-9]{4}/[0-9]{2}/[0-9]{2}/[A-Za-z0-9_][A-Za-z0-9._-]{0,199}\.md")


def check_entry(path: str, mode: int, roots: tuple[str, ...] = RECORD_ROOTS) -> str | None:
    """Why the tree entry at `path` (a file, with its git mode) is not a record file we
    accept; None when it is. `roots` are the folders whose files are records."""
    if mode == MODE_BLOB and roots == RECORD_ROOTS and _USUAL.fullmatch(path):
        return None
    if path.startswith("/"):
        return "absolute path"
    parts = path.split("/")
    for part in parts:
        reason = unsafe_part(part)
        if reason:
            return reason
    if mode == 0o120000:
        return "a symbolic link"
    if mode == 0o160000:
        return "a submodule link"
    if mode != MODE_BLOB:
        return f"file mode {mode:o} (only plain files are records)"
    if parts[0] not in roots:
        return None if len(parts) == 1 else "outside the record folders"
    if roots != RECORD_ROOTS:
        return None  # another ref's layout (the session archive): names and modes only
    if len(parts) != 5 or not _DAY.match("/".join(parts[1:4])):
        return f"not in {parts[0]}/YYYY/MM/DD/"
    if not _NAME.match(parts[4]):
        return "not a record file name (letters, digits, '.', '-', '_', ending in .md)"
    return None

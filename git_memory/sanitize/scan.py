"""The one secret scan of every string we store (record fields at any depth, commit
messages, files), its redaction, and `mask`, which every log line goes through. A
finding says where a secret is and a hash of it, never what it is. Every string is
scanned as a write stores it (`cleaned`): a zero-width space inside a key hides nothing.
"""

from __future__ import annotations

import dataclasses
import hashlib
import re
import unicodedata
from dataclasses import dataclass
from typing import Any, Iterable, Iterator, Mapping

from git_memory.errors import SecretFound
from git_memory.model import Record
from git_memory.sanitize.noise import COMMANDS
from git_memory.sanitize import secrets_allowlist as allowlist
from git_memory.sanitize.secrets import find_secret, redact_secrets
from git_memory.sanitize.chars import strip_invisible
from git_memory.store.record_format import MalformedRecord, parse_record

REDACTED = "[REDACTED:{rule}]"
_MARK = re.compile(r"\[REDACTED:[a-z0-9-]+\]")
# Record fields that usually hold values we generate (ids, times, fixed words); a record
# written by hand or an import may put anything there, so they are scanned too.
_OWN_FIELDS = ("id", "kind", "type", "created", "source")


@dataclass(frozen=True)
class Finding:
    """A secret in one field: which rule, which line of that field, a hash of the value."""

    field: str
    rule: str
    line: int = 1
    digest: str = ""  # first 8 hex digits of sha256(value): lets a team match a rotated key
    record: str = ""  # the record id or path, when known

    def where(self) -> str:
        return f"{self.field} line {self.line}" if self.line > 1 else self.field

    def detail(self) -> str:
        return f"{self.where()} (sha256 {self.digest})" if self.digest else self.where()


def cleaned(text: str) -> str:
    """The form a write stores: no invisible characters, NFKC."""
    text, _ = strip_invisible(text)
    return unicodedata.normalize("NFKC", text) if not text.isascii() else text


def rule_of(text: str) -> str | None:
    return find_secret(cleaned(text))


def _sha(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8", "replace")).hexdigest()[:8]


def digest(text: str) -> str:
    """A short hash of the secret value(s) in `text` (of the text itself when the value
    cannot be told apart): enough to match a known key, useless to recover one."""
    text = cleaned(text)
    redacted, _ = redact_secrets(text)
    parts = _MARK.split(redacted)
    if len(parts) > 1:
        pattern = "^" + "(.+?)".join(re.escape(p) for p in parts) + "$"
        match = re.match(pattern, text, re.DOTALL)
        if match:
            return _sha("\n".join(match.groups()))
    return _sha(text)


def _line_of(text: str) -> int:
    """The first line that holds a secret on its own (1 for a secret spread over lines)."""
    if "\n" not in text:
        return 1
    for number, line in enumerate(text.split("\n"), 1):
        if find_secret(line):
            return number
    return 1


def scan_string(text: str, field: str, record: str = "") -> Finding | None:
    form = cleaned(text)
    rule = find_secret(form)
    if rule is None:
        return None
    field = mask(field)  # a field named by a dict key that is itself a secret
    return Finding(field, rule, _line_of(form), digest(form), record)


def _child(path: str, key: object) -> str:
    return f"{path}.{key}" if path else str(key)


def strings(value: Any, path: str) -> Iterator[tuple[str, str]]:
    """(field path, string) for every string in `value`, dict keys included, any depth."""
    if isinstance(value, str):
        yield path, value
    elif isinstance(value, dict):
        for key, item in value.items():
            if isinstance(key, str):
                yield f"{_child(path, key)} (name)", key
            yield from strings(item, _child(path, key))
    elif isinstance(value, (list, tuple)):
        for number, item in enumerate(value):
            yield from strings(item, f"{path}[{number}]")


# Values we generate (ids, times, hashes, session ids, derived keys), by the field that
# holds them: each is one long random-looking token the lone-token rule would flag, so
# that shape in that field is not scanned. Anywhere else it is scanned like any text.
_ULID = r"[0-9A-HJKMNP-TV-Z]{26}"
_HEX = r"[0-9a-f]{40}|[0-9a-f]{64}"
_UUID = r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}"
_MACHINE = {
    **dict.fromkeys(("id", "target", "by", "repeats", "merged_from", "supersedes",
                     "promoted_from.id"), re.compile(_ULID)),  # promoted_from: commands.promote
    **dict.fromkeys(("content_hash", "origin.commit", "promoted_from.commit"), re.compile(_HEX)),
    "created": re.compile(r"\d{4}-\d{2}-\d{2}(?:[T ]\d{2}:\d{2}:\d{2}(?:\.\d+)?(?:Z|[+-]\d{2}:?\d{2})?)?"),
    "blobs": re.compile(r"[0-9a-f]{40}"),  # a purge record's blob ids (store.rewrite)
    "origin.session": re.compile(_UUID),
    "key": re.compile(rf"(?:commit-[a-z]+|session-(?:{_UUID}|unknown)|distill-[\w-]+)-[0-9a-f]{{16}}"),
}


def _ours(field: str, value: str) -> bool:
    pattern = _MACHINE.get(field.split("[", 1)[0])
    return pattern is not None and pattern.fullmatch(value) is not None


def _meta_strings(record: Record) -> list[tuple[str, str]]:
    """Every string of a record but its text and the values `_ours` recognises; one
    list built in one frame (a chain of generators cost more than most records' scan)."""
    out: list[tuple[str, str]] = []
    for name in _OWN_FIELDS:
        value = getattr(record, name)
        if isinstance(value, str) and value:
            pattern = _MACHINE.get(name)  # `_ours`, inlined: most fields have no pattern
            if pattern is None or pattern.fullmatch(value) is None:
                out.append((name, value))
    key = record.key
    if key and (key[:1] not in "csd" or not _ours("key", key)):  # ours start so
        out.append(("key", key))
    for number, tag in enumerate(record.tags):
        out.append((f"tags[{number}]", str(tag)))  # no tag is ours
    if record.author:
        out.append(("author", record.author))  # nor is an author
    for value, path in ((record.origin, "origin"), (record.fields, "")):
        if value or not isinstance(value, dict):  # an empty mapping holds no string
            out.extend(pair for pair in strings(value, path) if not _ours(*pair))
    return out


def _one_token(text: str) -> bool:
    return len(text) >= 16 and text.split(None, 1) == [text]


def _scan_pairs(pairs: list[tuple[str, str]], record: str) -> list[Finding]:
    """scan_string of each field, as if the joined fields were scanned first (a rule may
    fire on the joined text and not on a field, or the other way round): when the joined
    text is clean, only the one-token fields, which the lone-token rule judges alone.
    Fields repeat across an import's records, so the known-clean ones are skipped first
    (tests/test_sanitize_scan_meta.py, docs/benchmarks.md)."""
    dirty = [(field, text) for field, text in pairs
             if text not in _CLEAN and not _known_clean(text)]
    if not dirty:
        return []
    if not all(_one_token(text) for _, text in dirty):
        if find_secret(cleaned("\n".join(text for _, text in pairs))) is None:
            dirty = [(field, text) for field, text in dirty if _one_token(text)]
    found = (scan_string(text, field, record) for field, text in dirty)
    return [f for f in found if f is not None]


# Short strings found clean, as fields (`_CLEAN`) and as log lines (`_LOG_CLEAN`: a
# string clean as one field may still hold a lone random word, judged with its
# neighbours in a field's scan). Bounded: cleared when full.
_CLEAN: dict[str, None] = {}
_LOG_CLEAN: dict[str, None] = {}
_CLEAN_MAX = 4096
_CLEAN_CHARS = 256


def _remember(cache: dict[str, None], text: str, uses: int = 0) -> None:
    # Not a text clean only because a person allowed a finding in it (`uses`: the
    # allowance's count before its scan): that is no clean text for a later caller.
    if len(text) <= _CLEAN_CHARS and allowlist.uses() == uses:
        if len(cache) >= _CLEAN_MAX:
            cache.clear()
        cache[text] = None


def _known_clean(text: str) -> bool:
    if text in _CLEAN:
        return True
    uses = allowlist.uses()
    if find_secret(cleaned(text)) is not None:
        return False
    _remember(_CLEAN, text, uses)
    return True


def scan_meta(record: Record) -> list[Finding]:
    """Secrets in every field of `record` but its text."""
    return _scan_pairs(_meta_strings(record), record.id)


def scan_record(record: Record) -> list[Finding]:
    pairs = [("content", record.content)] if record.content else []
    return _scan_pairs(pairs + _meta_strings(record), record.id)


def scan_message(message: str, field: str = "message") -> list[Finding]:
    found = scan_string(message, field)
    return [found] if found else []


def scan_file(path: str, data: bytes) -> list[Finding]:
    """Secrets in one file of the memory branch: by record field when it parses as a
    record, else in the whole file (`field` is then "file")."""
    try:
        record = parse_record(data, path)
    except MalformedRecord:
        found = scan_string(data.decode("utf-8", "replace"), "file")
        return [f for f in (scan_string(path, "path"), found) if f]
    found_in = scan_record(record)
    named = scan_string(path, "path", record.id)  # a file name written by hand
    if found_in or named:
        return found_in + ([named] if named else [])
    # What the parser set aside (a front-matter key we do not keep) still counts; only
    # that is scanned as a whole (a kept `key:` slug is no `key = value` assignment).
    kept = {f.name for f in dataclasses.fields(record)} | set(record.fields)
    aside = _set_aside(data.decode("utf-8", "replace"), kept)
    whole = scan_string(aside, "file", record.id) if aside else None
    return [whole] if whole else []


def _set_aside(text: str, kept: set[str]) -> str:
    """The front-matter lines (with their indented continuations) whose top-level key is
    not one the parser kept."""
    lines = text.split("\n")
    if not lines or lines[0].strip() != "---":
        return text
    aside: list[str] = []
    keep = False
    for line in lines[1:]:
        if line.strip() == "---":
            break
        if line and not line[0].isspace():
            keep = line.split(":", 1)[0].strip().strip("\"'") not in kept
        if keep:
            aside.append(line)
    return "\n".join(aside)


def redact_string(text: str) -> tuple[str, list[str]]:
    """`text` with each secret replaced by `[REDACTED:rule]` (the whole string when the
    detector cannot cut the value out); the rules that fired."""
    form = cleaned(text)
    rule = find_secret(form)
    if rule is None:
        return text, []
    out, fired = redact_secrets(form)
    left = find_secret(out)
    if left is not None:
        return REDACTED.format(rule=left), fired + [left]
    return out, fired or [rule]


# A word of a log line judged alone by the lone-token rule: a field path or an error's
# quote holds such a token among other words, where that rule would not see it.
_LOG_WORD = re.compile(r"[A-Za-z0-9_+/=-]{16,}")
# The long tokens our own log lines hold: the shapes `_MACHINE` knows and a curate
# proposal's 16-hex hash (an error names it; a secret of that shape passes, as a 40-hex one).
_LOGGED_OURS = re.compile(rf"{_ULID}|{_HEX}|[0-9a-f]{{16}}|{_UUID}|{_MACHINE['key'].pattern}")


def mask(text: str) -> str:
    """`text` as a log may hold it: each secret replaced by `[REDACTED:rule]`, a lone
    random-looking word among others included (our ids and hashes excepted). Never
    raises; a clean text (nearly every line) comes back as it was."""
    if text in _LOG_CLEAN or _LOGGED_OURS.fullmatch(text):
        return text  # a line seen clean, or one of our ids (an audit line's `ref`)
    with allowlist.refused():  # an allowed value is stored, never logged
        out = redact_string(text)[0] if find_secret(cleaned(text)) is not None else text
    out = _LOG_WORD.sub(_masked_word, out)
    if out == text:
        _remember(_LOG_CLEAN, text)
    return out


def _masked_word(match: re.Match[str]) -> str:
    word = match.group(0)
    if _LOGGED_OURS.fullmatch(word):
        return word
    rule = find_secret(word)
    return word if rule is None else REDACTED.format(rule=rule)


def redact_value(value: Any, path: str | None = None) -> Any:
    """`value` with every string in it (dict keys too, any depth) through `redact_string`;
    given the `path` of `value` in a record, the values `_ours` recognises there stay."""
    if isinstance(value, str):
        return value if path is not None and _ours(path, value) else redact_string(value)[0]
    if isinstance(value, dict):
        return {redact_string(key)[0] if isinstance(key, str) else key:
                redact_value(item, None if path is None else _child(path, key))
                for key, item in value.items()}
    if isinstance(value, list):
        return [redact_value(item, None if path is None else f"{path}[{number}]")
                for number, item in enumerate(value)]
    return value


def redact_meta(record: Record) -> list[Finding]:
    """Replace every secret outside the text of `record`, in place; what was replaced."""
    findings = scan_meta(record)
    if not findings:
        return []
    record.key = redact_value(record.key, "key")  # None stays None
    record.tags = [redact_string(str(t))[0] for t in record.tags]
    record.author = redact_string(record.author)[0]
    record.created = redact_value(record.created, "created")
    record.origin = redact_value(record.origin, "origin")
    record.fields = redact_value(record.fields, "")
    return findings


def refuse_secrets(records: Iterable[Record], message: str,
                   scanned: Iterable[Record] = ()) -> None:
    """The writer's last check: SecretFound when any field of any record, or the commit
    message, holds a secret. `scanned`: records the writer's `prepare` has just scanned
    with this module (an import's bulk), not scanned twice."""
    done = {id(record) for record in scanned}
    for record in records:
        if id(record) in done:
            continue
        found = scan_record(record)
        if found:
            raise SecretFound(found[0].rule, f"record {record.id} field {found[0].where()}")
    _refuse_message(message)


def refuse_files(files: Mapping[str, bytes], message: str) -> None:
    """The same check for files that are not records (the session archive's Markdown)."""
    for path, data in files.items():
        found = scan_file(path, data)
        if found:
            raise SecretFound(found[0].rule, f"{path} ({found[0].where()})")
    _refuse_message(message)


def _refuse_message(message: str) -> None:
    found = scan_message(message)
    if found:
        raise SecretFound(found[0].rule, f"the commit message ({found[0].where()})")


# -- what an audit line may say about removed text ------------------------------------

_OPERATORS = {"|", "||", "&&", ";", "\\", "&&\\", '"', "'", ")", ")\"", "<<", "<<-"}
_SAFE_TOKEN = re.compile(
    r"[12&]?>>?(?:&[12]|/dev/null)?"  # redirections
    r"|--?[A-Za-z][A-Za-z-]{0,24}"  # a flag, never its value
    r"|-?\d{1,6}"  # a count such as tail -3
)


def shape(removed: str) -> str:
    """A removed line as the audit log may keep it: operators, redirections, known
    commands and bare flags stay, every other word becomes `…` (a fixed vocabulary: no
    value can pass); then its length and a hash."""
    words = []
    for word in removed.split():
        keep = word in _OPERATORS or word in COMMANDS or _SAFE_TOKEN.fullmatch(word)
        words.append(word if keep else "…")
    return f"sha256 {_sha(removed)}, {len(removed)} chars: {' '.join(words)}"

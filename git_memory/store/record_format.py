"""Record files: Markdown with a YAML front matter of one `key: value` line per field,
each value a plain word or JSON (valid YAML too), so our own files parse with `json`;
a hand-edited file falls back to PyYAML. A bad file raises `MalformedRecord`."""

from __future__ import annotations

import datetime as _dt
import functools
import json
import re
from typing import Any, Callable

from git_memory.model import ENTRY_TYPES, EVENT_KINDS, Record, short_id, slugify

_KEY_RE = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
_PLAIN_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_\-]*$")
_YAML_SPECIAL = {"true", "false", "yes", "no", "on", "off", "null", "y", "n"}
_JSON_STARTS = frozenset('"[{')
_BASES = ("0x", "0o", "0b")
_CORE_ORDER = ("id", "kind", "type", "tags", "created", "author", "source", "origin", "key")
# A file beyond these is not ours (or is hostile): skipped and counted, never parsed
# further, so no reader can be stopped or slowed down by it.
MAX_RECORD_BYTES = 1_000_000
MAX_DEPTH = 32  # nesting of lists and mappings in the front matter
MAX_TAGS = 100  # on one record (the writer allows 20): a record with more is skipped
# What PyYAML may read (ours never goes there): its size, and its parse events, counted
# before anything is built. A real record holds a few dozen events; billions of nodes
# from nested aliases, or a 100,000-item list, are refused in the first pass.
MAX_YAML_BYTES = 256_000
MAX_YAML_EVENTS = 4_000
_BRACKET_RE = re.compile(r"[\[\]{}]")
ID_RE = re.compile(r"^[0-9A-Za-z][0-9A-Za-z_-]{0,63}$")
_CREATED_RE = re.compile(r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$")
_CONTROL_RE = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")
_ENTRY_TYPES = frozenset(ENTRY_TYPES)
_EVENT_KINDS = frozenset(EVENT_KINDS)
_DAY_RE = re.compile(r"^\d{4}/\d{2}/\d{2}$")
_NAME_PART_RE = re.compile(r"[a-z0-9_-]+")
_NOT_NAME_RE = re.compile(r"[^a-z0-9_-]")


class MalformedRecord(ValueError):
    """A file on the branch that is not a record we can use (the reason is the message)."""


def _named(value: str) -> str:
    """A value quoted in a reason only when a short plain word (reasons are stored and
    printed by doctor; a hand-written file may hold anything)."""
    return repr(value) if re.fullmatch(r"[a-z_]{1,20}", value) else f"({len(value)} characters)"


def _is_plain(value: str) -> bool:
    """True when YAML would read `value` unquoted as this same string: not a YAML word
    (true, null, ...), not letterless (a number), not a number in another base."""
    if not _PLAIN_RE.match(value):
        return False
    low = value.lower()
    return not (low in _YAML_SPECIAL or low == value.upper() or low[:2] in _BASES)


# json.dumps(s, ensure_ascii=False) of a str is this one C function, without the
# encoder object json.dumps builds per call.
_json_str: Callable[[str], str] = json.encoder.encode_basestring  # type: ignore[attr-defined]


@functools.lru_cache(maxsize=4096)
def _dump_str(value: str) -> str:
    # Cached: authors, sources and types repeat across a bulk import of 100k records.
    return value if _is_plain(value) else _json_str(value)


def _dump_value(value: Any) -> str:
    if isinstance(value, str):
        return _dump_str(value)
    if type(value) is list and all(type(item) is str for item in value):
        # tags: what json.dumps writes for a list of strings (its ", " separator)
        return "[" + ", ".join([_json_str(item) for item in value]) + "]"
    return json.dumps(value, ensure_ascii=False, sort_keys=isinstance(value, dict))


def record_path(record: Record) -> str:
    day = (record.created or "1970-01-01")[:10].replace("-", "/")
    if not _DAY_RE.match(day):
        day = "1970/01/01"
    if record.kind == "entry":
        name = f"{record.type}-{slugify(record.content)}-{_name_part(record.id)}.md"
        return f"entries/{day}/{name}"
    target = str(record.fields.get("target") or "")
    name = f"{record.kind}-{_name_part(target) if target else 'x'}-{_name_part(record.id)}.md"
    return f"records/{day}/{name}"


def _name_part(record_id: str) -> str:
    """The short id as a file name part: a hand-made id can hold nothing else."""
    part = short_id(record_id)
    if _NAME_PART_RE.fullmatch(part):  # a ULID's tail, always: nothing to replace
        return part
    return _NOT_NAME_RE.sub("-", part) or "x"


def dump_record(record: Record) -> str:
    """The file text for a record; empty optional fields left out."""
    values: dict[str, Any] = {
        "id": record.id,
        "kind": None if record.kind == "entry" else record.kind,
        "type": record.type,
        "tags": record.tags or None,
        "created": record.created,
        "author": record.author or None,
        "source": record.source,
        "origin": record.origin or None,
        "key": record.key,
    }
    lines = ["---"]
    for name in _CORE_ORDER:
        if values[name] is not None:
            lines.append(f"{name}: {_dump_value(values[name])}")
    for name in sorted(record.fields):
        value = record.fields[name]
        if value is None or name in _CORE_ORDER or not _KEY_RE.match(name):
            continue
        lines.append(f"{name}: {_dump_value(value)}")
    lines.append("---")
    body = record.content.rstrip("\n")
    return "\n".join(lines) + "\n" + body + "\n"


# The field names we write: known good, so the name check is a set lookup (a full
# build parses every record file, and this loop is most of its parsing time).
_NAMES = frozenset(_CORE_ORDER) | frozenset(
    ("target", "by", "supersedes", "merged_from", "status", "review_reason", "prevention",
     "root_cause", "resolution", "alternatives", "rationale", "content_hash", "clear")
)
_json_decode = json.JSONDecoder().decode


# Front-matter lines seen before -> (name, value), for string and string-list values
# (types, sources, authors, tags, dates repeat across thousands of records; ids and
# keys do not). Lists are kept as tuples and handed out as new lists.
_LINES: dict[str, tuple[str, Any]] = {}
_MAX_LINES = 4096


def _fast_front_matter(text: str) -> dict[str, Any] | None:
    """Parse our own `key: json-or-word` lines; None when the text leaves that shape."""
    data: dict[str, Any] = {}
    seen = _LINES
    for line in text.split("\n"):
        hit = seen.get(line)
        if hit is not None:
            value = hit[1]
            data[hit[0]] = value if type(value) is str else list(value)
            continue
        if not line.strip():
            continue
        name, sep, raw = line.partition(": ")
        if not sep:
            if line.endswith(":") and _KEY_RE.match(line[:-1]):
                data[line[:-1]] = None
                continue
            return None
        if name not in _NAMES and not _KEY_RE.match(name):
            return None
        raw = raw.strip()
        if raw[:1] in _JSON_STARTS:
            try:
                value = _json_decode(raw)
            except ValueError:
                return None
        elif _plain_word(raw):
            value = raw
        else:
            return None
        data[name] = value
        if name != "id" and name != "key":  # unique to each record: not worth keeping
            _remember(line, name, value)
    return data


def _remember(line: str, name: str, value: Any) -> None:
    if type(value) is list and all(type(v) is str for v in value):
        value = tuple(value)
    elif type(value) is not str:
        return
    if len(_LINES) >= _MAX_LINES:
        _LINES.clear()
    _LINES[line] = (name, value)


_plain_cached = functools.lru_cache(maxsize=4096)(_is_plain)


def _plain_word(value: str) -> bool:
    """_is_plain, cached for the short values that repeat (types, sources, kinds); ids
    (unique, long) are checked directly rather than filling the cache."""
    return _plain_cached(value) if len(value) < 20 else _is_plain(value)


def _yaml_front_matter(text: str) -> dict[str, Any]:
    import yaml  # lazy: PyYAML for hand-edited files only; hooks and recall never load it

    # PyYAML's scanner is quadratic in flow nesting (`[[[[...`): one hostile record of a few
    # thousand brackets would stall every reader and index build for minutes. Brackets are
    # counted before parsing (inside quotes too: an over-estimate that no real record meets).
    if len(text) > MAX_YAML_BYTES:
        raise MalformedRecord(f"front matter is larger than {MAX_YAML_BYTES} bytes")
    if _flow_depth(text) > MAX_DEPTH:
        raise MalformedRecord(f"front matter is nested deeper than {MAX_DEPTH} levels")
    try:
        _screen_events(yaml, text)
        data = yaml.load(text, Loader=_loader())  # noqa: S506 - a SafeLoader subclass
    except yaml.YAMLError as exc:
        raise MalformedRecord(f"front matter is not valid YAML ({exc.__class__.__name__})")
    if not isinstance(data, dict):
        raise MalformedRecord("front matter is not a mapping")
    return {str(k): v for k, v in data.items()}


def _screen_events(yaml: Any, text: str) -> None:
    """Refuse from the parser's events alone (nothing composed or expanded yet) what no
    record of ours holds: an anchor or alias (nested aliases expand to billions of nodes
    from a few hundred bytes), an explicit tag, too many nodes, too deep a nesting.
    libyaml's parser when PyYAML has it (C: a pass costs little), else PyYAML's own."""
    loader = getattr(yaml, "CSafeLoader", None) or yaml.SafeLoader
    starts = (yaml.SequenceStartEvent, yaml.MappingStartEvent)
    ends = (yaml.SequenceEndEvent, yaml.MappingEndEvent)
    nodes = (yaml.ScalarEvent, *starts)
    count = depth = 0
    for event in yaml.parse(text, Loader=loader):
        if isinstance(event, yaml.AliasEvent):
            raise MalformedRecord("front matter holds a YAML alias (records hold none)")
        if not isinstance(event, nodes):
            if isinstance(event, ends):
                depth -= 1
            continue
        if event.anchor is not None:
            raise MalformedRecord("front matter holds a YAML anchor (records hold none)")
        if event.tag is not None:
            raise MalformedRecord("front matter holds an explicit YAML tag (records hold none)")
        count += 1
        if count > MAX_YAML_EVENTS:
            raise MalformedRecord(f"front matter holds more than {MAX_YAML_EVENTS} values")
        if isinstance(event, starts):
            depth += 1
            if depth > MAX_DEPTH:
                raise MalformedRecord(f"front matter is nested deeper than {MAX_DEPTH} levels")


def _flow_depth(text: str) -> int:
    depth = deepest = 0
    for match in _BRACKET_RE.finditer(text):
        if match.group() in "[{":
            depth += 1
            deepest = max(deepest, depth)
        else:
            depth = max(depth - 1, 0)
    return deepest


@functools.lru_cache(maxsize=1)
def _loader() -> Any:
    """PyYAML's safe loader minus its timestamp type: dates stay text, so `created` is
    checked by one rule (ours) and an impossible date is a reason, not a crash."""
    import yaml  # lazy: as in _yaml_front_matter

    class _Loader(yaml.SafeLoader):
        pass

    _Loader.yaml_implicit_resolvers = {
        first: [(tag, rx) for tag, rx in resolvers if tag != "tag:yaml.org,2002:timestamp"]
        for first, resolvers in yaml.SafeLoader.yaml_implicit_resolvers.items()
    }
    return _Loader


def _as_text(value: Any) -> str:
    if type(value) is str:  # nearly always: our own files hold JSON strings
        return value
    if isinstance(value, _dt.datetime):
        if value.tzinfo is not None:
            value = value.astimezone(_dt.timezone.utc).replace(tzinfo=None)
        return value.strftime("%Y-%m-%dT%H:%M:%SZ")
    return "" if value is None else str(value)


def split_file(text: str) -> tuple[str, str]:
    if not text.startswith("---\n"):
        raise MalformedRecord("no front matter (the file must start with '---')")
    end = text.find("\n---", 3)
    while end != -1 and text[end + 4 : end + 5] not in ("\n", ""):
        end = text.find("\n---", end + 4)
    if end == -1:
        raise MalformedRecord("front matter is not closed with '---'")
    return text[4 : end + 1], text[end + 5 :]


def parse_record(data: bytes, path: str = "") -> Record:
    """Parse one record file. The record boundary: whatever a hand-made or hostile file
    holds, the only exception that leaves is MalformedRecord, with a reason a person
    can act on, which readers count and skip."""
    if len(data) > MAX_RECORD_BYTES:
        raise MalformedRecord(f"larger than {MAX_RECORD_BYTES} bytes")
    try:
        text = data.decode("utf-8")
        if "\x00" in text:
            raise MalformedRecord("binary content (NUL bytes)")
        head, body = split_file(text)
        meta = _fast_front_matter(head)
        if meta is None:
            meta = _yaml_front_matter(head)
        for value in meta.values():  # only lists and mappings nest: skip the plain values
            if isinstance(value, (dict, list)):
                _check_depth(value, 1)
        return _record_from(meta, body, path)
    except MalformedRecord:
        raise
    except UnicodeDecodeError:
        raise MalformedRecord("not valid UTF-8") from None
    except RecursionError:
        raise MalformedRecord("front matter is nested too deeply") from None
    except Exception as exc:  # noqa: BLE001 - the boundary: any parse failure is a bad file
        raise MalformedRecord(f"cannot be read ({exc.__class__.__name__})") from None


def _check_depth(value: Any, depth: int = 0) -> None:
    if depth > MAX_DEPTH:
        raise MalformedRecord(f"front matter is nested deeper than {MAX_DEPTH} levels")
    for item in value.values() if isinstance(value, dict) else value if isinstance(value, list) else ():
        _check_depth(item, depth + 1)


# Times already found valid (a build checks one per record, and imports share times).
_GOOD_CREATED: set[str] = set()


def _created(value: Any) -> str:
    """`created` as YYYY-MM-DDTHH:MM:SSZ (UTC); MalformedRecord for an impossible date."""
    text = _as_text(value).strip()
    if not text or text in _GOOD_CREATED:
        return text
    try:
        if _CREATED_RE.match(text):
            # 2026-02-30 fails here (as strptime would, at a tenth of its cost)
            second = int(text[17:19])  # strptime's %S takes 60 and 61 (leap seconds)
            _dt.datetime(int(text[0:4]), int(text[5:7]), int(text[8:10]),
                         int(text[11:13]), int(text[14:16]), 59 if 59 < second < 62 else second)
            if len(_GOOD_CREATED) >= 4096:
                _GOOD_CREATED.clear()
            _GOOD_CREATED.add(text)
            return text
        return _as_text(_dt.datetime.fromisoformat(text))
    except ValueError:
        raise MalformedRecord(f"created is not a valid UTC time: {text[:40]!r}") from None


def _scalar(value: Any, name: str) -> str:
    if type(value) is str:  # nearly always
        return value
    if isinstance(value, (dict, list)):
        raise MalformedRecord(f"{name} is not a single value")
    return _as_text(value)


def _record_from(meta: dict[str, Any], body: str, path: str) -> Record:
    record_id = _scalar(meta.pop("id", None), "id").strip()
    if not record_id:
        raise MalformedRecord("no id")
    if not ID_RE.match(record_id):
        raise MalformedRecord("id is not letters, digits, '-' or '_' (at most 64)")
    kind = _scalar(meta.pop("kind", None) or "entry", "kind").strip().lower()
    if kind != "entry" and kind not in _EVENT_KINDS:
        raise MalformedRecord(f"unknown kind {_named(kind)}")
    type_ = meta.pop("type", None)
    type_text = _scalar(type_, "type").strip().lower() or None
    if kind == "entry" and type_text not in _ENTRY_TYPES:
        raise MalformedRecord(f"unknown type {_named(type_text or '')}")
    content = body.strip("\n")
    if kind == "entry" and not content.strip():
        raise MalformedRecord("empty content")
    tags = meta.pop("tags", None) or []
    if isinstance(tags, str):
        tags = [t for t in re.split(r"[,\s]+", tags) if t]
    if not isinstance(tags, list):
        raise MalformedRecord("tags is not a list of words")
    if len(tags) > MAX_TAGS:
        raise MalformedRecord(f"{len(tags)} tags, more than the {MAX_TAGS} a record may hold")
    if not all(type(t) is str for t in tags):  # all strings is the usual: no copy then
        if any(isinstance(t, (dict, list)) for t in tags):
            raise MalformedRecord("tags is not a list of words")
        tags = [_as_text(t) for t in tags]
    if _CONTROL_RE.search("".join(tags)):
        raise MalformedRecord("a tag holds control characters")
    origin = meta.pop("origin", None) or {}
    if not isinstance(origin, dict):
        raise MalformedRecord("origin is not a mapping")
    key = meta.pop("key", None)
    if key is not None:
        key = _scalar(key, "key")
    created = _created(meta.pop("created", None))
    author = _scalar(meta.pop("author", None), "author")
    source = _scalar(meta.pop("source", None) or "manual", "source")
    # id, kind, type, content, tags, created, author, source, origin, key, fields, path
    # (by position: a build makes one per file, and keywords cost a third more)
    return Record(record_id, kind, type_text, content, tags, created, author, source, origin,
                  key, meta, path)

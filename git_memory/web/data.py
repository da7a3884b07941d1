"""What the web pages show, read through `Memory`: search hits (recall's own ranking), one
entry, the graphs (in `graph.render.to_json`'s shape), the timeline and the static site's search
index. Redacted entries are never handed out, and every text is masked for secrets once more (a
record committed by hand was never scanned; the graph layer masks its own, `graph.query`)."""

from __future__ import annotations

import datetime as dt
import json
from typing import Any, Iterator, Sequence

from git_memory.api.memory import Memory
from git_memory.errors import NotFound
from git_memory.graph.render import to_json
from git_memory.sanitize.scan import redact_string

HIDDEN = ("redacted",)
CURRENT = ("active", "canonical", "needs_review")  # the fold's statuses of an entry in view
STATUSES = (*CURRENT, "superseded")
SEARCH_LIMIT = 20
# Nodes on the graph page: entries, newest first, each with all it is about (paths,
# symbols, tags). 1,000 entries and their things fit with room to spare; the page says
# when a larger memory was cut (the graph layer's note).
GRAPH_NODES = 4000
RELATED = 8


def clean(text: str) -> str:
    return redact_string(text)[0]


def public(entry: dict[str, Any]) -> dict[str, Any]:
    """An entry as the pages show it: secrets masked in its text, fields and origin."""
    shown = dict(entry)
    shown["content"] = clean(entry["content"])
    if shown["content"] != entry["content"]:
        shown["path"] = None  # the file name is made from the text: part of the secret may be in it
    shown["fields"] = {k: _clean_value(v) for k, v in entry.get("fields", {}).items()}
    shown["origin"] = {k: _clean_value(v) for k, v in entry.get("origin", {}).items()}
    return shown


def _clean_value(value: Any) -> Any:
    if isinstance(value, str):
        return clean(value)
    return json.loads(clean(json.dumps(value, ensure_ascii=False)))


def search(
    memory: Memory, query: str, *, types: Sequence[str] = (), tags: Sequence[str] = (),
    status: str = "", limit: int = SEARCH_LIMIT,
) -> list[dict[str, Any]]:
    """With a `status` filter, superseded entries may be asked for too, redacted ones never."""
    if status:
        found = memory.recall(query, types=types, tags=tags, include_all=True,
                              limit=limit * 5)
        found = [e for e in found if e["status"] == status]
    else:
        found = memory.recall(query, types=types, tags=tags, limit=limit)
    return [public(e) for e in found if e["status"] not in HIDDEN][:limit]


def newest(memory: Memory, *, types: Sequence[str] = (), tags: Sequence[str] = (),
           status: str = "", limit: int = SEARCH_LIMIT) -> list[dict[str, Any]]:
    """The newest entries passing the filters (the search page with no words); current ones
    unless `status` names another."""
    statuses = [status] if status in STATUSES else list(CURRENT)
    found = memory.list(types=types, tags=tags, limit=limit, statuses=statuses)
    return [public(entry) for entry in found if entry["status"] not in HIDDEN]


def entry(memory: Memory, ref: str) -> dict[str, Any] | None:
    """One entry by id, short id or key, with its provenance; None when there is no
    such entry or it is redacted."""
    try:
        found = memory.show(ref)
    except NotFound:
        return None
    if found["status"] in HIDDEN:
        return None
    found.pop("provenance")  # other entries' texts: the page draws them from the graph
    shown = public(found)
    shown["reasons"] = [clean(str(r)) for r in found["reasons"]]
    return shown


def iter_visible(memory: Memory) -> Iterator[dict[str, Any]]:
    """Entries newest first, superseded ones included, redacted ones never."""
    return (public(e) for e in memory.list(include_all=True) if e["status"] not in HIDDEN)


def week_of(created: str) -> str:
    """The Monday (YYYY-MM-DD) of the week a timestamp falls in."""
    try:
        day = dt.date.fromisoformat(created[:10])
    except ValueError:
        return "unknown"
    return (day - dt.timedelta(days=day.weekday())).isoformat()


def timeline(memory: Memory) -> dict[str, Any]:
    """Entries per week by type and curation events per week by kind (counts only: no text)."""
    entries: dict[str, dict[str, int]] = {}
    events: dict[str, dict[str, int]] = {}
    for record in memory.records():
        is_entry = record.kind == "entry"
        bucket = (entries if is_entry else events).setdefault(week_of(record.created), {})
        name = (record.type or "note") if is_entry else record.kind
        bucket[name] = bucket.get(name, 0) + 1
    weeks = _every_week(sorted(set(entries) | set(events)))
    return {"weeks": weeks, "types": sorted({n for b in entries.values() for n in b}),
            "kinds": sorted({n for b in events.values() for n in b}),
            "entries": entries, "events": events}


def _every_week(weeks: list[str], most: int = 520) -> list[str]:
    """The weeks from the first to the last, empty ones included (a bar chart with gaps
    closed up would bend time); the newest `most` when the span is longer."""
    dated = [w for w in weeks if w != "unknown"]
    if not dated:
        return weeks
    day, last = dt.date.fromisoformat(dated[0]), dt.date.fromisoformat(dated[-1])
    if (last - day).days // 7 >= most:
        day = last - dt.timedelta(weeks=most - 1)
    every = []
    while day <= last:
        every.append(day.isoformat())
        day += dt.timedelta(weeks=1)
    return every + (["unknown"] if "unknown" in weeks else [])


def search_index(memory: Memory) -> list[dict[str, Any]]:
    """The static site's search index: every visible entry's id, type, status, tags and text."""
    return [{"id": e["id"], "type": e["type"], "status": e["status"], "tags": e["tags"],
             "created": e["created"], "text": e["content"]}
            for e in iter_visible(memory) if e["status"] != "superseded"]


def whole(memory: Memory, limit: int = GRAPH_NODES) -> dict[str, Any]:
    drawn = to_json(memory.graph(limit=limit))
    if drawn["truncated"]:  # the graph layer's note speaks of command options
        entries = sum(1 for n in drawn["nodes"] if n["kind"] == "entry")
        drawn["note"] = (f"The newest {entries} entries with what they are about (the page draws"
                         f" at most {limit} nodes); filter by tag or path to narrow.")
    return drawn


def provenance(memory: Memory, entry_id: str) -> dict[str, Any]:
    """The entry's provenance drawing; none for an entry the graph does not hold (one from
    personal memory, a remote's copy or `memory.sources`: the graph draws the local branch)."""
    try:
        return to_json(memory.provenance(entry_id))
    except NotFound:
        return {"nodes": [], "edges": [], "truncated": False, "note": None}


def related(memory: Memory, entry_id: str, limit: int = RELATED) -> list[dict[str, Any]]:
    """`{"id", "label", "type", "score", "reasons"}` of the nearest entries, best first
    (none for an entry the graph does not hold, as for `provenance`)."""
    try:
        nearest = memory.related(entry_id, limit=limit)
    except NotFound:
        return []
    return [{"id": near.id, "label": clean(near.content).strip().split("\n", 1)[0][:120],
             "type": near.type, "score": near.score, "reasons": [clean(r) for r in near.reasons]}
            for near in nearest]

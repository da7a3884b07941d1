"""`Memory.promote` and `demote` (docs/sync.md): a promoted copy is a new entry through the
writer, with `promoted_from` (repository, id, memory commit) naming where it came from."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

from git_memory.curation import record_builders as build
from git_memory.errors import BadInput, NotFound
from git_memory.index.db import Index, open_index
from git_memory.index.entries import find_entry
from git_memory.index.schema import Row
from git_memory.model import short_id
from git_memory.store import config
from git_memory.store.branch import MemoryBranch
from git_memory.store.locate import GitDirs, memory_tip
from git_memory.store.sources import PERSONAL, configured, init_personal, personal_path, sources
from git_memory.write.append import NewEntry, write_entries

TARGETS = ("personal", "team")


@dataclass(frozen=True)
class Promoted:
    """The copy `promote` made (or the entry of the target that already held its text)."""

    id: str
    source: str  # the id promoted
    to: str  # personal | team
    promoted_from: dict[str, str]
    duplicate: bool


@dataclass(frozen=True)
class Demoted:
    id: str
    record: str  # the status record's id
    personal: bool  # in personal memory (else this repository's)


def promote(index: Index, ref: str, to: str) -> Promoted:
    if to not in TARGETS:
        raise BadInput(f"--to: expected personal or team, not {to!r}")
    dirs = index.dirs
    row = _entry(index, ref)
    src = row["src"]
    if to == "personal" and src == PERSONAL:
        raise BadInput(f"{short_id(row['id'])} is already in personal memory")
    if to == "team" and src != PERSONAL and not src.startswith("source:"):
        raise BadInput(f"{short_id(row['id'])} is already this repository's memory"
                       " (--to team copies from personal memory or a memory.sources repository)")
    provenance = {"repository": _repository(dirs, src), "id": row["id"],
                  "commit": _commit(dirs, src)}
    entry = _copy(row, provenance)
    target = init_personal(dirs) if to == "personal" else dirs
    outcome = write_entries(target, [entry], f"memory: promote {short_id(row['id'])} from"
                            f" {provenance['repository']}")
    if outcome.added:
        return Promoted(outcome.added[0].id, row["id"], to, provenance, False)
    return Promoted(outcome.duplicates[0][1], row["id"], to, provenance, True)


def demote(index: Index, ref: str, reason: str | None) -> Demoted:
    row = _entry(index, ref)
    fields = json.loads(row["fields"] or "{}")
    if not isinstance(fields.get("promoted_from"), dict):
        raise BadInput(f"{short_id(row['id'])} was not promoted (no promoted_from);"
                       " use `git memory flag` or `contradict` instead")
    src = row["src"]
    if src not in ("", PERSONAL):
        raise BadInput(f"{short_id(row['id'])} is read only here (from {src})")
    why = build.check_reason(reason or "demoted: contradicted since it was promoted")
    target = init_personal(index.dirs) if src == PERSONAL else index.dirs
    branch = MemoryBranch(target)
    record = build.status(row["id"], "needs_review", why, branch.author())
    branch.ensure_init()
    branch.append([record], f"memory: demote {short_id(row['id'])}",
                  trailers=build.trailers([record]))
    open_index(target).close()  # the next reader finds it current
    return Demoted(row["id"], record.id, src == PERSONAL)


def _entry(index: Index, ref: str) -> Row:
    row = find_entry(index, ref.strip())
    if row is None:
        raise NotFound(f"no entry {ref!r}")
    if row["status"] == "redacted":
        raise BadInput(f"{short_id(row['id'])} is redacted; a redacted entry is never copied")
    return row


def _copy(row: Row, provenance: dict[str, str]) -> NewEntry:
    """The entry as a new one in the target memory: text, type, tags, key and the fields
    people wrote (rationale, prevention, ...); anchors (origin) stay behind, since paths
    of one repository mean nothing elsewhere."""
    fields: dict[str, Any] = {k: v for k, v in json.loads(row["fields"] or "{}").items()
                              if k not in ("status", "supersedes", "merged_from")}
    fields["promoted_from"] = provenance
    return NewEntry(content=row["content"], type=row["type"], tags=json.loads(row["tags"]),
                    source=row["source"] or "manual", key=row["key"], fields=fields,
                    label=short_id(row["id"]), allow_cut=False)


def _repository(dirs: GitDirs, src: str) -> str:
    """Where the entry lives: a remote's or source's URL, personal memory's path, or this
    repository (its origin URL when it has one, else its path)."""
    if src == PERSONAL:
        return str(personal_path(dirs))
    url: str | None = src
    if src.startswith("source:"):
        url = dict(configured(dirs)).get(src[len("source:"):], src)
    else:
        remote = src[len("remote:"):] if src.startswith("remote:") else "origin"
        url = config.get_str(dirs, f"remote.{remote}.url")
    if not url:
        return str(dirs.work_tree or dirs.common_dir)
    return re.sub(r"//[^/@]*@", "//", url)  # never credentials written into a URL


def _commit(dirs: GitDirs, src: str) -> str:
    """The memory commit the entry was read at."""
    if not src:
        return memory_tip(dirs) or ""
    return next((s.tip for s in sources(dirs) if s.key == src), "")

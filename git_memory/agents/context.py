"""The block an agent gets at session start, packed into a character budget: the branch's
handoff, preventions from recent failures, then the entries most relevant to the branch and
its changed paths. Items go in whole, most important first; one that does not fit is left out.
"""

from __future__ import annotations

import json
import re
from contextlib import closing
from dataclasses import dataclass, field
from typing import Any

from git_memory.agents import detached, handoff, wrap
from git_memory.agents.gitinfo import changed_paths, current_branch, recent_subjects
from git_memory.embed import query as by_meaning
from git_memory.index.build.full import scratch_index
from git_memory.index.db import Index, IndexBuilding, open_index
from git_memory.index.files import BuildLock, build_progress
from git_memory.index.entries import anchored_near, has_entries, newest, source_label
from git_memory.index.flags import local_flags
from git_memory.index.schema import Row
from git_memory.index.rank.search import search
from git_memory.index.vectors import store_path
from git_memory.store.branch import MemoryBranch
from git_memory.store.locate import GitDirs, memory_tip
from git_memory.store.sources import sources


ANCHOR_EXACT = 2.0  # an entry about a file being changed
ANCHOR_DIR = 0.6  # an entry about a neighbour of a changed file
FAILURES = 3
UNREVIEWED = 0.5  # machine-distilled entries nobody accepted yet rank lower
FILL = 8  # below this many matches, recent entries fill the block
_NOISE = {"main", "master", "trunk", "develop", "dev", "head", "feat", "feature", "fix",
          "bugfix", "hotfix", "chore", "wip", "initial", "commit", "merge", "branch", "the",
          "and", "for", "with", "into", "from", "update", "add", "src", "lib", "py", "md"}
NO_MEMORY = ("git-memory: no memory for this repository yet. Record what you learn with "
             "`git memory add \"LEARNED: ...\"` or a LEARNED: line in a commit message.")
NEWEST = 200  # entries read straight from the branch while the index is being built
BUILDING = ("git-memory: the index of this memory is being built in the background{done};"
            " this block holds only the newest entries and the handoff. `git memory recall`"
            " waits for the build.")
NO_MATCH = ("git-memory: nothing in memory matched this branch or its changes; "
            "`git memory recall QUERY` searches it.")


@dataclass
class Item:
    section: str  # handoff, prevention, relevant
    row: Row
    text: str
    score: float = 0.0


@dataclass
class Context:
    branch: str | None
    paths: list[str]
    subjects: list[str]
    budget: int
    items: list[Item] = field(default_factory=list)
    text: str = ""
    nonce: str = ""
    empty: bool = False
    building: bool = False  # answered without the index (being built in the background)

    def as_json(self) -> dict[str, Any]:
        return {
            "branch": self.branch,
            "paths": self.paths,
            "budget": self.budget,
            "chars": len(self.text),
            "nonce": self.nonce or None,
            "items": [
                {"section": i.section, "id": i.row["id"], "type": i.row["type"],
                 "score": round(i.score, 4) if i.section == "relevant" else None,
                 "text": i.text}
                for i in self.items
            ],
            "text": self.text,
            "building": self.building,
        }


def query_for(branch: str | None, paths: list[str], subjects: list[str]) -> str:
    """Search words from the branch name, the changed paths and the commit subjects."""
    words: list[str] = []
    for source in [branch or "", *paths, *subjects]:
        for word in re.findall(r"[A-Za-z][A-Za-z0-9]+", source):
            low = word.lower()
            if low not in _NOISE and low not in words:
                words.append(low)
    return " ".join(words[:48])


def _anchor_boost(anchors: str, paths: list[str]) -> float:
    mine = set(anchors.split())
    if not mine or not paths:
        return 0.0
    if mine & set(paths):
        return ANCHOR_EXACT
    dirs = {p.rsplit("/", 1)[0] for p in paths if "/" in p}
    if any(a.rsplit("/", 1)[0] in dirs for a in mine if "/" in a):
        return ANCHOR_DIR
    return 0.0


def _meaning(index: Index, query: str) -> by_meaning.Meaning | None:
    """Recall's stage by meaning, as `recall` fuses it, when it costs no model load: a
    session start does not wait a second for one (the warm daemon answers, or is started
    for the next session; docs/recall.md)."""
    if not query or not store_path(index.dirs).exists():
        return None
    return by_meaning.hits(index, query, k=30, load=False)


def relevant(index: Index, branch: str | None, paths: list[str], subjects: list[str],
             limit: int = 30) -> list[tuple[Row, float]]:
    """Entries ranked for the current work: text relevance plus anchor proximity."""
    scored: dict[str, tuple[Row, float]] = {}
    query = query_for(branch, paths, subjects)
    hits = search(index, query, boost_paths=paths, limit=limit, meaning=_meaning(index, query))
    top = max((h.score for h in hits), default=0.0) or 1.0
    for hit in hits:
        scored[hit.row["id"]] = (hit.row, max(hit.score, 0.0) / top)
    for row in anchored_near(index, paths):
        if row["id"] not in scored:
            scored[row["id"]] = (row, 0.0)
    if len(scored) < FILL:
        # Little matched: the newest entries still beat an empty block, ranked last.
        recent = newest(index, FILL * 4)
        recent.sort(key=lambda r: r["confidence"], reverse=True)
        for row in recent[:FILL]:
            scored.setdefault(row["id"], (row, -1.0))
    ranked = [
        (row, (base + _anchor_boost(row["anchors"] or "", paths))
         * (UNREVIEWED if row["status"] == "needs_review" else 1.0))
        for row, base in scored.values()
        if row["type"] != "handoff"
    ]
    ranked.sort(key=lambda pair: pair[0]["created"], reverse=True)  # newer wins a tie
    ranked.sort(key=lambda pair: pair[1], reverse=True)
    return ranked[:limit]


def _line(row: Row, text: str, flags: dict[str, str], adopted: str | None = None) -> str:
    notes = [f"id {row['id'][-8:].lower()}"]
    if row["status"] == "needs_review":
        notes.append("unreviewed")
    if row["id"] in flags:
        notes.append(f"may be {flags[row['id']]}".replace("_", " "))
    came = source_label(row) or adopted
    if came:
        notes.append(f"from {came}")  # a teammate's (origin), personal, or a source's
    return f"- [{row['type']}] {wrap.clean_for_agent(text)} ({'; '.join(notes)})"


def _prevention(row: Row) -> str:
    fields = json.loads(row["fields"] or "{}")
    value = fields.get("prevention")
    return str(value) if isinstance(value, str) and value.strip() else row["content"]


HEADERS = {
    "handoff": "## Handoff from the last session on this branch",
    "prevention": "## Avoid repeating these failures",
    "relevant": "## Relevant to this branch and its changes",
}


def candidates(index: Index, branch: str | None, paths: list[str],
               subjects: list[str]) -> list[Item]:
    items: list[Item] = []
    flags = {eid: flag for eid, (flag, _) in local_flags(index).items()}  # stale anchors
    adopted = index.adopted()
    row = handoff.latest(index, branch or handoff.DETACHED)
    if row is not None:
        text = wrap.clean_for_agent(row["content"])
        if row["status"] == "needs_review":
            text += "\n(distilled from a session, not reviewed yet)"
        items.append(Item("handoff", row, text, 1e9))
    for row in newest(index, FAILURES, types=["failure"]):
        items.append(Item("prevention", row, _line(row, _prevention(row), flags, adopted), 1e6))
    shown = {item.row["id"] for item in items}
    for row, score in relevant(index, branch, paths, subjects):
        if row["id"] not in shown:
            items.append(Item("relevant", row, _line(row, row["content"], flags, adopted), score))
    return items


def pack(items: list[Item], budget: int, nonce: str) -> tuple[list[Item], str]:
    """The items that fit whole, in order, and the wrapped text (len <= budget)."""
    room = budget - len(wrap.opening(nonce)) - len(wrap.closing(nonce))
    chosen: list[Item] = []
    parts: list[str] = []
    used = 0
    sections: set[str] = set()
    for item in items:
        piece = ("" if not parts else "\n") + item.text
        if item.section not in sections:
            piece = ("\n\n" if parts else "") + HEADERS[item.section] + "\n" + item.text
        if used + len(piece) > room:
            continue
        sections.add(item.section)
        parts.append(piece)
        used += len(piece)
        chosen.append(item)
    if not chosen:
        return [], ""
    return chosen, wrap.wrap("".join(parts), nonce)


def build(dirs: GitDirs, budget: int) -> Context:
    branch = current_branch(dirs)
    paths = changed_paths(dirs)
    ctx = Context(branch, paths, [], budget)
    if memory_tip(dirs) is None and not sources(dirs):  # nothing here, nor personal, nor fetched
        ctx.empty, ctx.text = True, NO_MEMORY
        return ctx
    ctx.subjects = recent_subjects(dirs)
    note = ""
    try:
        index = open_index(dirs, wait=False)
    except IndexBuilding:
        # Far behind or no index (a fresh clone): a hook cannot wait for a build. Answer
        # from the newest records read straight from the branch and build meanwhile.
        start_build(dirs)
        index = _newest(dirs)
        done, total = build_progress(dirs)
        note = BUILDING.format(
            done=f" ({done:,} of about {max(total, done):,} records so far)" if total else "")
        ctx.building = True
    with closing(index):
        if not has_entries(index):
            ctx.empty, ctx.text = True, NO_MEMORY
            return ctx
        ctx.nonce = wrap.new_nonce()
        room = budget - (len(note) + 2 if note else 0)
        ctx.items, ctx.text = pack(candidates(index, branch, paths, ctx.subjects), room,
                                   ctx.nonce)
    if not ctx.items:
        ctx.nonce, ctx.text = "", NO_MATCH if len(NO_MATCH) + len(note) + 2 <= budget else ""
    if note and len(note) <= budget:
        ctx.text = f"{ctx.text}\n\n{note}" if ctx.text else note
    return ctx


def _newest(dirs: GitDirs) -> Index:
    """The newest entries, their curation records and the handoffs, in a scratch index."""
    branch = MemoryBranch(dirs)
    newest, handoffs = branch.newest_files(branch.tip(), NEWEST)
    seen = {f.path for f in newest}
    return scratch_index(dirs, branch, newest + [f for f in handoffs if f.path not in seen])


def start_build(dirs: GitDirs) -> int | None:
    """Start one detached build of the index (none when one is running). The build lock is
    taken here and handed to the child, so the build counts as running from the moment this
    returns (a second hook, or `context --format json`, sees it)."""
    lock = BuildLock(dirs)
    if not lock.try_acquire():
        return None
    try:
        return detached.start(dirs, ["reindex", "--background"], dirs.memory_dir / "build.log",
                              lock_fd=lock.handle.fileno())
    finally:
        lock.handle.close()  # closing, not unlocking: the child's copy keeps the lock

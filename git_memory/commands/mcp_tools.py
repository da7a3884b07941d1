"""What the MCP server's tools do, without the MCP SDK: plain methods returning dicts.

`Memory` serves one repository. It keeps the index open between calls (warm) and,
before each call, compares the memory branch's tip (one small file read) with the
tip the index was stamped with; when another process wrote meanwhile it reopens
the index, which catches up. Every text handed back is cleaned and wrapped as
untrusted knowledge exactly as `context` does (`agents.wrap`), and the structured
part carries ids, scores, status and provenance. Writes go through the same
writer (sanitizer, refusals, dedup) as `git memory add`, with source `agent`;
`memory.agentWrites` (direct | propose | off) decides where `add` goes.
Lives in `commands/` because it reuses recall's and show's search and shapes, but never
prints; raises GitMemoryError subclasses. May import `agents`, `commands.recall`
(its argument helpers), `index.search` (recall's search), `commands.show` (provenance), `index`, `store`,
`curation.proposal_branch` (proposal branches), `writer`, `model`, `sanitize`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from git_memory.agents import config, handoff, wrap
from git_memory.agents.wrap import agent_block, agent_line, wrapped_lines
from git_memory.agents.gitinfo import current_branch
from git_memory.errors import BadInput, NotFound, UsageProblem
from git_memory.index.db import Index, current_stamp, open_index
from git_memory.index.entries import find_entry
from git_memory.model import split_marker, typed_text
from git_memory.sanitize.chars import check_text
from git_memory.store.locate import GitDirs

WRITE_MODES = ("direct", "propose", "off")
SOURCE = "agent"
MAX_LIMIT = 100


def write_mode(dirs: GitDirs) -> str:
    """`memory.agentWrites`: direct (default), propose or off; anything else is refused."""
    mode = (config.get_str(dirs, "agentWrites") or "direct").lower()
    if mode not in WRITE_MODES:
        raise BadInput(f"memory.agentWrites is {mode!r}; expected one of: {', '.join(WRITE_MODES)}")
    return mode


def public(entry: dict[str, Any]) -> dict[str, Any]:
    """The structured shape of a hit: ids, score, status, provenance; text cleaned."""
    return {
        "id": entry["id"],
        "type": entry["type"],
        "content": wrap.clean_for_agent(entry["content"]),
        "score": round(entry["score"], 4) if entry.get("score") is not None else None,
        "status": entry["status"],
        "local_flag": entry.get("local_flag"),
        "tags": entry["tags"],
        "created": entry["created"],
        "author": entry["author"],
        "source": entry["source"],
        "origin": entry["origin"],
        "anchors": entry.get("anchors", []),
        "supersedes": entry["supersedes"],
        "superseded_by": entry["superseded_by"],
        "from": entry.get("from"),
    }


@dataclass
class Written:
    id: str
    where: str  # the ref written
    duplicate_of: str | None = None


class Memory:
    """One repository served across many tool calls, with the index kept open."""

    def __init__(self, dirs: GitDirs) -> None:
        self.dirs = dirs
        self._index: Index | None = None

    def close(self) -> None:
        if self._index is not None:
            self._index.close()
            self._index = None

    def index(self) -> Index:
        """The open index, reopened (and so caught up) when the memory branch moved."""
        if self._index is not None and (self._index.stamp, self._index.sources) != current_stamp(self.dirs):
            self.close()  # the branch moved, or a fetch moved a source
        if self._index is None:
            self._index = open_index(self.dirs)
        return self._index

    # -- reading -------------------------------------------------------------

    def recall(self, query: str = "", *, types: list[str] | None = None,
               tags: list[str] | None = None, paths: list[str] | None = None,
               since: str | None = None, limit: int = 10, include_all: bool = False,
               recent: int | None = None) -> dict[str, Any]:
        from git_memory.commands.recall import parse_since, repo_path
        from git_memory.index.search import find

        if limit < 1 or limit > MAX_LIMIT:
            raise UsageProblem(f"limit must be between 1 and {MAX_LIMIT}")
        if not (query.strip() or recent or paths):
            raise UsageProblem("recall needs a query (or recent, or paths)")
        stamp = parse_since(since) if since else None
        # Paths are taken relative to the repository's top, where an agent's paths start.
        top = str(self.dirs.work_tree) if self.dirs.work_tree else None
        wanted = [p for p in (repo_path(self.dirs, p, top) for p in paths or []) if p]
        entries = find(self.index(), query, types=types or (), tags=tags or (), since=stamp,
                       include_all=include_all, paths=wanted, limit=limit, recent=recent)
        text, nonce = agent_block(entries, query)
        return {"query": query, "count": len(entries), "nonce": nonce or None,
                "results": [public(e) for e in entries], "text": text}

    def context(self, budget: int = 3000) -> dict[str, Any]:
        from git_memory.agents.context import build

        if budget < 200:
            raise UsageProblem("budget must be at least 200 characters")
        self.index()  # warm and current; build opens its own short-lived handle
        return build(self.dirs, budget).as_json()

    def show(self, ref: str) -> dict[str, Any]:
        from git_memory.commands.show import gather

        index = self.index()
        row = find_entry(index, ref.strip())
        if row is None:
            raise NotFound(f"no entry {ref!r}")
        entry = gather(index, row)
        entry["content"] = wrap.clean_for_agent(entry["content"])
        text, nonce = wrapped_lines([agent_line(entry)])
        return {"entry": entry, "nonce": nonce, "text": text}

    # -- writing -------------------------------------------------------------

    def add(self, text: str, type_: str | None = None, tags: list[str] | None = None,
            proposal: str | None = None) -> dict[str, Any]:
        mode = write_mode(self.dirs)
        if mode == "off":
            raise BadInput("agent writes are off here (git config memory.agentWrites off)")
        if mode == "propose" or proposal is not None:
            return self.propose(text, type_, tags, proposal)
        from git_memory.writer import write_entries

        entry = self._new_entry(text, type_, tags)
        outcome = write_entries(self.dirs, [entry], f"memory: add {entry.type} (agent)")
        if outcome.added:
            return {"id": outcome.added[0].id, "written_to": "memory", "duplicate_of": None}
        existing = outcome.duplicates[0][1]
        return {"id": existing, "written_to": "memory", "duplicate_of": existing}

    def propose(self, text: str, type_: str | None = None,
                tags: list[str] | None = None, proposal: str | None = None) -> dict[str, Any]:
        """The entry on a proposal branch, for a person to review and merge:
        `git-memory-proposals/PROPOSAL` (created or appended to), by default one of its
        own (`agent-<short id>`). The same writer checks as `git memory add --propose`."""
        from git_memory.curation.proposal_branch import propose_entry, ref_for

        if write_mode(self.dirs) == "off":
            raise BadInput("agent writes are off here (git config memory.agentWrites off)")
        if proposal is not None:
            ref_for(proposal)  # a bad name is refused before anything is sanitized or written
        done = propose_entry(self.dirs, self._new_entry(text, type_, tags), proposal)
        if done.duplicate_of is not None:
            return {"id": done.duplicate_of, "written_to": "proposal", "ref": done.ref,
                    "duplicate_of": done.duplicate_of}
        return {"id": done.record.id, "written_to": "proposal", "ref": done.ref,
                "duplicate_of": None}

    def handoff(self, text: str = "", clear: bool = False, branch: str | None = None) -> dict[str, Any]:
        if write_mode(self.dirs) == "off":
            raise BadInput("agent writes are off here (git config memory.agentWrites off)")
        if clear == bool(text.strip()):
            raise UsageProblem("give either text or clear")
        name = branch or current_branch(self.dirs) or handoff.DETACHED
        if clear:
            record = handoff.record(self.dirs, f"Handoff cleared for branch {name}.", name, clear=True)
        else:
            marker, rest = split_marker(check_text(text, "handoff"))
            if marker not in (None, "handoff"):
                raise UsageProblem(f"a handoff cannot start with {marker.upper()}:")
            record = handoff.record(self.dirs, rest, name)
        return {"id": record.id, "branch": name, "cleared": clear}

    def _new_entry(self, text: str, type_: str | None, tags: list[str] | None) -> Any:
        from git_memory.writer import NewEntry

        body = check_text(text, "content")
        kind, rest = typed_text(body, type_, option="type")
        origin: dict[str, str] = {}
        branch = current_branch(self.dirs)
        if branch:
            origin["branch"] = branch
        return NewEntry(content=rest, type=kind, tags=list(tags or []), source=SOURCE,
                        origin=origin, label="text")

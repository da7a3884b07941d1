"""What the MCP server's tools do, without the MCP SDK: plain methods returning dicts.

Every text handed back is cleaned and wrapped as untrusted knowledge as `context` does
(`agents.wrap`); writes go through `Memory` with source `agent`, and `memory.agentWrites`
(direct | propose | off) decides where `add` goes.
"""

from __future__ import annotations

from typing import Any

from git_memory.agents import wrap, settings
from git_memory.agents.wrap import agent_block, agent_line, wrapped_lines
from git_memory.api.memory import Memory
from git_memory.commands.related import to_dict
from git_memory.errors import BadInput, UsageProblem
from git_memory.store.locate import GitDirs

WRITE_MODES = ("direct", "propose", "off")
SOURCE = "agent"
MAX_LIMIT = 100


# The structured shape of a hit: ids, score, status, provenance (in this order).
PUBLIC = ("id", "type", "content", "score", "status", "local_flag", "tags", "created", "author",
          "source", "origin", "anchors", "supersedes", "superseded_by", "from")


def public(entry: dict[str, Any]) -> dict[str, Any]:
    """A hit's structured shape; its text as given (the caller cleaned it)."""
    shape = {key: entry.get(key) for key in PUBLIC}
    shape["anchors"] = entry.get("anchors", [])
    if shape["score"] is not None:
        shape["score"] = round(shape["score"], 4)
    return shape


def _check_limit(limit: int) -> None:
    if limit < 1 or limit > MAX_LIMIT:
        raise UsageProblem(f"limit must be between 1 and {MAX_LIMIT}")


class Tools:
    """The MCP tools of one repository, over one warm `Memory` kept for the server's life."""

    def __init__(self, dirs: GitDirs) -> None:
        self.memory = Memory.at(dirs)
        self.dirs = dirs

    def close(self) -> None:
        self.memory.close()

    def _writable(self) -> str:
        """`memory.agentWrites`: direct (default) or propose; off and anything else refused."""
        mode = (settings.get_str(self.dirs, "agentWrites") or "direct").lower()
        if mode not in WRITE_MODES:
            raise BadInput(f"memory.agentWrites is {mode!r}; expected one of: {', '.join(WRITE_MODES)}")
        if mode == "off":
            raise BadInput("agent writes are off here (git config memory.agentWrites off)")
        return mode

    def recall(self, query: str = "", *, types: list[str] | None = None,
               tags: list[str] | None = None, paths: list[str] | None = None,
               since: str | None = None, limit: int = 10, include_all: bool = False,
               recent: int | None = None) -> dict[str, Any]:
        _check_limit(limit)
        # Paths are taken relative to the repository's top, where an agent's paths start.
        entries = self.memory.recall(query, types=types or (), tags=tags or (),
                                     paths=paths or (), since=since, limit=limit,
                                     include_all=include_all, recent=recent)
        for entry in entries:  # cleaned once, for the text block and the structured part
            entry["content"] = wrap.clean_for_agent(entry["content"])
        text, nonce = agent_block(entries, query, cleaned=True)
        return {"query": query, "count": len(entries), "nonce": nonce or None,
                "results": [wrap.clean_fields(public(e)) for e in entries], "text": text}

    def context(self, budget: int = 3000) -> dict[str, Any]:
        return self.memory.context(budget).as_json()

    def show(self, ref: str) -> dict[str, Any]:
        entry = wrap.clean_fields(self.memory.show(ref))  # its text, tags, fields, reasons...
        text, nonce = wrapped_lines([agent_line(entry, cleaned=True)])
        return {"entry": entry, "nonce": nonce, "text": text}

    def related(self, ref: str, limit: int = 10) -> dict[str, Any]:
        """The entries nearest to one entry in the knowledge graph, as `git memory
        related` ranks them, with their scores and reasons."""
        _check_limit(limit)
        results = [wrap.clean_fields(to_dict(near))  # text and reasons
                   for near in self.memory.related(ref, limit=limit)]
        lines = [f"{agent_line(item, cleaned=True)} because: {'; '.join(item['reasons'])}"
                 for item in results]
        text, nonce = wrapped_lines(lines) if lines else ("no related entries", "")
        return {"id": ref, "count": len(results), "results": results, "nonce": nonce or None,
                "text": text}

    def add(self, text: str, type_: str | None = None, tags: list[str] | None = None,
            proposal: str | None = None) -> dict[str, Any]:
        if self._writable() == "propose" or proposal is not None:
            return self.propose(text, type_, tags, proposal)
        added = self.memory.add(text, type=type_, tags=tags or (), source=SOURCE,
                                on_branch=True)
        return {"id": added.id, "written_to": "memory", "duplicate_of": added.duplicate_of}

    def propose(self, text: str, type_: str | None = None,
                tags: list[str] | None = None, proposal: str | None = None) -> dict[str, Any]:
        """The entry on a proposal branch, for a person to review and merge:
        `git-memory-proposals/PROPOSAL` (created or appended to), by default one of its
        own (`agent-<short id>`). The same writer checks as `git memory add --propose`."""
        self._writable()
        done = self.memory.propose(text, proposal, type=type_, tags=tags or (), source=SOURCE,
                                   on_branch=True)
        return {"id": done.id, "written_to": "proposal", "ref": done.ref,
                "duplicate_of": done.duplicate_of}

    def handoff(self, text: str = "", clear: bool = False, branch: str | None = None) -> dict[str, Any]:
        self._writable()
        done = self.memory.handoff(text, clear=clear, branch=branch)
        return {"id": done.id, "branch": done.branch, "cleared": done.cleared}

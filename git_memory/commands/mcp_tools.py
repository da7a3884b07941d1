"""What the MCP server's tools do, without the MCP SDK: plain methods returning dicts.

`Memory` serves one repository. It keeps the index open between calls (warm), with
what a search may keep for that open index (`memo`: the highest rowid, the words'
document frequencies, the adopted remote). Before each call it `stat`s the few files
that name what the index must reflect (`Watch`): the memory ref and packed-refs, the
remote-tracking copies, personal memory's ref, the config files; and the index
file's inode. Only when one of them changed does it read the branch tip and the
sources again; when those moved (another process wrote, a fetch moved a source) or
the index file was replaced (a rebuild), it reopens the index, which catches up,
and starts a new memo. Every text handed back is cleaned and wrapped as
untrusted knowledge exactly as `context` does (`agents.wrap`), and the structured
part carries ids, scores, status and provenance. Writes go through the same
writer (sanitizer, refusals, dedup) as `git memory add`, with source `agent`;
`memory.agentWrites` (direct | propose | off) decides where `add` goes.
Lives in `commands/` because it reuses recall's and show's search and shapes, but never
prints; raises GitMemoryError subclasses. May import `agents`, `commands.recall`
(its argument helpers), `index.search` (recall's search), `commands.show` (provenance), `index`, `store`,
`curation.proposal_branch` (proposal branches), `graph` and `commands.related` (the
knowledge graph's related entries), `writer`, `model`, `sanitize`.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from git_memory.agents import config, handoff, wrap
from git_memory.agents.wrap import agent_block, agent_line, wrapped_lines
from git_memory.agents.gitinfo import current_branch
from git_memory.errors import BadInput, NotFound, UsageProblem
from git_memory.index.db import Index, current_stamp, open_index
from git_memory.index.entries import find_entry
from git_memory.model import split_marker, typed_text
from git_memory.sanitize.chars import check_text
from git_memory.store import config as git_config
from git_memory.store.locate import DEFAULT_REF, GitDirs, memory_ref
from git_memory.store.sources import personal_path

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
    """The structured shape of a hit: ids, score, status, provenance; its text as
    given (the caller cleaned it: `wrap.clean_for_agent`)."""
    return {
        "id": entry["id"],
        "type": entry["type"],
        "content": entry["content"],
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


FileState = tuple[int, int, int, int] | None  # inode, size, mtime, ctime (ns); None: absent


def file_state(path: Path) -> FileState:
    try:
        info = os.stat(path)
    except OSError:
        return None
    return (info.st_ino, info.st_size, info.st_mtime_ns, info.st_ctime_ns)


class Watch:
    """The files whose change can change what the index must reflect, and their last `stat`.

    `current_stamp` (what an index current now would be stamped with) reads the
    config, the memory ref, packed-refs, every remote's copy, the sources' and
    personal memory's refs: about 0.4 ms at every call. Those are all plain files
    that git replaces by rename when it writes them (a new inode each time), so when
    none of them changed since the last look, neither did the stamp. The config
    files are watched by `store.config`, whose parsed settings are a new object
    whenever one of them changed. `memory.sources` (fetched sources, rare) is not
    followed file by file: with it set, every call reads the stamp as before."""

    def __init__(self, dirs: GitDirs) -> None:
        self.dirs = dirs
        self.settings: object = None
        self.paths: list[Path] | None = None  # None: nothing to watch, always look again
        self.states: list[FileState] = []

    def changed(self) -> bool:
        """Whether anything watched changed since `look` (True before the first look)."""
        if self.paths is None or git_config.settings(self.dirs) is not self.settings:
            return True
        return [file_state(path) for path in self.paths] != self.states

    def look(self) -> None:
        """Take the files' state now: call before reading the stamp, so that a write
        landing while it is read shows at the next call."""
        self.settings = git_config.settings(self.dirs)
        self.paths = _watched(self.dirs, memory_ref(self.dirs))
        self.states = [file_state(path) for path in self.paths or []]


def _watched(dirs: GitDirs, ref: str) -> list[Path] | None:
    """Every file `current_stamp` reads a ref from (None: not all of them are files)."""
    if git_config.values(dirs, "memory.sources"):
        return None
    common = dirs.common_dir
    local = common / ref
    try:
        if local.read_bytes().startswith(b"ref:"):
            return None  # a symbolic memory ref: its target is not watched
    except OSError:
        pass
    paths = [local, common / "packed-refs", common / "refs" / "remotes"]
    remotes = common / "refs" / "remotes"
    branch = ref[len("refs/heads/"):] if ref.startswith("refs/heads/") else None
    if branch and remotes.is_dir():
        for remote in sorted(remotes.iterdir()):
            paths += [remote, remote / branch]  # a ref appears, or a remote's folder
    personal = personal_path(dirs)
    paths += [personal, personal / DEFAULT_REF, personal / "packed-refs"]
    return paths


def _inode(path: Path) -> int | None:
    state = file_state(path)
    return state[0] if state else None


class Memory:
    """One repository served across many tool calls, with the index kept open."""

    def __init__(self, dirs: GitDirs) -> None:
        self.dirs = dirs
        self._index: Index | None = None
        self._inode: int | None = None  # of the index file the open connection reads
        self._watch = Watch(dirs)
        # What searches keep for the open index (index.search.find's `memo`); a new one
        # whenever the index is reopened, so nothing in it outlives the index state.
        self.memo: dict[str, Any] = {}

    def close(self) -> None:
        if self._index is not None:
            self._index.close()
            self._index = None

    def index(self) -> Index:
        """The open index, reopened (and so caught up) when the memory branch moved,
        a fetch moved a source, or the index file was replaced (a rebuild swaps a new
        file in: the open connection would go on reading the old one)."""
        replaced = self._index is not None and _inode(self._index.path) != self._inode
        if self._index is not None and not replaced and not self._watch.changed():
            return self._index
        self._watch.look()
        if self._index is not None and (
                replaced or (self._index.stamp, self._index.sources) != current_stamp(self.dirs)):
            self.close()
        if self._index is None:
            self._index = open_index(self.dirs)
            self._inode = _inode(self._index.path)
            self.memo = {}
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
        index = self.index()
        entries = find(index, query, types=types or (), tags=tags or (), since=stamp,
                       include_all=include_all, paths=wanted, limit=limit, recent=recent,
                       memo=self.memo)
        for entry in entries:  # cleaned once, for the text block and the structured part
            entry["content"] = wrap.clean_for_agent(entry["content"])
        text, nonce = agent_block(entries, query, cleaned=True)
        return {"query": query, "count": len(entries), "nonce": nonce or None,
                "results": [wrap.clean_fields(public(e)) for e in entries], "text": text}

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
        entry = wrap.clean_fields(gather(index, row))  # its text, tags, fields, reasons...
        text, nonce = wrapped_lines([agent_line(entry, cleaned=True)])
        return {"entry": entry, "nonce": nonce, "text": text}

    def related(self, ref: str, limit: int = 10) -> dict[str, Any]:
        """The entries nearest to one entry in the knowledge graph, as `git memory
        related` ranks them, with their scores and reasons."""
        from git_memory.commands.related import to_dict
        from git_memory.graph.query import related
        from git_memory.index.graph import entries_by_ids

        if limit < 1 or limit > MAX_LIMIT:
            raise UsageProblem(f"limit must be between 1 and {MAX_LIMIT}")
        index = self.index()
        found = related(index, entry_id=ref.strip(), limit=limit)
        rows = entries_by_ids(index, [r.entry_id for r in found])
        results = [to_dict(r, rows[r.entry_id]) for r in found if r.entry_id in rows]
        lines = []
        results = [wrap.clean_fields(item) for item in results]  # text and reasons
        for item in results:
            lines.append(f"{agent_line(item, cleaned=True)} because:"
                         f" {'; '.join(item['reasons'])}")
        text, nonce = wrapped_lines(lines) if lines else ("no related entries", "")
        return {"id": ref, "count": len(results), "results": results, "nonce": nonce or None,
                "text": text}

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

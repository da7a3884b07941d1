"""`git memory recall`: ranked entries for a query; also `--recent N` and `--stats`.

The hot path: with a current index it imports neither click nor pygit2 nor YAML.
`parse_argv` runs a recall without click; what it does not understand goes to click.
"""

from __future__ import annotations


from git_memory import ui
from git_memory.errors import NotARepository, UsageProblem
from git_memory.index.db import open_index
from git_memory.index.rank.search import find
from git_memory.index.files import vectors_path as store_path
from git_memory.isotime import parse_since
from git_memory.limits import MAX_COUNT
from git_memory.store.locate import GitDirs, discover, repo_path
from git_memory.store.sources import personal_dirs

# `typing` is off the hot path (docs/architecture.md): for the type checker only.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterable
    from typing import Any


class RecallArgs:
    """What recall was asked (a plain class: this module is on the hot path)."""

    def __init__(
        self, query: str = "", types: Iterable[str] = (), tags: Iterable[str] = (),
        paths: Iterable[str] = (), since: str | None = None, limit: int = 10,
        include_all: bool = False, recent: int | None = None, stats: bool = False,
        as_json: bool = False, sessions: bool = False, fmt: str = "text",
        explain: bool = False,
    ) -> None:
        self.query = query
        self.types = list(types)
        self.tags = list(tags)
        self.paths = list(paths)
        self.since = since
        self.limit = limit
        self.include_all = include_all
        self.recent = recent
        self.stats = stats
        self.as_json = as_json
        self.sessions = sessions
        self.fmt = "json" if as_json else fmt  # text | json | agent
        self.explain = explain


_VALUED = {"--type": "types", "--tag": "tags", "--path": "paths", "--since": "since",
           "--limit": "limit", "-n": "limit", "--recent": "recent", "--format": "fmt"}
FORMATS = ("text", "json", "agent")
_FLAGS = {"--all": "include_all", "--stats": "stats", "--json": "as_json",
          "--sessions": "sessions", "--explain": "explain"}


def parse_argv(argv: list[str]) -> RecallArgs | None:
    """Arguments of `recall` parsed without click, or None to let click handle them."""
    args = RecallArgs()
    words: list[str] = []
    rest = list(argv)
    while rest:
        item = rest.pop(0)
        if item == "--":
            words += rest
            break
        name, eq, value = item.partition("=") if item.startswith("--") else (item, "", "")
        if name in _FLAGS and not eq:
            setattr(args, _FLAGS[name], True)
        elif name in _VALUED:
            if not eq:
                if not rest:
                    return None
                value = rest.pop(0)
            if not _store(args, _VALUED[name], value):
                return None
        elif item.startswith("-") and item != "-":
            return None  # help, an unknown option, or a query word click should judge
        else:
            words.append(item)
    args.query = " ".join(words)
    return args


def _store(args: RecallArgs, attr: str, value: str) -> bool:
    if attr in ("limit", "recent"):
        # isdigit takes digits of other scripts too ("²"): int() then fails
        if not (value.isascii() and value.isdigit()) or not 1 <= int(value) <= MAX_COUNT:
            return False
        setattr(args, attr, int(value))
    elif attr == "since":
        args.since = value
    elif attr == "fmt":
        if value not in FORMATS:
            return False
        args.fmt = value
        args.as_json = args.as_json or value == "json"
    else:
        getattr(args, attr).append(value)
    return True


def run(args: RecallArgs) -> int:
    if not (args.query.strip() or args.recent or args.stats or args.paths):
        raise UsageProblem("recall needs a QUERY (or --recent N, --path P, --stats)")
    since = parse_since(args.since) if args.since else None
    if args.sessions:
        # The archived transcripts (refs/memory/sessions), not the entries.
        from git_memory.commands.session import run_search  # lazy: --sessions only

        if not args.query.strip():
            raise UsageProblem("recall --sessions needs a QUERY")
        return run_search(args.query, limit=args.limit, as_json=args.as_json)
    try:
        dirs = discover()
    except NotARepository:
        dirs = _personal_or_raise()  # outside any repository: personal memory, if any
    index = open_index(dirs)
    try:
        if args.stats:
            from git_memory.commands.recall_stats import show_stats  # lazy: --stats only

            return show_stats(index, args.as_json)
        paths = [p for p in (repo_path(dirs, p) for p in args.paths) if p]  # "" is the whole repo
        meaning = _meaning(index, args, since) if not args.recent else None
        entries = find(
            index, args.query, types=args.types, tags=args.tags, since=since,
            include_all=args.include_all, paths=paths, limit=args.limit, recent=args.recent,
            meaning=meaning, explain=args.explain,
        )
    finally:
        index.close()
    _print(entries, args)
    if meaning is not None and args.fmt == "text":
        have, total = meaning.near.coverage
        if have < total:
            ui.warn(f"git-memory: by meaning over {have:,} of {total:,} entries so far"
                   " (the rest are being embedded); keywords cover all")
    if meaning is not None and meaning.near.coverage[0] < meaning.near.coverage[1]:
        # Entries a pull or a killed worker left without vectors: embed them now, detached.
        from git_memory.agents import embedding  # lazy: partial coverage only

        embedding.start(dirs)
    return 0


def _meaning(index: Any, args: RecallArgs, since: str | None) -> Any:
    """The query's nearest entries by meaning, once this memory has vectors (one stat
    otherwise: keyword-only recall loads nothing more)."""
    if not args.query.strip() or not store_path(index.dirs).exists():
        return None
    from git_memory.embed import query as by_meaning  # lazy: numpy and the model, with vectors only

    return by_meaning.hits(index, args.query, types=args.types, tags=args.tags,
                           include_all=args.include_all, since=since)


def _personal_or_raise() -> GitDirs:
    found = personal_dirs()
    if found is None:
        raise NotARepository("not a git repository (or any of the parent directories),"
                             " and no personal memory yet (git memory add --personal TEXT)")
    return found


def format_hit(entry: dict[str, Any]) -> str:
    """One line: short id, type, first line, then (age #tags) and any status worth a look."""
    marks = []
    if entry["status"] not in ("active", "canonical"):
        marks.append(entry["status"])
    if entry.get("reverted_by"):
        marks.append(f"reverted by {entry['reverted_by'][:12]}")
    if entry["local_flag"]:
        marks.append(entry["local_flag"].replace("_", " ") + " here")
    if entry.get("from"):
        marks.append(entry["from"])  # a teammate's (origin), personal, or a source's
    head = f"{entry['id'][-8:].lower()}  {entry['type']:<13} {ui.first_line(entry['content'], 80)}"
    tail = "  ".join(x for x in (ui.age(entry["created"]), " ".join("#" + t for t in entry["tags"])) if x)
    mark = "".join(f" [{m}]" for m in marks)
    return f"{head}{mark}" + (f"  ({tail})" if tail else "")


def _print(entries: list[dict[str, Any]], args: RecallArgs) -> None:
    if args.fmt == "agent":
        # The same cleaning and untrusted-knowledge wrapper as `context` and the MCP server.
        from git_memory.agents.wrap import agent_block  # lazy: --format agent only

        ui.out(agent_block(entries, args.query)[0])
        return
    if args.as_json or args.fmt == "json":
        ui.out_json(entries)
        return
    if not entries:
        what = f"for {args.query.strip()!r}" if args.query.strip() else "with these filters"
        ui.out(f"no entries found {what}")
        return
    for entry in entries:
        ui.out(format_hit(entry))
        if args.explain:
            ui.out("    " + format_explain(entry["explain"]))


def format_explain(why: dict[str, Any]) -> str:
    """One line under a hit: which signals found it, and how strongly."""
    parts = [f"found by {' + '.join(why['found_by']) or 'nothing'}"]
    terms = ", ".join(why["terms"])
    parts.append(f"keyword {why['keyword']:.2f}" + (f" ({terms})" if terms else ""))
    if why["model"]:
        cosine = "none yet" if why["cosine"] is None else f"{why['cosine']:.2f}"
        parts.append(f"cosine {cosine} ({why['model']}, weight {why['meaning_weight']})")
    parts.append(f"confidence {why['confidence']:.2f}")
    return " · ".join(parts)


def __getattr__(name: str) -> object:
    """`recall_cmd`, the click definition (the reference for recall's options, help and
    usage errors, run whenever `parse_argv` hands over), built when the group asks for it,
    so that the fast path never imports click (PEP 562)."""
    if name != "recall_cmd":
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    import click  # lazy: recall's fast path runs without click

    from git_memory.cli import options  # lazy: imports click

    @click.command("recall")
    @click.argument("query", nargs=-1)
    @options.types()
    @options.tags()
    @click.option("--path", "paths", multiple=True, metavar="P",
                  help="Rank entries anchored at or under P higher (repeatable); alone, list them.")
    @click.option("--since", metavar="WHEN", help="Only entries created since a date (2026-01-31) or an age (7d, 2w, 3mo).")
    @options.limit("At most this many.", default=10)
    @options.include_all()
    @click.option("--recent", type=click.IntRange(1, MAX_COUNT), metavar="N",
                  help="The N newest entries; with QUERY, rank only among them.")
    @click.option("--stats", is_flag=True, help="Counts by type, status and tag, and the index's health.")
    @options.as_json()
    @click.option("--format", "fmt", type=click.Choice(FORMATS), default="text",
                  show_default=True, help="agent: cleaned and wrapped as untrusted knowledge, as"
                  " `context` prints it (for agents that shell out).")
    @click.option("--sessions", is_flag=True, help="Search the archived agent sessions instead of the entries.")
    @click.option("--explain", is_flag=True, help="Say under each hit which signals found it:"
                  " keyword terms and score, cosine by meaning and its model, confidence.")
    def recall_cmd(query: tuple[str, ...], **flags: Any) -> int:
        """Entries ranked for QUERY (words; quote it or not), best first."""
        return run(RecallArgs(query=" ".join(query), **flags))

    globals()["recall_cmd"] = recall_cmd
    return recall_cmd

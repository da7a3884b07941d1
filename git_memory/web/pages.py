"""The HTML of every page, for the server and the static site alike: Jinja2 templates of
`resources/templates/` with autoescape on, so no value is escaped by hand. No inline script
runs (the server's Content-Security-Policy forbids it): the graph's data rides in a `<script
type="application/json">`. Where the two sites differ, a `Site` says so."""

from __future__ import annotations

import functools
import json
from dataclasses import dataclass
from importlib import resources
from typing import Any

from jinja2 import Environment, PackageLoader, StrictUndefined

from git_memory.model import ENTRY_TYPES
from git_memory.web import svg
from git_memory.web.data import STATUSES

ASSETS = ("style.css", "graph.js", "search.js")  # the shipped scripts and style: resources/web/


def assets_dir() -> str:
    return str(resources.files("git_memory") / "resources" / "web")


@dataclass(frozen=True)
class Site:
    """Addresses and abilities of one site. `root`: the prefix that leads from the page to
    the site's top ("/" served, "" or "../" from disk); `static`: the exported site."""

    root: str = "/"
    static: bool = False
    write: bool = False
    csrf: str = ""

    def home(self) -> str:
        return self.root + ("index.html" if self.static else "")

    def entry(self, entry_id: str) -> str:
        return self.page(f"entry/{entry_id}")

    def page(self, name: str) -> str:
        return self.root + (f"{name}.html" if self.static else name)

    def asset(self, name: str) -> str:
        return self.root + "static/" + name


def _first_line(text: str) -> str:
    return text.strip().split("\n", 1)[0]


@functools.cache
def _templates() -> Environment:
    """Made once per process: Jinja2 compiles each template on first use and keeps it (no
    `auto_reload`: shipped templates do not change under a running export, and checking
    their files' times on every page would cost a stat per template)."""
    env = Environment(loader=PackageLoader("git_memory", "resources/templates"), autoescape=True,
                      trim_blocks=True, lstrip_blocks=True, keep_trailing_newline=True,
                      auto_reload=False, undefined=StrictUndefined)
    env.filters["first_line"] = _first_line
    # tojson escapes <, >, & and ' in any case; non-ASCII text stays as it is (a smaller
    # search index than \u escapes), as json.dumps wrote it before the templates.
    env.policies["json.dumps_kwargs"] = {"sort_keys": True, "ensure_ascii": False}
    env.globals.update(entry_types=ENTRY_TYPES, statuses=STATUSES)
    return env


def render(name: str, site: Site, **values: Any) -> str:
    """`site` and the page's `title`, `active` link and `scripts` reach base.html."""
    values.setdefault("title", "")
    values.setdefault("active", "")
    values.setdefault("scripts", ())
    return _templates().get_template(name).render(site=site, **values)


def search_page(site: Site, query: str, hits: list[dict[str, Any]] | None, type_: str = "",
                tag: str = "", status: str = "") -> str:
    """The form, then the hits (the static site fills them in with search.js)."""
    scripts = [site.root + "search-index.js", site.asset("search.js")] if site.static else []
    if site.static:
        query, type_, tag, status = "", "", "", ""
    return render("search.html", site, title="Search", active="search", scripts=scripts,
                  query=query, hits=hits, type_=type_, tag=tag, status=status)


def _text(value: Any) -> str:
    return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)


def _field_rows(entry: dict[str, Any]) -> list[tuple[str, str]]:
    rows = [("id", entry["id"]), ("key", entry.get("key")), ("status", entry["status"]),
            ("confidence", f"{entry['confidence']:.2f}" if entry.get("confidence") is not None else None),
            ("created", entry["created"]), ("author", entry.get("author")),
            ("source", entry.get("source")), ("file", entry.get("path")),
            ("tags", ", ".join("#" + t for t in entry["tags"])),
            ("anchors", ", ".join(entry.get("anchors", []))), ("from", entry.get("from"))]
    if entry.get("reinforcements") or entry.get("contradictions"):
        rows.append(("feedback", f"+{entry['reinforcements']} / -{entry['contradictions']}"))
    for name, value in entry.get("fields", {}).items():
        if name not in ("merged_from", "supersedes"):
            rows.append((name, _text(value)))
    return [(k, str(v)) for k, v in rows if v not in (None, "")]


def entry_page(site: Site, entry: dict[str, Any], prov: dict[str, Any],
               related: list[dict[str, Any]]) -> str:
    origin = [(k, _text(v)) for k, v in (entry.get("origin") or {}).items()]
    return render("entry.html", site, title=f"{entry['type']} {entry['id'][-8:].lower()}",
                  entry=entry, fields=_field_rows(entry), draw=svg.provenance(prov, entry["id"]),
                  related=related, origin=origin)


def graph_page(site: Site, graph: dict[str, Any]) -> str:
    return render("graph.html", site, title="Graph", active="graph",
                  scripts=[site.asset("graph.js")], graph=graph)


def timeline_page(site: Site, timeline: dict[str, Any]) -> str:
    return render("timeline.html", site, title="Timeline", active="timeline",
                  timeline=timeline, bars=svg.bars(timeline))


def review_page(site: Site, waiting: list[dict[str, Any]], message: str = "") -> str:
    return render("review.html", site, title="Review", active="review",
                  waiting=waiting, message=message)


def message_page(site: Site, title: str, text: str) -> str:
    return render("message.html", site, title=title, text=text)


def search_index_script(entries: list[dict[str, Any]]) -> str:
    return render("search-index.js", Site(static=True), entries=entries)

"""The HTML of every page, for the server and the static site alike: search, entry, graph,
timeline, review. Plain functions from the dicts `web.data` hands out to strings; every
value is escaped here (`html.escape`), every script and style is a file of
`git_memory/resources/web/` (no inline script runs: the server's Content-Security-Policy
forbids it; the graph's data rides in a `<script type="application/json">`, which is data,
not code). Where the two sites differ (addresses, the review page, search done in the
browser), a `Site` says so. Imports `model`, `web.data`, `web.svg`; never prints.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from html import escape
from typing import Any, Sequence

from git_memory.model import ENTRY_TYPES
from git_memory.web.data import STATUSES
from git_memory.web.svg import provenance_svg, timeline_svg


@dataclass(frozen=True)
class Site:
    """Addresses and abilities of one site. `root`: the prefix that leads from the page to
    the site's top ("/" served, "" or "../" from disk); `static`: the exported site."""

    root: str = "/"
    static: bool = False
    write: bool = False
    csrf: str = ""

    def at(self, root: str) -> Site:
        return Site(root, self.static, self.write, self.csrf)

    def home(self) -> str:
        return self.root + ("index.html" if self.static else "")

    def entry(self, entry_id: str) -> str:
        return self.root + (f"entry/{entry_id}.html" if self.static else f"entry/{entry_id}")

    def page(self, name: str) -> str:
        return self.root + (f"{name}.html" if self.static else name)

    def asset(self, name: str) -> str:
        return self.root + "static/" + name

    def entry_pattern(self) -> str:
        """The entry address with `{id}` for the graph's script to fill in."""
        return self.entry("{id}")


def _attr(value: Any) -> str:
    return escape(str(value), quote=True)


def layout(site: Site, title: str, active: str, body: str, scripts: Sequence[str] = ()) -> str:
    """A whole page: head with the shipped stylesheet, the navigation, `body`, `scripts`."""
    links = [("search", site.home(), "Search"), ("graph", site.page("graph"), "Graph"),
             ("timeline", site.page("timeline"), "Timeline")]
    if not site.static:
        links.append(("review", site.page("review"), "Review"))
    current = ' aria-current="page"'
    nav = "".join(f'<a href="{_attr(href)}"{current if key == active else ""}>{label}</a>'
                  for key, href, label in links)
    tags = "".join(f'<script src="{_attr(src)}"></script>' for src in scripts)
    return (
        "<!doctype html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f"<title>{escape(title)} · git memory</title>"
        '<link rel="icon" href="data:,">'  # no favicon request (and no 404 in the console)
        f'<link rel="stylesheet" href="{_attr(site.asset("style.css"))}"></head><body>'
        '<a class="skip" href="#main">Skip to content</a>'
        f'<header><span class="brand">git memory</span><nav aria-label="pages">{nav}</nav></header>'
        f'<main id="main">{body}</main>{tags}</body></html>\n'
    )


def _options(values: Sequence[str], chosen: str, blank: str) -> str:
    items = [f'<option value="">{escape(blank)}</option>']
    for value in values:
        mark = " selected" if value == chosen else ""
        items.append(f'<option value="{_attr(value)}"{mark}>{escape(value)}</option>')
    return "".join(items)


def search_form(site: Site, query: str = "", type_: str = "", tag: str = "", status: str = "") -> str:
    action = site.home()
    return (
        f'<form class="filters" id="search-form" role="search" action="{_attr(action)}" method="get">'
        '<label class="grow">Search <input type="search" name="q" id="q" autocomplete="off"'
        f' value="{_attr(query)}" placeholder="words to look for"></label>'
        f'<label>Type <select name="type" id="f-type">{_options(ENTRY_TYPES, type_, "any")}</select></label>'
        f'<label>Tag <input name="tag" id="f-tag" value="{_attr(tag)}" size="10"></label>'
        f'<label>Status <select name="status" id="f-status">{_options(STATUSES, status, "current")}'
        "</select></label><button type=\"submit\">Search</button></form>"
    )


def hit_item(site: Site, entry: dict[str, Any]) -> str:
    first = entry["content"].strip().split("\n", 1)[0]
    tags = " ".join(f'<span class="tag">#{escape(t)}</span>' for t in entry["tags"])
    return (
        f'<li class="hit" data-id="{_attr(entry["id"])}"><a href="{_attr(site.entry(entry["id"]))}">'
        f'{escape(first[:160])}</a><div class="meta"><span class="type t-{_attr(entry["type"])}">'
        f'{escape(entry["type"])}</span> <span class="status">{escape(entry["status"])}</span> '
        f'<span class="id">{escape(entry["id"][-8:].lower())}</span> '
        f'<time>{escape(entry["created"][:10])}</time> {tags}</div></li>'
    )


def search_page(site: Site, query: str, hits: list[dict[str, Any]] | None, type_: str = "",
                tag: str = "", status: str = "") -> str:
    """The search page: the form, then the hits (the static site fills them in with search.js)."""
    if site.static:
        results = '<p id="search-note" role="status">Type words to search.</p><ol id="results" class="hits"></ol>'
        return layout(site, "Search", "search", "<h1>Search</h1>" + search_form(site) + results,
                      [site.root + "search-index.js", site.asset("search.js")])
    if hits is None:
        note = "Type words to search, or leave empty for the newest entries."
    else:
        note = f"{len(hits)} entr{'y' if len(hits) == 1 else 'ies'}"
    items = "".join(hit_item(site, e) for e in hits or [])
    body = (f"<h1>Search</h1>{search_form(site, query, type_, tag, status)}"
            f'<p id="search-note" role="status">{escape(note)}</p><ol id="results" class="hits">{items}</ol>')
    return layout(site, "Search", "search", body)


def _field_rows(entry: dict[str, Any]) -> str:
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
            rows.append((name, value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)))
    return "".join(f"<tr><th scope=\"row\">{escape(k)}</th><td>{escape(str(v))}</td></tr>"
                   for k, v in rows if v not in (None, ""))


def _origin(entry: dict[str, Any]) -> str:
    origin = entry.get("origin") or {}
    if not origin:
        return "<p>Written by hand (no commit or session recorded).</p>"
    items = "".join(
        f"<li><span class=\"k\">{escape(k)}</span> <code>{escape(v if isinstance(v, str) else json.dumps(v, ensure_ascii=False))}</code></li>"
        for k, v in origin.items())
    return f'<ul class="origin">{items}</ul>'


def _related(site: Site, related: list[dict[str, Any]]) -> str:
    if not related:
        return "<p>No related entries.</p>"
    items = "".join(
        f'<li data-id="{_attr(r["id"])}"><a href="{_attr(site.entry(r["id"]))}">{escape(r["label"])}</a>'
        f' <span class="meta">{escape("; ".join(r.get("reasons", [])))}</span></li>' for r in related)
    return f'<ol class="related">{items}</ol>'


def entry_page(site: Site, entry: dict[str, Any], prov: dict[str, Any],
               related: list[dict[str, Any]]) -> str:
    """One entry: its text, fields, provenance drawn as a graph, related entries, origin."""
    reasons = "".join(f"<li>{escape(r)}</li>" for r in entry.get("reasons", []))
    body = (
        f'<article class="entry" data-id="{_attr(entry["id"])}">'
        f'<h1><span class="type t-{_attr(entry["type"])}">{escape(entry["type"])}</span> '
        f'{escape(entry["id"][-8:].lower())}</h1>'
        f'<pre class="content">{escape(entry["content"])}</pre>'
        f'<h2>Fields</h2><table class="fields">{_field_rows(entry)}</table>'
        f'<h2>Provenance</h2>{provenance_svg(site.entry, prov, entry["id"])}'
        + (f"<ul class=\"reasons\">{reasons}</ul>" if reasons else "")
        + f"<h2>Related entries</h2>{_related(site, related)}"
        f"<h2>Where it came from</h2>{_origin(entry)}</article>"
    )
    return layout(site, f"{entry['type']} {entry['id'][-8:].lower()}", "", body)


def graph_page(site: Site, graph: dict[str, Any]) -> str:
    """The interactive graph: filters, zoom, the drawing (graph.js) and its data."""
    data = json.dumps(graph, ensure_ascii=False).replace("</", "<\\/")
    note = f'<p class="note">{escape(graph["note"])}</p>' if graph.get("note") else ""
    body = (
        "<h1>Graph</h1>" + note +
        '<form class="filters" id="graph-filters">'
        f'<label>Type <select id="g-type">{_options(ENTRY_TYPES, "", "any")}</select></label>'
        f'<label>Status <select id="g-status">{_options(STATUSES, "", "any")}</select></label>'
        '<label>Tag <input id="g-tag" size="10"></label>'
        '<label>Path <input id="g-path" size="14"></label>'
        '<button type="button" id="g-zoom-in" aria-label="zoom in">+</button>'
        '<button type="button" id="g-zoom-out" aria-label="zoom out">−</button>'
        '<button type="button" id="g-reset">Reset</button></form>'
        '<p id="graph-stats" role="status"></p>'
        f'<div id="graph" class="graph" data-entry="{_attr(site.entry_pattern())}"></div>'
        '<p class="legend"><span class="sw t-entry"></span> entry <span class="sw k-tag"></span> tag'
        ' <span class="sw k-path"></span> path <span class="sw k-symbol"></span> symbol'
        ' · lines: supersedes (solid), merged from (dashed),'
        ' about (faint). Drag to move, wheel or +/− to zoom, click a node to open it.</p>'
        f'<script type="application/json" id="graph-data">{data}</script>'
    )
    return layout(site, "Graph", "graph", body, [site.asset("graph.js")])



def timeline_page(site: Site, timeline: dict[str, Any]) -> str:
    """Entries per week by type (a stacked bar chart and the same numbers as a table) and
    curation events per week."""
    weeks = timeline["weeks"]
    head = "".join(f"<th scope=\"col\">{escape(t)}</th>" for t in timeline["types"] + timeline["kinds"])
    rows = []
    for week in reversed(weeks):
        made = timeline["entries"].get(week, {})
        done = timeline["events"].get(week, {})
        if not made and not done:
            continue  # the chart shows the empty weeks; the table lists the others
        cells = [made.get(t, 0) for t in timeline["types"]] + [done.get(k, 0) for k in timeline["kinds"]]
        rows.append(f"<tr><th scope=\"row\">{escape(week)}</th>"
                    + "".join(f"<td>{c or ''}</td>" for c in cells) + "</tr>")
    table = (f'<div class="scroll"><table class="timeline"><caption>Entries by type, then curation'
             f' events by kind, per week (newest first)</caption><thead><tr><th scope="col">week of</th>'
             f"{head}</tr></thead><tbody>{''.join(rows)}</tbody></table></div>")
    body = f"<h1>Timeline</h1>{timeline_svg(timeline)}{table}"
    return layout(site, "Timeline", "timeline", body)


def review_page(site: Site, waiting: list[dict[str, Any]], message: str = "") -> str:
    """The review queue; with `--write`, a form per entry to accept or reject it."""
    note = ("" if site.write else
            '<p class="note">Read only: start <code>git memory serve --write</code> to accept or reject.</p>')
    shown = f'<p class="flash" role="status">{escape(message)}</p>' if message else ""
    items = "".join(_review_item(site, e) for e in waiting)
    empty = "" if waiting else "<p>Nothing waiting for review.</p>"
    body = f'<h1>Review</h1>{shown}{note}{empty}<ol class="hits review">{items}</ol>'
    return layout(site, "Review", "review", body)


def _review_item(site: Site, entry: dict[str, Any]) -> str:
    why = ", ".join(entry.get("waiting", []))
    form = ""
    if site.write:
        form = (
            f'<form class="decide" method="post" action="{_attr(site.page("review"))}">'
            f'<input type="hidden" name="csrf" value="{_attr(site.csrf)}">'
            f'<input type="hidden" name="id" value="{_attr(entry["id"])}">'
            f'<label>Reason (needed to reject) <input name="reason" size="24"></label>'
            '<button name="action" value="accept">Accept</button>'
            '<button name="action" value="reject">Reject</button></form>'
        )
    return hit_item(site, entry).replace(
        "</li>", f'<div class="why">waiting: {escape(why)}</div>{form}</li>')


def message_page(site: Site, title: str, text: str) -> str:
    return layout(site, title, "", f"<h1>{escape(title)}</h1><p>{escape(text)}</p>")

"""The web pages are Jinja2 templates with autoescape (git_memory/resources/templates/): an
entry whose text holds markup, quotes and ampersands shows as that text, never as markup, on
every page that draws entry text, served (Starlette's TestClient, in-process) and exported
(`git memory export --format html`, a real process); every template is rendered by a page
checked here (a template no test renders is a page nobody checks); and the static export
without Jinja2 says which extra it needs."""

from __future__ import annotations

import json
import subprocess
import sys
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import pytest
from starlette.testclient import TestClient

import git_memory.web
from git_memory.commands import review
from git_memory.commands.serve import _accept, _reject
from git_memory.entry import main
from git_memory.store.locate import discover
from git_memory.web.app import Review, Settings, create_app

NASTY = '<script>alert(1)</script> "quoted" & more'
TOKEN = "token-of-the-page-tests"
TEMPLATES = Path(__file__).resolve().parents[1] / "git_memory" / "resources" / "templates"


def _ok(result: subprocess.CompletedProcess) -> str:
    assert result.returncode == 0, result.stderr.decode("utf-8")
    return result.stdout.decode("utf-8").strip()


@pytest.fixture
def nasty(git_repo: Path, gm, tmp_path: Path) -> dict[str, str]:
    """Three entries holding NASTY: one waiting for review (it arrives by import, as a
    distilled entry would), one superseded by the third (so the third's page draws the
    older one in its provenance)."""
    waiting = {"id": "01KA0000000000000000000001", "kind": "entry", "type": "learned",
               "content": f"waiting {NASTY}", "tags": ["a&b"], "created": "2026-02-01T00:00:00Z",
               "author": "Test User <test@example.com>", "source": "distill",
               "origin": {"session": f"s {NASTY}"}, "key": None,
               "fields": {"status": "needs_review"}}
    header = {"git_memory_export": 1, "records": 1, "ref": "refs/heads/git-memory"}
    export = tmp_path / "waiting.jsonl"
    export.write_text(json.dumps(header) + "\n" + json.dumps(waiting) + "\n", encoding="utf-8")
    _ok(gm("import", str(export)))
    old = _ok(gm("add", f"DECISION: old {NASTY}"))
    new = _ok(gm("add", f"DECISION: new {NASTY}"))
    _ok(gm("supersede", old, new, "--reason", f"because {NASTY}"))
    return {"waiting": waiting["id"], "old": old, "new": new}


class _Shown(HTMLParser):
    """What a browser shows of a page: its text, and its script elements (attributes, body)."""

    def __init__(self, html: str) -> None:
        super().__init__(convert_charrefs=True)
        self.text: list[str] = []
        self.scripts: list[tuple[dict[str, Any], str]] = []
        self._in_script = False
        self.feed(html)
        self.close()

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "script":
            self.scripts.append((dict(attrs), ""))
            self._in_script = True

    def handle_endtag(self, tag: str) -> None:
        if tag == "script":
            self._in_script = False

    def handle_data(self, data: str) -> None:
        if self._in_script:
            attrs, body = self.scripts[-1]
            self.scripts[-1] = (attrs, body + data)
        else:
            self.text.append(data)


def _shows_as_text(html: str, where: str, has_text: bool = True) -> None:
    """NASTY reaches the page only escaped: no script element but the page's own (a shipped
    file, or the graph's JSON data, which must parse), and, where the page draws entry
    text, the browser shows NASTY as written."""
    assert "<script>alert(1)" not in html, where
    shown = _Shown(html)
    for attrs, body in shown.scripts:
        assert "src" in attrs or attrs.get("type") == "application/json", (where, attrs)
        if attrs.get("type") == "application/json":  # the graph's data
            labels = [n["label"] for n in json.loads(body)["nodes"]]
            assert any(NASTY in label for label in labels), where
    if has_text:
        assert NASTY in "".join(shown.text), where


def _client() -> TestClient:
    settings = Settings(dirs=discover(), token=TOKEN, port=8766, write=True, csrf="csrf-here",
                        review=Review(queue=review.queue, accept=_accept, reject=_reject))
    client = TestClient(create_app(settings), base_url="http://127.0.0.1:8766")
    assert client.get(f"/?token={TOKEN}").status_code == 200  # the cookie holds it from here
    return client


def _served(ids: dict[str, str]) -> dict[str, str]:
    client = _client()
    paths = {"search": "/?q=alert+quoted", "new": f"/entry/{ids['new']}",
             "old": f"/entry/{ids['old']}", "waiting": f"/entry/{ids['waiting']}",
             "review": "/review", "graph": "/graph", "timeline": "/timeline",
             "missing": "/entry/nothing-of-that-name"}
    pages = {name: client.get(path) for name, path in paths.items()}
    assert {n: p.status_code for n, p in pages.items()} == {
        **{n: 200 for n in paths}, "missing": 404}
    return {name: page.text for name, page in pages.items()}


def _exported(gm, target: Path) -> dict[str, str]:
    _ok(gm("export", "--format", "html", str(target)))
    return {p.relative_to(target).as_posix(): p.read_text(encoding="utf-8")
            for p in target.rglob("*") if p.is_file() and p.parent.name != "static"}


def test_entry_text_shows_as_text_on_every_served_page(nasty: dict[str, str]) -> None:
    pages = _served(nasty)
    for name in ("search", "new", "old", "waiting", "review"):
        _shows_as_text(pages[name], name)
    _shows_as_text(pages["graph"], "graph", has_text=False)  # the text is in the graph's JSON
    _shows_as_text(pages["timeline"], "timeline", has_text=False)  # counts per week, no text
    shown = "".join(_Shown(pages["new"]).text)
    assert shown.count(f"old {NASTY}") == 2  # the older one in the drawing (its title) and related
    assert f"s {NASTY}" in "".join(_Shown(pages["waiting"]).text)  # origin
    search = "".join(_Shown(pages["search"]).text)
    assert f"new {NASTY}" in search and f"waiting {NASTY}" in search
    assert "#a&b" in "".join(_Shown(pages["review"]).text)  # a tag with an ampersand


def test_entry_text_shows_as_text_in_the_static_export(nasty: dict[str, str], gm, tmp_path: Path) -> None:
    files = _exported(gm, tmp_path / "site")
    for name in ("new", "old", "waiting"):
        _shows_as_text(files[f"entry/{nasty[name]}.html"], name)
    _shows_as_text(files["graph.html"], "graph.html", has_text=False)  # in the graph's JSON
    for name in ("index.html", "timeline.html"):  # search runs in the browser; counts only
        _shows_as_text(files[name], name, has_text=False)
    script = files["search-index.js"]
    prefix, suffix = "window.GM_INDEX = ", ";\n"
    assert script.startswith(prefix) and script.endswith(suffix)
    assert "<" not in script and "&" not in script  # tojson writes them as \u003c, \u0026
    texts = {e["id"]: e["text"] for e in json.loads(script[len(prefix):-len(suffix)])}
    assert texts[nasty["new"]] == f"new {NASTY}" and nasty["old"] not in texts


# Each template and what shows that a page drew it: (where, marker). A new template without
# a line here fails the test below.
MARKERS = {
    "base.html": ("served search", '<a class="skip" href="#main">Skip to content</a>'),
    "macros.html": ("served search", '<li class="hit" data-id="'),
    "search.html": ("static index.html", 'id="search-form"'),
    "entry.html": ("served new", '<svg class="prov"'),
    "graph.html": ("static graph.html", '<script type="application/json" id="graph-data">'),
    "timeline.html": ("served timeline", '<svg class="bars"'),
    "review.html": ("served review", '<form class="decide" method="post" action="/review">'),
    "message.html": ("served missing", "<h1>Not found</h1>"),
    "search-index.js": ("static search-index.js", "window.GM_INDEX = "),
}


def test_every_template_is_drawn_by_a_page(nasty: dict[str, str], gm, tmp_path: Path) -> None:
    assert set(MARKERS) == {p.name for p in TEMPLATES.iterdir() if p.is_file()}
    pages = {f"served {k}": v for k, v in _served(nasty).items()}
    pages.update({f"static {k}": v for k, v in _exported(gm, tmp_path / "site").items()})
    for template, (where, marker) in MARKERS.items():
        assert marker in pages[where], (template, where)
    assert pages["served review"].count('name="csrf" value="csrf-here"') == 1  # one entry waits
    assert '<option value="decision">decision</option>' in pages["served search"]


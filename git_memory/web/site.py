"""`git memory export --format html DIR`: the web view's pages as files a browser opens from
disk (file://) or a team publishes from CI: index.html (search), entry/ID.html for every
entry not redacted, graph.html, timeline.html, static/ (the shipped script and style), and
search-index.js.

A browser refuses fetch() of local files, so the search index is a script assigning a
global (`window.GM_INDEX`) that search.js reads; the graph's data is inside its page.
Redacted entries are never written (nor their text, which the index no longer holds);
every text went through `web.data`'s secret mask. Never prints.
"""

from __future__ import annotations

import re
import shutil
from pathlib import Path

from git_memory.errors import BadInput
from git_memory.api.memory import Memory
from git_memory.web import data, graphdata, pages
from git_memory.web.assets import ASSETS, asset_path

_SAFE_ID = re.compile(r"^[0-9A-Za-z_-]{1,80}$")  # an id that is a safe file name


def write_site(index: Memory, target: Path) -> int:
    """Write the site into `target` (made if missing); the number of pages written."""
    if target.exists() and not target.is_dir():
        raise BadInput(f"{target} exists and is not a folder")
    try:
        return _write(index, target)
    except OSError as exc:
        raise BadInput(f"cannot write {target}: {exc.strerror}") from None


def _write(index: Memory, target: Path) -> int:
    top, below = pages.Site("", static=True), pages.Site("../", static=True)
    (target / "entry").mkdir(parents=True, exist_ok=True)
    (target / "static").mkdir(exist_ok=True)
    for name in ASSETS:
        shutil.copyfile(asset_path(name), target / "static" / name)
    entries = data.search_index(index)
    (target / "search-index.js").write_text(pages.search_index_script(entries), encoding="utf-8")
    _page(target / "index.html", pages.search_page(top, "", None))
    _page(target / "graph.html", pages.graph_page(top, graphdata.whole(index)))
    _page(target / "timeline.html", pages.timeline_page(top, data.timeline(index)))
    written = 3
    for shown in data.iter_visible(index):
        if not _SAFE_ID.match(shown["id"]):
            continue  # a hand-made id that is no file name: left out rather than escaped
        full = data.entry(index, shown["id"])
        if full is None:
            continue
        prov = graphdata.provenance(index, full["id"])
        html = pages.entry_page(below, full, prov, graphdata.related(index, full["id"]))
        _page(target / "entry" / f"{full['id']}.html", html)
        written += 1
    return written


def _page(path: Path, html: str) -> None:
    path.write_text(html, encoding="utf-8")

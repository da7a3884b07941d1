"""`git memory export --format html DIR`: the web view's pages as files a browser opens from
disk or a team publishes. A browser refuses fetch() of local files, so the search index is a
script assigning a global (`window.GM_INDEX`) that search.js reads."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

from git_memory.errors import BadInput
from git_memory.api.memory import Memory
from git_memory.web import data, pages

_SAFE_ID = re.compile(r"^[0-9A-Za-z_-]{1,80}$")  # an id that is a safe file name


def write_site(memory: Memory, target: Path) -> int:
    """Write the site into `target` (made if missing); the number of pages written."""
    if target.exists() and not target.is_dir():
        raise BadInput(f"{target} exists and is not a folder")
    try:
        return _write(memory, target)
    except OSError as exc:
        raise BadInput(f"cannot write {target}: {exc.strerror}") from None


def _write(memory: Memory, target: Path) -> int:
    top, below = pages.Site("", static=True), pages.Site("../", static=True)
    (target / "entry").mkdir(parents=True, exist_ok=True)
    (target / "static").mkdir(exist_ok=True)
    for name in pages.ASSETS:
        shutil.copyfile(Path(pages.assets_dir()) / name, target / "static" / name)
    tops = {
        "search-index.js": pages.search_index_script(data.search_index(memory)),
        "index.html": pages.search_page(top, "", None),
        "graph.html": pages.graph_page(top, data.whole(memory)),
        "timeline.html": pages.timeline_page(top, data.timeline(memory)),
    }
    for name, html in tops.items():
        (target / name).write_text(html, encoding="utf-8")
    written = 3  # pages: the search index is none
    for shown in data.iter_visible(memory):
        if not _SAFE_ID.match(shown["id"]):
            continue  # a hand-made id that is no file name: left out rather than escaped
        full = data.entry(memory, shown["id"])
        if full is not None:
            prov = data.provenance(memory, full["id"])
            html = pages.entry_page(below, full, prov, data.related(memory, full["id"]))
            (target / "entry" / f"{full['id']}.html").write_text(html, encoding="utf-8")
            written += 1
    return written

"""The shipped scripts and stylesheet of the web view (package data under
git_memory/resources/web/), found through importlib.resources. Imports nothing of ours.
"""

from __future__ import annotations

from importlib import resources

ASSETS = ("style.css", "graph.js", "search.js")


def assets_dir() -> str:
    return str(resources.files("git_memory") / "resources" / "web")


def asset_path(name: str) -> str:
    return str(resources.files("git_memory") / "resources" / "web" / name)

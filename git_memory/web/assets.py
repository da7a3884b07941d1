"""The shipped scripts and stylesheet of the web view (git_memory/resources/web/)."""

from __future__ import annotations

from importlib import resources

ASSETS = ("style.css", "graph.js", "search.js")


def assets_dir() -> str:
    return str(resources.files("git_memory") / "resources" / "web")

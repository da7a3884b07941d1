#!/usr/bin/env python3
"""Screenshots of the web view for docs/web.md, taken in Debian's headless chromium.

    python scripts/screenshots.py        write docs/img/web-*.png

Builds the browser tests' memory (tests/webmem.py: the 217 Lavra entries, generated entries,
a supersede chain, a merge, a contradiction, a redaction, two entries waiting for review) in
a temporary folder, runs the real `git memory serve`, and photographs search, an entry, the
graph, the timeline and the review queue on a laptop screen, and search on a phone. Prints
the graph's drawing time as measured in the page.
"""
from __future__ import annotations

import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))

from webmem import build, isolated_env, runner, serve  # noqa: E402

OUT = ROOT / "docs" / "img"
CHROMIUM = "/usr/bin/chromium"


def main() -> int:
    from playwright.sync_api import sync_playwright

    OUT.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        env = isolated_env(root / "home")
        repo = root / "repo"
        repo.mkdir()
        for args in (["init", "-q"], ["commit", "-q", "--allow-empty", "-m", "initial"]):
            subprocess.run(["git", *args], cwd=repo, env=env, check=True)
        memory = build(runner(repo, env), root, extra=300)
        proc, url = serve(repo, env, "--write")
        base = url.split("/?", 1)[0]
        shots = [("search", f"{base}/?q=beads+sync"), ("entry", f"{base}/entry/{memory.merged}"),
                 ("graph", f"{base}/graph"), ("timeline", f"{base}/timeline"),
                 ("review", f"{base}/review")]
        try:
            with sync_playwright() as play:
                browser = play.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
                page = browser.new_page(viewport={"width": 1280, "height": 860})
                page.goto(url)
                for name, address in shots:
                    page.goto(address)
                    if name == "graph":
                        page.wait_for_function("window.gmGraph !== undefined")
                        print("graph:", page.evaluate("window.gmGraph"))
                    page.screenshot(path=str(OUT / f"web-{name}.png"), full_page=name != "graph")
                phone = browser.new_page(viewport={"width": 390, "height": 844}, is_mobile=True)
                phone.goto(url)
                phone.goto(f"{base}/?q=beads+sync")
                phone.screenshot(path=str(OUT / "web-search-phone.png"))
                browser.close()
        finally:
            proc.terminate()
            proc.wait(timeout=30)
    for path in sorted(OUT.glob("web-*.png")):
        print(path.relative_to(ROOT))
    return 0


if __name__ == "__main__":
    sys.exit(main())

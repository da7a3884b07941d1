"""The web view of a memory: `git memory serve` (app.py) and the static site of `git memory
export --format html` (site.py), drawing the same pages (pages.py) from the same reads (data.py)."""

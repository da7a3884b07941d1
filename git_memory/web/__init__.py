"""The web view of a memory: `git memory serve` (app.py, on Starlette) and the static site of
`git memory export --format html` (site.py), both drawing the same pages (pages.py) from the
same reads of the index (data.py). Imports the layers below `commands/` and `graph`; never
prints, never exits. The review decisions are handed in by `commands/serve.py` (they are
`commands.review`'s), so this layer does not import `commands`.
"""

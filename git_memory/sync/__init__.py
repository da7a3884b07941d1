"""Sync: fetch, merge and push the memory branch through the user's own `git`.

`gitcmd` runs `git fetch` / `git push` (network, credentials, SSH config and URL
rewrites stay git's business), `merge` unions two memory histories into one commit and
moves the local ref by compare-and-swap, `engine` puts them together with bounded
retries, `autosync` is what the pre-push hook calls. Never prints, never exits.
"""

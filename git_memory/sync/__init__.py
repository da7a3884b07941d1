"""Sync: fetch, union merge and push of the memory branch through the user's own `git`."""

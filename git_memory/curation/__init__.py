"""Curation: record builders, candidate finding, proposals, proposal branches and purge."""

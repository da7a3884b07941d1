"""Curation: record builders, candidate finding, proposals, proposal branches and purge.

Everything here works on the memory branch and the index and never prints; the
`commands/` modules present it.
"""

"""The library: `Memory` (api/memory.py), one repository's memory as a Python object, which
the CLI's commands, the MCP server and the web view go through; `watch` (what a warm
`Memory` stats to know when to reopen its index); `curating` (the manual curation rules)."""

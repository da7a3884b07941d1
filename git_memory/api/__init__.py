"""The library: `Memory` (api/memory.py), which the CLI's commands, the MCP server and the web
view go through."""

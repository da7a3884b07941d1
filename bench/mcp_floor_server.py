#!/usr/bin/env python3
"""The MCP benchmark's floor: an SDK server whose tools do no work, over stdio.

    python bench/mcp_floor_server.py [CANNED.json]

`bench_mcp.py` drives it with the same client and the same call loop as `git memory
mcp`, so the difference between the two is what our recall tool costs and the rest is
the SDK (JSON-RPC framing, pydantic validation both ways, the event loop, the pipes).
Two tools, declared like ours (a coroutine taking the context):
`noop` answers "ok"; `canned` answers a recall result recorded earlier (CANNED.json:
the structured content of one real `recall` call), so its time is the SDK's cost of
carrying a recall-sized answer (ten entries with provenance, the wrapped text).
Not part of git-memory: only the benchmark starts it.
"""

# No `from __future__ import annotations`: the SDK reads the tools' annotations at run time.

import json
import sys
from typing import Any

from mcp.server.mcpserver import Context, MCPServer
from mcp.types import CallToolResult, TextContent


def main() -> None:
    canned: dict[str, Any] = {"text": "no canned result", "results": []}
    if len(sys.argv) > 1:
        with open(sys.argv[1], encoding="utf-8") as handle:
            canned = json.load(handle)
    server = MCPServer("floor", log_level="WARNING")

    @server.tool()
    async def noop(ctx: Context, query: str = "", limit: int = 10) -> Any:
        """Answers "ok" and does nothing else."""
        return CallToolResult(content=[TextContent(type="text", text="ok")],
                              structured_content={"ok": True})

    @server.tool()
    async def canned_recall(ctx: Context, query: str = "", limit: int = 10) -> Any:
        """Answers the same recorded recall result every time."""
        return CallToolResult(content=[TextContent(type="text", text=canned["text"])],
                              structured_content=canned)

    server.run("stdio")


if __name__ == "__main__":
    main()

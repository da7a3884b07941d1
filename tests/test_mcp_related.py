"""The MCP server's `related` tool (issue 18), through the official SDK's client over stdio,
as tests/test_mcp_server.py drives the other tools."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

from conftest import err, out
from mcp_support import _structured, run_session  # skips this module without the SDK

if TYPE_CHECKING:
    from mcp import ClientSession


def test_related_tool_ranks_and_wraps_like_the_command(git_repo, gm):
    for text in ("LEARNED: TokenCache.refresh in src/auth/token.py must hold the lock",
                 "FAILURE: TokenCache.refresh in src/auth/token.py raced under load",
                 "DECISION: release notes are written by hand"):
        assert gm("add", text).returncode == 0, err(gm("add", text))
    first = json.loads(out(gm("list", "--json")))[-1]["id"]
    expected = json.loads(out(gm("related", first, "--json")))

    async def body(session: ClientSession) -> Any:
        found = await session.call_tool("related", {"id": first[-8:], "limit": 5})
        missing = await session.call_tool("related", {"id": "nosuchid"})
        too_many = await session.call_tool("related", {"id": first, "limit": 1000})
        return found, missing, too_many

    found, missing, too_many = run_session(git_repo, body)
    data = _structured(found)
    assert [r["id"] for r in data["results"]] == [r["id"] for r in expected]
    assert data["count"] == 1 and "TokenCache.refresh" in data["results"][0]["content"]
    assert "shares symbol TokenCache.refresh" in data["results"][0]["reasons"]
    text = found.content[0].text
    assert "<untrusted-knowledge nonce=" in text and "because: shares symbol" in text
    assert text.rstrip().endswith("</untrusted-knowledge nonce=\"" + data["nonce"] + "\">")
    assert missing.is_error and "no entry 'nosuchid'" in missing.content[0].text
    assert too_many.is_error and "limit must be between 1 and 100" in too_many.content[0].text

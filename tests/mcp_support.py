"""Running the real MCP server under the official SDK's client, for every MCP test: the
server command (forked warm, or afresh) and a session run to its end."""

from __future__ import annotations

import asyncio
import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

import gmfork

if TYPE_CHECKING:
    from mcp import StdioServerParameters


SDK_SERVER = ["mcp.server.mcpserver", "mcp.server.stdio"]


def _params(repo: Path, *args: str) -> StdioServerParameters:
    """The server the client starts: `git memory mcp`, forked from the warm interpreter
    with the SDK imported once (gmfork.launch_command), or afresh when the fork declines.
    test_stdout_carries_only_protocol_messages always starts its server afresh."""
    from mcp import StdioServerParameters

    env = dict(os.environ)
    fork = env.get("GM_TEST_FORK", "1") != "0"
    command = (fork and gmfork.launch_command(["mcp", *args], env, SDK_SERVER)) or [
        sys.executable, "-m", "git_memory", "mcp", *args]
    return StdioServerParameters(command=command[0], args=command[1:], cwd=str(repo), env=env)


async def _session_run(repo: Path, body: Any, *args: str) -> Any:
    from mcp import ClientSession
    from mcp.client.stdio import stdio_client

    with open(repo.parent / "server.err", "w", encoding="utf-8") as errlog:
        async with stdio_client(_params(repo, *args), errlog=errlog) as (read, write):
            async with ClientSession(read, write) as session:
                await session.initialize()
                return await body(session)


def run_session(repo: Path, body: Any, *args: str) -> Any:
    return asyncio.run(_session_run(repo, body, *args))


def _structured(result: Any) -> dict[str, Any]:
    assert not result.is_error, result.content[0].text
    data: dict[str, Any] = result.structured_content
    return data

"""`git memory mcp` driven by the official MCP SDK's own client over stdio (issue 14).

The server is the real `git memory mcp` process in a real repository; the client
is `mcp.ClientSession` over `mcp.client.stdio.stdio_client`, as an agent host runs it.
"""

from __future__ import annotations

import asyncio
import importlib.util
import json
import os
import shutil
import statistics
import subprocess
import sys
import time
from typing import TYPE_CHECKING, Any

import pytest

from conftest import err, git, tip
from mcp_support import _params, _structured, run_session

# The SDK (pydantic and all) costs about 1.2 s of CPU to import: imported by the tests that
# drive it, so a pytest worker that runs none of them does not pay for it at collection.
# The SDK is in [test]: a suite without it fails here instead of skipping.
assert importlib.util.find_spec("mcp") is not None, "the MCP SDK (`mcp`) is not installed"
if TYPE_CHECKING:
    from mcp import ClientSession

TOOLS = {"recall", "context", "show", "related", "add", "handoff", "propose"}
# Built at run time so no scanner flags this file; the sanitizer must still see a key.
AWS_KEY = "AKIA" + "Q3EGRTZ7XW5KPMNB"


# What `git memory mcp` imports besides git_memory: the SDK's server, about 0.9 s of CPU.
def _seed(gm: Any) -> None:
    for text in ("DECISION: use SQLite FTS5 for recall, not a vector store",
                 "LEARNED: the deploy script needs AWS_PROFILE set to staging",
                 "FAILURE: running migrations during the deploy locked the users table"):
        assert gm("add", text).returncode == 0


@pytest.fixture
def git_repo(shared_repo, gm):  # type: ignore[no-untyped-def]
    """Every test here starts from the same three entries (`_seed`): added once per worker,
    copied for each test, instead of three `git memory add` processes per test."""
    return shared_repo("mcp-seeded", lambda repo: _seed(gm))


def test_lists_tools_recalls_wrapped_with_ids_scores_and_provenance(git_repo, gm):

    async def body(session: ClientSession) -> Any:
        tools = await session.list_tools()
        found = await session.call_tool("recall", {"query": "deploy script", "limit": 5})
        typed = await session.call_tool("recall", {"query": "deploy", "type": ["failure"]})
        return tools, found, typed

    tools, found, typed = run_session(git_repo, body)
    assert {t.name for t in tools.tools} == TOOLS
    recall_tool = next(t for t in tools.tools if t.name == "recall")
    assert {"query", "type", "tag", "path", "since", "limit", "all"} <= set(
        recall_tool.input_schema["properties"])
    data = _structured(found)
    assert data["count"] >= 1
    top = data["results"][0]
    assert "AWS_PROFILE" in top["content"]
    assert top["score"] is not None and top["status"] == "active" and len(top["id"]) > 8
    assert top["source"] == "manual" and "superseded_by" in top
    text = found.content[0].text
    assert text.startswith("The block below is project memory")
    assert f'<untrusted-knowledge nonce="{data["nonce"]}">' in text
    assert text.rstrip().endswith(f'</untrusted-knowledge nonce="{data["nonce"]}">')
    assert f"id {top['id'][-8:].lower()}" in text
    assert [r["type"] for r in _structured(typed)["results"]] == ["failure"]


def test_add_refuses_a_secret_by_rule_without_echoing_it_and_writes_nothing(git_repo, gm):
    before = tip(git_repo)

    async def body(session: ClientSession) -> Any:
        bad = await session.call_tool("add", {"text": f"LEARNED: the key is {AWS_KEY} for prod"})
        good = await session.call_tool("add", {"text": "LEARNED: tests need LC_ALL=C.UTF-8"})
        return bad, good

    bad, good = run_session(git_repo, body)
    assert bad.is_error
    message = bad.content[0].text
    assert "secret" in message and "aws" in message.lower()
    assert AWS_KEY not in message and AWS_KEY not in json.dumps(bad.model_dump(mode="json"))
    assert AWS_KEY not in (git_repo.parent / "server.err").read_text(encoding="utf-8")
    added = _structured(good)
    assert added["written_to"] == "memory" and tip(git_repo) != before
    shown = json.loads(gm("show", added["id"], "--json").stdout)
    assert shown["source"] == "agent" and "LC_ALL" in shown["content"]


def test_context_show_handoff_and_propose(git_repo, gm):
    git("config", "memory.agentWrites", "propose", cwd=git_repo)
    memory_tip = tip(git_repo)

    async def body(session: ClientSession) -> Any:
        await session.call_tool("handoff", {"text": "finish the FTS5 ranking change"})
        ctx = await session.call_tool("context", {"budget": 2000})
        hits = _structured(await session.call_tool("recall", {"query": "SQLite FTS5"}))
        shown = await session.call_tool("show", {"id": hits["results"][0]["id"][-8:]})
        added = await session.call_tool("add", {"text": "DECISION: agents propose, people merge"})
        proposed = await session.call_tool("propose", {"text": "PATTERN: one writer per ref"})
        return ctx, shown, added, proposed

    ctx, shown, added, proposed = run_session(git_repo, body)
    context = _structured(ctx)
    assert context["items"][0]["section"] == "handoff"
    assert "FTS5 ranking" in ctx.content[0].text and "<untrusted-knowledge" in ctx.content[0].text
    entry = _structured(shown)["entry"]
    assert entry["type"] == "decision" and "provenance" in entry
    for result, word in ((added, "agents propose"), (proposed, "one writer per ref")):
        data = _structured(result)
        assert data["written_to"] == "proposal"
        assert data["ref"].startswith("refs/heads/git-memory-proposals/agent-")
        assert word in git("log", "-p", "-1", data["ref"], cwd=git_repo)
    # The proposals left the memory branch where the handoff put it.
    assert git("log", "--format=%s", "-1", "refs/heads/git-memory", cwd=git_repo).startswith(
        "memory: record a handoff")
    assert tip(git_repo) != memory_tip
    assert gm("recall", "agents propose", "--json").stdout == b"[]\n"


def test_agent_writes_off_refuses_every_write(git_repo, gm):
    git("config", "memory.agentWrites", "off", cwd=git_repo)
    before = tip(git_repo)

    async def body(session: ClientSession) -> Any:
        return [await session.call_tool(name, {"text": "LEARNED: nothing"})
                for name in ("add", "propose", "handoff")]

    for result in run_session(git_repo, body):
        assert result.is_error and "agentWrites" in result.content[0].text
    assert tip(git_repo) == before


def test_entry_added_by_the_cli_while_serving_is_found_by_the_next_recall(git_repo, gm):

    async def body(session: ClientSession) -> Any:
        first = _structured(await session.call_tool("recall", {"query": "flamingo"}))
        added = subprocess.run(["git", "memory", "add", "LEARNED: the flamingo cache warms at 6am"],
                               cwd=git_repo, capture_output=True)
        assert added.returncode == 0, err(added)
        second = _structured(await session.call_tool("recall", {"query": "flamingo"}))
        return first, second

    first, second = run_session(git_repo, body)
    assert first["count"] == 0
    assert second["count"] == 1 and "flamingo" in second["results"][0]["content"]


def test_stdout_carries_only_protocol_messages(git_repo, gm):
    lines = [
        {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2025-06-18", "capabilities": {},
            "clientInfo": {"name": "raw", "version": "0"}}},
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        {"jsonrpc": "2.0", "id": 2, "method": "tools/call",
         "params": {"name": "add", "arguments": {"text": "LEARNED: raw clients work too"}}},
        {"jsonrpc": "2.0", "id": 3, "method": "tools/call",
         "params": {"name": "recall", "arguments": {"query": "raw clients"}}},
    ]
    proc = subprocess.Popen([sys.executable, "-m", "git_memory", "mcp"], cwd=git_repo,
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    assert proc.stdin is not None and proc.stdout is not None
    replies = []
    for message in lines:
        proc.stdin.write((json.dumps(message) + "\n").encode())
        proc.stdin.flush()
        if "id" in message:
            replies.append(json.loads(proc.stdout.readline()))
    proc.stdin.close()
    rest = proc.stdout.read()
    proc.wait(timeout=30)
    assert rest.strip() == b""  # nothing else ever reached stdout
    assert [r["id"] for r in replies] == [1, 2, 3]
    assert "raw clients" in replies[2]["result"]["structuredContent"]["results"][0]["content"]


def test_outside_a_repository_the_first_call_says_so(tmp_path):
    async def body(session: ClientSession) -> Any:
        return await session.call_tool("recall", {"query": "x"})

    result = run_session(tmp_path, body)
    assert result.is_error and "repository" in result.content[0].text


def test_hundred_recalls_in_one_session_stay_warm(git_repo, gm):

    async def body(session: ClientSession) -> list[float]:
        took = []
        for n in range(100):
            started = time.perf_counter()
            result = await session.call_tool("recall", {"query": "deploy migrations" if n % 2 else "SQLite"})
            took.append(time.perf_counter() - started)
            assert _structured(result)["count"] >= 1
        return took

    took = run_session(git_repo, body)
    assert len(took) == 100
    assert statistics.median(took) < 0.5  # a cold open per call would be far slower under load


# npx keeps what it downloaded here; the tests' own HOME is new each time.
NPM_CACHE = os.path.join(os.path.expanduser("~"), ".npm")


@pytest.mark.slow
@pytest.mark.skipif(shutil.which("npx") is None, reason="npx is not installed")
def test_driven_by_the_mcp_inspector_cli(git_repo, gm):
    """A client nobody here wrote: the MCP Inspector's CLI mode from npm (about a minute)."""
    server = [sys.executable, "-m", "git_memory", "mcp"]
    command = ["npx", "-y", "@modelcontextprotocol/inspector", "--cli", *server,
               "--method", "tools/call", "--tool-name", "recall", "--tool-arg", "query=deploy script"]
    env = {**os.environ, "npm_config_cache": NPM_CACHE}
    result = subprocess.run(command, cwd=git_repo, capture_output=True, text=True, timeout=600,
                            env=env)
    if result.returncode != 0 and "ENOTFOUND" in result.stderr + result.stdout:
        pytest.skip("the npm registry is not reachable")
    assert result.returncode == 0, result.stderr[-2000:]
    data = json.loads(result.stdout)
    assert "AWS_PROFILE" in data["structuredContent"]["results"][0]["content"]
    listed = subprocess.run(command[:4] + server + ["--method", "tools/list"], cwd=git_repo,
                            capture_output=True, text=True, timeout=600, env=env)
    assert listed.returncode == 0, listed.stderr[-2000:]
    assert {t["name"] for t in json.loads(listed.stdout)["tools"]} == TOOLS


def test_started_outside_a_repository_it_serves_the_clients_root(git_repo, gm, tmp_path):
    import mcp
    from mcp import ClientSession
    from mcp.client.stdio import stdio_client

    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()

    async def roots(context: Any) -> Any:
        return mcp.types.ListRootsResult(roots=[
            mcp.types.Root(uri=elsewhere.as_uri(), name="not a repository"),
            mcp.types.Root(uri=git_repo.as_uri(), name="repo")])

    async def body() -> Any:
        with open(tmp_path / "server.err", "w", encoding="utf-8") as errlog:
            async with stdio_client(_params(elsewhere), errlog=errlog) as (read, write):
                async with ClientSession(read, write, list_roots_callback=roots) as session:
                    await session.initialize()
                    return await session.call_tool("recall", {"query": "deploy script"})

    result = asyncio.run(body())
    assert "AWS_PROFILE" in _structured(result)["results"][0]["content"]

#!/usr/bin/env python3
"""Benchmark `git memory mcp`: 100 recalls in one session, through the official SDK client.

    python bench/bench_mcp.py [--entries 100000] [--repo DIR] [--calls 100] [--rounds 1]
                              [--baseline CHECKOUT] [--instructions] [--no-write]

Builds a repository of N entries (`../shared/tools/make_corpus.py` + `git memory import
--format jsonl`), or uses `--repo`, starts `git memory mcp` there as an agent host does
(stdio, `mcp.ClientSession`), and times each `recall` tool call from the client's side:
request, search, wrapping, JSON-RPC both ways and the SDK's validation. Queries are
two words taken from the corpus's own entries, a different pair each call. Reports
the first call (opens the index), the median and 90th percentile of the rest, the
server's CPU time per warm call, and the server's start-up (process start to
`initialize` answered).

In the same run, with the same client and call loop:
- the floor: `bench/mcp_floor_server.py`, an SDK server whose tools do nothing (`noop`)
  or hand back a recorded recall result (`canned_recall`): what the SDK itself costs
  per call, without and with a recall-sized answer;
- with `--baseline CHECKOUT` (another checkout of git-memory, e.g. a worktree of main),
  that checkout's `git memory mcp` on the same repository and queries: before and after.
Sessions alternate (ours, baseline, floor) for `--rounds` rounds so the machine's load
falls on all alike; each figure pools its rounds. The same recalls are also timed
in-process (`Memory.recall`, in a child process per checkout): the search and wrapping
alone. With `--instructions`, each server is also run under `valgrind --tool=cachegrind`
for a session of the same calls and one of none: the difference per call is the server's
instruction count for a warm call, a figure the machine's load does not change (a few
minutes: valgrind runs Python about fifty times slower). Writes the "MCP" section of
docs/benchmarks.md unless `--no-write`.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import re
import statistics
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "bench"))
from common import isolated_env, machine, make_corpus, scratch, update_section  # noqa: E402

FLOOR = ROOT / "bench" / "mcp_floor_server.py"


def build_repo(base: Path, entries: int, env: dict[str, str]) -> Path:
    repo = base / "repo"
    repo.mkdir()
    subprocess.run(["git", "init", "-q"], cwd=repo, env=env, check=True)
    subprocess.run(["git", "commit", "-q", "--allow-empty", "-m", "initial"], cwd=repo, env=env,
                   check=True)
    corpus = base / "corpus.jsonl"
    make_corpus(entries, corpus)
    subprocess.run([sys.executable, "-m", "git_memory", "import", "--format", "jsonl", str(corpus)],
                   cwd=repo, env=env, check=True, capture_output=True)
    return repo


def queries(repo: Path, env: dict[str, str], count: int) -> list[str]:
    """Word pairs from real entries, so most calls find something."""
    listed = subprocess.run([sys.executable, "-m", "git_memory", "list", "--json", "-n", "400"],
                            cwd=repo, env=env, check=True, capture_output=True).stdout
    words = [w.lower() for e in json.loads(listed) for w in re.findall(r"[A-Za-z]{5,}", e["content"])]
    rng = random.Random(14)
    return [" ".join(rng.sample(words, 2)) for _ in range(count)]


def server_cpu(marker: bytes) -> float:
    """CPU seconds (user + system) so far of our child whose command line holds `marker`:
    on a shared machine the wall time of a call is mostly waiting for a core, its CPU
    time is not."""
    tick = os.sysconf("SC_CLK_TCK")
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            stat = Path(f"/proc/{entry}/stat").read_text()
            cmdline = Path(f"/proc/{entry}/cmdline").read_bytes()
        except OSError:
            continue
        fields = stat.rsplit(")", 1)[1].split()
        if int(fields[1]) == os.getpid() and marker in cmdline:
            return (int(fields[11]) + int(fields[12])) / tick
    return float("nan")


@dataclass
class Server:
    """One server to time: how to start it, which tool to call, how to find its CPU."""

    label: str
    args: list[str]
    env: dict[str, str]
    tool: str
    marker: bytes
    startups: list[float] = field(default_factory=list)
    firsts: list[float] = field(default_factory=list)
    warm: list[float] = field(default_factory=list)
    cpus: list[float] = field(default_factory=list)
    hits: int = 0
    calls: int = 0
    sample: dict[str, Any] | None = None  # one structured result, for the canned floor
    instructions: float | None = None  # per warm call, under cachegrind (--instructions)


async def session(server: Server, repo: Path, asks: list[str]) -> None:
    """One session of len(asks) calls; its times are added to `server`'s."""
    from mcp import ClientSession, StdioServerParameters
    from mcp.client.stdio import stdio_client

    params = StdioServerParameters(command=sys.executable, args=server.args, cwd=str(repo),
                                   env=server.env)
    started = time.perf_counter()
    async with stdio_client(params) as (read, write):
        async with ClientSession(read, write) as client:
            await client.initialize()
            server.startups.append(time.perf_counter() - started)
            cpu = 0.0
            for number, query in enumerate(asks):
                if number == 1:
                    cpu = server_cpu(server.marker)  # after the first call, which opens the index
                before = time.perf_counter()
                result = await client.call_tool(server.tool, {"query": query, "limit": 10})
                took = time.perf_counter() - before
                (server.warm if number else server.firsts).append(took)
                if result.is_error:
                    raise RuntimeError(result.content[0].text)
                data = result.structured_content or {}
                server.hits += 1 if data.get("count") else 0
                server.calls += 1
                if server.sample is None and data.get("count") == 10:
                    server.sample = data
            server.cpus.append((server_cpu(server.marker) - cpu) / max(1, len(asks) - 1))


async def instruction_count(server: Server, repo: Path, asks: list[str], log: Path) -> int:
    """Instructions the server process ran (cachegrind's `I refs`) for a session of an
    initialize, one first call (which opens the index) and then one call per ask."""
    from mcp import ClientSession, StdioServerParameters
    from mcp.client.stdio import stdio_client

    params = StdioServerParameters(
        command="valgrind", args=["--tool=cachegrind", "--cache-sim=no",
                                  "--cachegrind-out-file=/dev/null", f"--log-file={log}",
                                  sys.executable, *server.args],
        cwd=str(repo), env=server.env)
    async with stdio_client(params) as (read, write):
        async with ClientSession(read, write) as client:
            await client.initialize()
            for query in ["first call", *asks]:
                await client.call_tool(server.tool, {"query": query, "limit": 10})
    for _ in range(600):  # valgrind writes its summary as the process ends
        found = re.search(r"I\s+refs:\s+([\d,]+)", log.read_text() if log.exists() else "")
        if found:
            return int(found.group(1).replace(",", ""))
        time.sleep(0.1)
    raise RuntimeError(f"no instruction count in {log}")


def instructions(server: Server, repo: Path, asks: list[str], folder: Path) -> float:
    """The server's instructions per warm call: a session of len(asks) calls less one of none."""
    name = re.sub(r"\W+", "-", server.label)
    none = asyncio.run(instruction_count(server, repo, [], folder / f"{name}-0.log"))
    full = asyncio.run(instruction_count(server, repo, asks, folder / f"{name}-n.log"))
    return (full - none) / len(asks)


def in_process(repo: Path, asks: list[str]) -> tuple[list[float], float]:
    """The same recalls through `Memory.recall` in this process: the search and wrapping
    alone, without the protocol, to show where the time goes."""
    from git_memory.commands.mcp_tools import Tools
    from git_memory.store.locate import discover

    memory = Tools(discover(str(repo)))
    memory.recall(asks[0])
    took = []
    cpu = time.process_time()
    for query in asks:
        before = time.perf_counter()
        memory.recall(query, limit=10)
        took.append(time.perf_counter() - before)
    cpu = (time.process_time() - cpu) / len(asks)
    memory.close()
    return took, cpu


def in_process_child(checkout: Path, repo: Path, asks: list[str], env: dict[str, str]
                     ) -> tuple[list[float], float]:
    """`in_process` run by `checkout`'s code, in a child process."""
    child_env = dict(env, PYTHONPATH=str(checkout))
    out = subprocess.run([sys.executable, str(Path(__file__).resolve()), "--in-process",
                          str(repo)], input=json.dumps(asks), text=True, env=child_env,
                         check=True, capture_output=True).stdout
    took, cpu = json.loads(out)
    return took, cpu


def row(server: Server, entries: int, alone: tuple[list[float], float] | None) -> str:
    warm = sorted(server.warm)
    p90 = warm[int(len(warm) * 0.9) - 1]
    inproc = (f"{statistics.median(alone[0]) * 1000:.1f} ms | {alone[1] * 1000:.1f} ms"
              if alone else "- | -")
    hits = f"{server.hits}/{server.calls}" if server.tool == "recall" else "-"
    counted = (f" {server.instructions / 1e6:.1f} M |" if server.instructions is not None
               else "")
    return (f"| {server.label} | {entries:,} | {statistics.median(server.startups) * 1000:.0f} ms "
            f"| {statistics.median(server.firsts) * 1000:.1f} ms "
            f"| {statistics.median(warm) * 1000:.1f} ms | {p90 * 1000:.1f} ms "
            f"| {statistics.mean(server.cpus) * 1000:.1f} ms | {hits} | {inproc} |{counted}")


def report(entries: int, calls: int, rounds: int, rows: list[str], load: str, command: str,
           counted: bool) -> str:
    extra = " server instructions per warm call (cachegrind) |" if counted else ""
    rule = " ---: |" if counted else ""
    return "\n".join([
        "## MCP",
        "",
        f"Measured {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())} by `{command}` "
        f"on {machine()} (shared with other jobs; load average {load} at the end).",
        "Method: one `git memory mcp` process driven by the official `mcp` SDK client over stdio "
        f"(as an agent host runs it); {calls} `recall` tool calls in one session, each two "
        "words taken from the corpus's own entries, `limit` 10; each time is the client's round "
        "trip (JSON-RPC both ways, search, wrapping, the SDK's validation). "
        f"{rounds} session(s) per server, alternating; figures pool them. The floor rows are "
        "`bench/mcp_floor_server.py` driven the same way: an SDK server whose tool does "
        "nothing (`noop`) or answers a recorded recall result of ten entries (`canned`).",
        "",
        "| server | entries | start-up (spawn to initialize) | first call (opens the index) "
        "| median call (warm) | 90th percentile | server CPU per warm call (mean) | calls with hits "
        "| same recalls in-process, median | in-process CPU per call (mean) |" + extra,
        "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |" + rule,
        *rows,
        "",
        "Goal (issue 14): under 10 ms per warm call at 100k entries. The index stays open "
        "between calls; before a call the server compares the files that name the memory "
        "branch's state (its ref, packed-refs, the config files) with their last `stat`, "
        "and reads the state again only when one changed (docs/recall.md \"Speed\").",
        "",
        "Reading: on a shared machine the wall times are mostly waiting for a core; the CPU "
        "time per call is steadier, and the instruction count (with `--instructions`) does not "
        "depend on the load at all. The floor is what any tool costs through the "
        "SDK (both processes' JSON-RPC and pydantic work are in the round trip; only the "
        "server's is in its CPU column). Start-up is mostly the SDK's import (pydantic and "
        "the MCP types), paid once per agent session.",
    ])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--entries", type=int, default=100_000)
    parser.add_argument("--repo", type=Path, help="An existing repository with memory.")
    parser.add_argument("--calls", type=int, default=100)
    parser.add_argument("--rounds", type=int, default=1)
    parser.add_argument("--baseline", type=Path,
                        help="Another git-memory checkout to time in the same run (before).")
    parser.add_argument("--instructions", action="store_true",
                        help="Also count each server's instructions per call under valgrind.")
    parser.add_argument("--no-write", action="store_true")
    parser.add_argument("--in-process", type=Path, help=argparse.SUPPRESS)
    opts = parser.parse_args()
    if opts.in_process:  # the child of in_process_child: queries on stdin, times on stdout
        print(json.dumps(in_process(opts.in_process, json.loads(sys.stdin.read()))))
        return
    with scratch() as tmp:
        base = Path(tmp)
        env = isolated_env(base / "home")
        env["PYTHONPATH"] = str(ROOT) + os.pathsep + env.get("PYTHONPATH", "")
        repo = opts.repo.resolve() if opts.repo else build_repo(base, opts.entries, env)
        count = opts.entries
        if opts.repo:
            stats = subprocess.run([sys.executable, "-m", "git_memory", "recall", "--stats", "--json"],
                                   cwd=repo, env=env, check=True, capture_output=True).stdout
            count = int(json.loads(stats).get("entries", opts.entries))
        asks = queries(repo, env, opts.calls)
        ours = Server("this checkout", ["-m", "git_memory", "mcp"], env, "recall",
                      b"git_memory\0mcp")
        servers = [ours]
        if opts.baseline:
            before = opts.baseline.resolve()
            servers.append(Server(f"baseline ({before.name})", ["-m", "git_memory", "mcp"],
                                  dict(env, PYTHONPATH=str(before)), "recall", b"git_memory\0mcp"))
        canned = base / "canned.json"
        noop = Server("SDK floor: noop tool", [str(FLOOR)], env, "noop", b"mcp_floor_server")
        filled = Server("SDK floor: canned recall answer", [str(FLOOR), str(canned)], env,
                        "canned_recall", b"mcp_floor_server")
        for _ in range(opts.rounds):
            for server in servers:
                asyncio.run(session(server, repo, asks))
            if not canned.exists():
                canned.write_text(json.dumps(ours.sample or {"text": "", "results": []}),
                                  encoding="utf-8")
            for server in (noop, filled):
                asyncio.run(session(server, repo, asks))
        alone = {ours.label: in_process_child(ROOT, repo, asks, env)}
        if opts.baseline:
            alone[servers[1].label] = in_process_child(opts.baseline.resolve(), repo, asks, env)
        load = " ".join(Path("/proc/loadavg").read_text().split()[:3])
        if opts.instructions:
            for server in [*servers, noop, filled]:
                server.instructions = instructions(server, repo, asks, base)
    rows = [row(s, count, alone.get(s.label)) for s in [*servers, noop, filled]]
    command = "python bench/bench_mcp.py " + " ".join(
        a if not os.path.isabs(a) else Path(a).name.upper() for a in sys.argv[1:])
    body = report(count, opts.calls, opts.rounds, rows, load, command, opts.instructions)
    print(body)
    if not opts.no_write:
        update_section("mcp", body)


if __name__ == "__main__":
    main()

"""The warm embedding process (embed.daemon, embed.client) with the real all-MiniLM-L6-v2:
a recall that loads the model itself starts it, the next recall gets its answer without
loading numpy, the answers are the in-process ones, one daemon per repository, a private
socket, gone when idle or when the model changes, and a dead daemon never breaks recall."""

from __future__ import annotations

import json
import os
import signal
import stat
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from arch_rules import fenced
from meaning_support import ENTRIES, embed_all as _embed_all

from git_memory import Memory
from git_memory.commands.mcp_tools import Tools
from git_memory.embed import client, daemon, registry
from git_memory.index import vectors
from git_memory.index.db import open_index
from git_memory.store.locate import GitDirs, discover

LOAD_WAIT = 180.0  # a model load takes ~2 s on a quiet machine, far more on a loaded one


def wait_for(check: Callable[[], object], timeout: float = LOAD_WAIT, step: float = 0.1) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if check():
            return True
        time.sleep(step)
    return False


def ping(dirs: GitDirs) -> dict[str, Any] | None:
    return client.ask(dirs, {"ping": True})


def gone(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    # A zombie child of this process (Popen) counts as gone once it exited.
    try:
        return os.waitpid(pid, os.WNOHANG)[0] == pid
    except ChildProcessError:
        return False


@pytest.fixture
def repo(git_repo: Path) -> Iterator[Path]:
    """The lab's four entries, embedded; any daemon of this repository stopped afterwards."""
    memory = Memory(git_repo)
    for text in ENTRIES:
        memory.add(text)
    memory.close()
    _embed_all(git_repo)
    yield git_repo
    dirs = discover(git_repo)
    client.ask(dirs, {"stop": True})
    wait_for(lambda: not client.running(dirs), timeout=30)


def start_daemon(repo: Path, idle: int | None = None) -> tuple[GitDirs, int]:
    if idle is not None:
        subprocess.run(["git", "config", "memory.embed.idleTimeout", str(idle)], cwd=repo, check=True)
    dirs = discover(repo)
    pid = client.start(dirs)
    assert pid is not None
    assert wait_for(lambda: ping(dirs) is not None), (dirs.memory_dir / client.LOG_NAME).read_text()
    return dirs, pid


def test_a_cold_recall_starts_the_daemon_and_the_next_recall_loads_no_numpy(repo: Path, gm) -> None:
    dirs = discover(repo)
    assert not client.running(dirs)
    first = gm("recall", "out of storage space", cwd=repo)
    assert b"disk filled with logs" in first.stdout, first.stderr
    assert wait_for(lambda: ping(dirs) is not None), (dirs.memory_dir / client.LOG_NAME).read_text()
    result, problems = fenced(
        "from git_memory.entry import main\n"
        "rc = main(['recall', '--json', '--explain', 'why did the scheduled task die'])", repo)
    assert result.returncode == 0, result.stderr
    # No numpy, no tokenizers: the daemon embedded the query and searched the vectors.
    # (typing and dataclasses come with embed/ itself, which the keyword-only path skips.)
    heavy = {p for p in problems if p.startswith("heavy:")} - {"heavy: typing", "heavy: dataclasses"}
    assert heavy == set(), heavy
    hits = json.loads(result.stdout)
    assert "disk filled with logs" in hits[0]["content"]
    assert hits[0]["explain"]["found_by"] == ["meaning"]
    assert hits[0]["explain"]["model"] == ping(dirs)["model"]


def test_the_daemon_answers_what_the_model_in_process_answers(repo: Path) -> None:
    dirs, _ = start_daemon(repo)
    embedder = registry.configured(dirs)
    assert embedder is not None
    # Vectors of no entry, enough that the daemon's shortlist (200) leaves some out: their
    # cosines come from the stored float16 rows, computed without numpy.
    noise = np.random.default_rng(31).normal(size=(300, embedder.dim)).astype(np.float32)
    noise /= np.linalg.norm(noise, axis=1, keepdims=True)
    store = vectors.open_store(dirs)
    vectors.put(store, embedder.model_id, [(f"noise{i}", vectors.as_blob(v)) for i, v in enumerate(noise)])
    store.close()
    index = open_index(dirs)
    try:
        for query in ("why did the scheduled task die", "oauth redirect", "release on friday?"):
            local = vectors.nearest(index, embedder.model_id, embedder.embed([query])[0], 3)
            found = client.nearest(index, registry.choice(dirs).folder, query, 3,
                                   None, None, False, None)
            assert found is not None
            model, remote = found
            assert model == embedder.model_id and remote.coverage == local.coverage
            assert [r["id"] for r, _ in remote.rows] == [r["id"] for r, _ in local.rows]
            for (_, a), (_, b) in zip(remote.rows, local.rows):
                assert abs(a - b) < 1e-5
            left_out = [f"noise{i}" for i in range(300) if f"noise{i}" not in remote._by_hash]
            assert left_out  # the stored-vector path is exercised
            for digest in left_out[:20]:
                assert abs(remote.cosine(digest) - local.cosine(digest)) < 1e-5
            assert remote.cosine("no such hash") is None
    finally:
        index.close()
    texts = ["the disk filled with logs", "pytest fixtures"]
    answer = client.ask(dirs, {"texts": texts})
    assert answer is not None
    assert np.abs(np.array(answer["vectors"]) - embedder.embed(texts)).max() < 1e-6


def test_the_socket_is_private_and_one_daemon_serves_a_repository(repo: Path) -> None:
    dirs, pid = start_daemon(repo)
    path = client.socket_path(dirs)
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert client.running(dirs) and client.start(dirs) is None  # a recall starts no second one
    # A second daemon started anyway (two recalls racing) finds the lock held and leaves.
    began = time.monotonic()
    second = subprocess.run([sys.executable, "-m", "git_memory.embed.daemon", str(dirs.git_dir)],
                            cwd=repo, capture_output=True, text=True, timeout=120)
    assert second.returncode == 0 and second.stderr == ""  # it never loaded the model
    assert time.monotonic() - began < 60
    assert ping(dirs)["pid"] == pid
    assert client.ask(dirs, {"query": "x", "k": 0}) is None  # a bad request is refused
    assert client.ask(dirs, {"nonsense": True}) is None
    assert ping(dirs)["pid"] == pid  # and the daemon serves on


def test_an_idle_daemon_leaves_and_takes_its_socket(repo: Path) -> None:
    dirs, pid = start_daemon(repo, idle=2)
    path = client.socket_path(dirs)
    assert wait_for(lambda: gone(pid), timeout=60)
    assert not path.exists() and not client.running(dirs)
    log = (dirs.memory_dir / client.LOG_NAME).read_text()
    assert "idle timeout 2 s" in log


def test_another_model_makes_the_daemon_step_down(repo: Path) -> None:
    dirs, pid = start_daemon(repo)
    found = registry.choice(dirs)
    assert found is not None
    index = open_index(dirs)
    try:
        # The repository now names another folder: the daemon's vectors are another model's.
        assert client.nearest(index, found.folder.parent / "other", "out of storage space", 5,
                              None, None, False, None) is None
    finally:
        index.close()
    assert wait_for(lambda: gone(pid), timeout=60)
    assert not client.socket_path(dirs).exists()


def test_a_killed_daemon_leaves_a_stale_socket_that_recall_survives(repo: Path, gm) -> None:
    dirs, pid = start_daemon(repo)
    os.kill(pid, signal.SIGKILL)
    assert wait_for(lambda: gone(pid), timeout=30)
    assert client.socket_path(dirs).exists() and not client.running(dirs)
    result = gm("recall", "out of storage space", cwd=repo)
    assert result.returncode == 0 and b"disk filled with logs" in result.stdout, result.stderr
    # That recall loaded the model itself and started a new daemon, which took the socket over.
    assert wait_for(lambda: ping(dirs) is not None)
    assert ping(dirs)["pid"] != pid


def test_a_long_memory_path_gets_a_private_socket_folder(tmp_path: Path) -> None:
    deep = tmp_path.joinpath(*["a-rather-long-folder-name"] * 5, "repo")
    subprocess.run(["git", "init", "-q", str(deep)], check=True)
    dirs = discover(deep)
    path = client.socket_path(dirs)
    assert path.parent != dirs.memory_dir and len(os.fsencode(path)) <= 100
    assert path == client.socket_path(discover(deep))  # the same name for the same repository
    other = tmp_path.joinpath(*["a-rather-long-folder-name"] * 5, "other")
    subprocess.run(["git", "init", "-q", str(other)], check=True)
    assert client.socket_path(discover(other)) != path
    server = daemon.bind(path)
    try:
        assert client.private_dir_ok(path.parent)
        assert stat.S_IMODE(path.stat().st_mode) == 0o600
    finally:
        server.close()
        path.unlink()
    os.chmod(path.parent, 0o755)  # a folder others can enter is not trusted
    try:
        assert not client.private_dir_ok(path.parent)
    finally:
        os.chmod(path.parent, 0o700)


MCP_CALLS = """
import json, time
from git_memory.commands.mcp_tools import Tools
from git_memory.embed import registry
from git_memory.store.locate import discover
tools = Tools(discover('.'))
cpu, loaded = [], []
for query in ("out of storage space", "why did the scheduled task die", "storage full?"):
    began = time.process_time()
    top = tools.recall(query)["results"][0]["content"]
    cpu.append(time.process_time() - began)
    loaded.append(id(registry._LOADED[next(iter(registry._LOADED))]))
    assert "disk filled with logs" in top, top
print(json.dumps({"cpu": cpu, "loaded": loaded}))
"""


def test_the_mcp_tools_load_the_model_once(repo: Path) -> None:
    subprocess.run(["git", "config", "memory.embed.daemon", "false"], cwd=repo, check=True)
    # A fresh server process: its first call loads the model, the next ones reuse it.
    result = subprocess.run([sys.executable, "-c", MCP_CALLS], cwd=repo, capture_output=True,
                            text=True, timeout=600)
    assert result.returncode == 0, result.stderr
    data = json.loads(result.stdout)
    assert len(set(data["loaded"])) == 1  # one embedder object for the server's life
    # CPU time, not wall time (the machine is shared): a load costs ~0.5-1.5 s of it, a warm
    # call tens of milliseconds.
    assert max(data["cpu"][1:]) < data["cpu"][0] / 4, data["cpu"]
    assert not client.running(discover(repo))  # memory.embed.daemon false: none started

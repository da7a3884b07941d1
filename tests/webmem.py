"""A memory for the web view's tests: the 217 Lavra entries, `extra` generated entries (types,
tags, anchored paths), and a curation history made with the real commands (a supersede
chain, a merge, a contradiction, a redaction, entries waiting for review).

The generated entries and the ones waiting for review arrive in one `git memory import` of
an export file (one process instead of hundreds on a shared machine).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

from conftest import DATA, err, out

from git_memory.model import ENTRY_TYPES, new_id

LAVRA = DATA / "lavra-knowledge" / "lavra.knowledge.jsonl"
REDACTED_TEXT = "the zanzibar-quokka handshake is retried nine times"
PERSON = "Test User <test@example.com>"
TOPICS = ("cache", "index", "deploy", "auth", "tests", "docs", "web", "sync", "hooks", "build")


@dataclass
class Memory:
    chain: list[str] = field(default_factory=list)  # oldest first: a -> b -> c supersedes
    merged: str = ""  # the entry two others were merged into
    merge_sources: list[str] = field(default_factory=list)
    redacted: str = ""
    waiting: list[str] = field(default_factory=list)
    contradicted: str = ""


def _generated(count: int) -> list[dict]:
    lines = []
    for n in range(count):
        topic = TOPICS[n % len(TOPICS)]
        kind = ENTRY_TYPES[n % 7]  # not handoff
        lines.append({
            "id": new_id(1_760_000_000_000 + n * 3_600_000), "kind": "entry", "type": kind,
            "content": f"{topic} note {n}: the {topic} step number {n} keeps its own lock file",
            "tags": [topic, f"area{n % 23}"], "created": _day(n), "author": PERSON,
            "source": "manual", "origin": {"paths": [f"src/{topic}/mod{n % 40}.py"]},
            "key": None, "fields": {}})
    return lines


def _day(n: int) -> str:
    import datetime as dt

    when = dt.datetime(2025, 10, 1) + dt.timedelta(hours=n * 9)
    return when.strftime("%Y-%m-%dT%H:%M:%SZ")


def _waiting() -> tuple[list[dict], list[str]]:
    texts = ["the staging deploy needs the vault unsealed first",
             "retry the flaky sync test once before failing the build"]
    lines, ids = [], []
    for n, text in enumerate(texts):
        entry_id = new_id(1_770_000_000_000 + n * 1000)
        ids.append(entry_id)
        lines.append({"id": entry_id, "kind": "entry", "type": "learned", "content": text,
                      "tags": ["review"], "created": f"2026-02-0{n + 1}T00:00:00Z",
                      "author": PERSON, "source": "distill", "origin": {"session": f"s-{n}"},
                      "key": None, "fields": {"status": "needs_review"}})
    return lines, ids


def _add(gm: Callable, text: str, *more: str) -> str:
    result = gm("add", text, *more)
    assert result.returncode == 0, err(result)
    return out(result).strip()


def build(gm: Callable, tmp: Path, extra: int = 1000) -> Memory:
    """Fill the repository in the current directory; what the tests look for."""
    memory = Memory()
    assert gm("import", "--format", "lavra", str(LAVRA)).returncode == 0
    waiting_lines, memory.waiting = _waiting()
    lines = _generated(extra) + waiting_lines
    header = {"git_memory_export": 1, "records": len(lines), "ref": "refs/heads/git-memory"}
    export = tmp / "generated.jsonl"
    export.write_text("".join(json.dumps(x) + "\n" for x in [header, *lines]), encoding="utf-8")
    result = gm("import", str(export))
    assert result.returncode == 0, err(result)
    memory.chain = [_add(gm, "LEARNED: the parser cache keeps ten files"),
                    _add(gm, "LEARNED: the parser cache keeps twenty files"),
                    _add(gm, "LEARNED: the parser cache keeps twenty files per worker")]
    for old, new in zip(memory.chain, memory.chain[1:]):
        assert gm("supersede", old, new, "--reason", "measured again").returncode == 0
    memory.merge_sources = [_add(gm, "DECISION: releases are tagged from main"),
                            _add(gm, "DECISION: only main gets release tags")]
    merged = gm("merge", *memory.merge_sources, "--content",
                "DECISION: release tags are made from main only", "--reason", "one decision")
    assert merged.returncode == 0, err(merged)
    memory.merged = out(merged).split()[0]
    memory.contradicted = _add(gm, "FACT: the cache expires after ten minutes")
    assert gm("contradict", memory.contradicted, "--reason", "measured five").returncode == 0
    memory.redacted = _add(gm, f"LEARNED: {REDACTED_TEXT}")
    assert gm("redact", memory.redacted, "--reason", "not ours to keep").returncode == 0
    return memory


def isolated_env(home: Path) -> dict[str, str]:
    """The environment conftest's `isolated_git` makes, for processes a module-wide fixture
    (or scripts/screenshots.py) starts outside any one test."""
    import os
    import sys

    home.mkdir(parents=True, exist_ok=True)
    (home / "templates").mkdir(exist_ok=True)
    config = home / "gitconfig"
    config.write_text("[user]\n\tname = Test User\n\temail = test@example.com\n"
                      "[init]\n\tdefaultBranch = main\n", encoding="utf-8")
    env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
    env.update({"HOME": str(home), "XDG_CONFIG_HOME": str(home / ".config"),
                "GIT_CONFIG_GLOBAL": str(config), "GIT_CONFIG_NOSYSTEM": "1",
                "GIT_TEMPLATE_DIR": str(home / "templates"), "LC_ALL": "C.UTF-8",
                "PATH": os.path.dirname(sys.executable) + os.pathsep + env.get("PATH", "")})
    for role in ("AUTHOR", "COMMITTER"):
        env[f"GIT_{role}_NAME"] = "Test User"
        env[f"GIT_{role}_EMAIL"] = "test@example.com"
    return env


def runner(repo: Path, env: dict[str, str]) -> Callable:
    """A `gm` like conftest's, for `repo` with `env`."""
    import subprocess

    def run(*args: str) -> subprocess.CompletedProcess:
        return subprocess.run(["git", "memory", *args], cwd=repo, env=env, capture_output=True)

    return run


def serve(repo: Path, env: dict[str, str], *more: str) -> tuple[object, str]:
    """`git memory serve --no-open` as a real process; (the process, the address it printed)."""
    import re
    import subprocess

    proc = subprocess.Popen(["git", "memory", "serve", "--no-open", *more], cwd=repo, env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    assert proc.stdout is not None
    line = proc.stdout.readline()
    match = re.search(r"http://127\.0\.0\.1:\d+/\?token=[\w-]+", line)
    if not match:
        proc.kill()
        raise AssertionError(f"serve printed {line!r}: {proc.stderr.read() if proc.stderr else ''}")
    return proc, match.group(0)

#!/usr/bin/env python3
"""Benchmark the agent hooks: `context --format claude` (SessionStart) and `session hook` (Stop).

    python bench/bench_context.py [--runs N] [--no-write]

For a memory of 200 and of 10,000 entries (built with ../shared/tools/make_corpus.py and
`git memory import`), in a repository with a changed file, it times whole processes the
way Claude Code starts them: the median wall time of `git memory context --format claude`
after a warm-up, against `python -c pass` measured in the same run (ratio). It also times
`git memory session hook` on a real transcript (first capture, then the idempotent repeat).
Figures go to the "Agents" section of docs/benchmarks.md (other sections are kept).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "bench"))
from common import isolated_env, shared_dir  # noqa: E402
from common import run as timed  # noqa: E402
DOC = ROOT / "docs" / "benchmarks.md"
SECTION = "Agents"


def median_ms(cmd: list[str], cwd: Path, env: dict[str, str], runs: int,
              stdin: bytes | None = None) -> float:
    for _ in range(2):
        timed(cmd, cwd, env, stdin)
    return 1000 * statistics.median(timed(cmd, cwd, env, stdin) for _ in range(runs))


def make_repo(base: Path, entries: int, env: dict[str, str]) -> Path:
    repo = base / f"repo-{entries}"
    repo.mkdir()

    def run(*args: str) -> None:
        subprocess.run(args, cwd=repo, env=env, check=True, capture_output=True)

    run("git", "init", "-q")
    (repo / "src" / "auth").mkdir(parents=True)
    (repo / "src" / "auth" / "callback.py").write_text("x = 1\n")
    run("git", "add", ".")
    run("git", "commit", "-qm", "Add the OAuth callback")
    corpus = base / f"corpus-{entries}.jsonl"
    run(sys.executable, str(shared_dir() / "tools" / "make_corpus.py"), str(entries), str(corpus))
    run("git", "memory", "import", str(corpus))
    (repo / "src" / "auth" / "callback.py").write_text("x = 2\n")
    return repo


def transcript_copy(base: Path) -> Path:
    source = (shared_dir() / "data" / "claude-code-transcripts" /
              "-Users-dain-workspace-coderabbit-review-helper" /
              "cb2e607c-c758-415a-8b45-c49e4631906a.jsonl")
    records = [json.loads(line) for line in source.read_text(encoding="utf-8").splitlines()]
    last = [r for r in records if r.get("type") == "assistant"
            and any(b.get("type") == "text" for b in r["message"]["content"])][-1]
    block = next(b for b in last["message"]["content"] if b.get("type") == "text")
    block["text"] += ("\n\nLEARNED: uv tool install needs --reinstall to pick up changes\n"
                      "DECISION: document the reinstall command in the README")
    target = base / source.name
    target.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    return target


def measure(runs: int) -> dict[str, float | int]:
    figures: dict[str, float | int] = {}
    with tempfile.TemporaryDirectory(prefix="gm-bench-ctx-") as tmp:
        base = Path(tmp)
        (base / "home").mkdir()
        env = isolated_env(base / "home")
        figures["python"] = median_ms([sys.executable, "-c", "pass"], base, env, runs)
        figures["version"] = median_ms(["git", "memory", "--version"], base, env, runs)
        for entries in (200, 10_000):
            repo = make_repo(base, entries, env)
            cmd = ["git", "memory", "context", "--format", "claude"]
            figures[f"context_{entries}"] = median_ms(cmd, repo, env, runs)
            out = subprocess.run(cmd, cwd=repo, env=env, capture_output=True).stdout
            context = json.loads(out)["hookSpecificOutput"]["additionalContext"]
            figures[f"chars_{entries}"] = len(context)
            if entries == 10_000:
                path = transcript_copy(base)
                payload = json.dumps({"session_id": "bench", "transcript_path": str(path),
                                      "cwd": str(repo), "hook_event_name": "Stop"}).encode()
                hook = ["git", "memory", "session", "hook"]
                figures["hook_first"] = 1000 * timed(hook, repo, env, payload)
                figures["hook_repeat"] = median_ms(hook, repo, env, runs, payload)
    return figures


def render(f: dict[str, float | int], runs: int) -> str:
    py = float(f["python"])
    rows = [
        f"| `git memory --version` (start-up floor of any command) | {f['version']:.0f} ms | "
        f"{f['version'] / py:.1f}x | |",
        f"| `context --format claude`, 200 entries | {f['context_200']:.0f} ms | "
        f"{f['context_200'] / py:.1f}x | {f['chars_200']} chars |",
        f"| `context --format claude`, 10,000 entries | {f['context_10000']:.0f} ms | "
        f"{f['context_10000'] / py:.1f}x | {f['chars_10000']} chars |",
        f"| `session hook`, first capture (292-line transcript, 10k memory) | "
        f"{f['hook_first']:.0f} ms | {f['hook_first'] / py:.1f}x | 2 markers captured, archive written |",
        f"| `session hook`, same transcript again (idempotent) | {f['hook_repeat']:.0f} ms | "
        f"{f['hook_repeat'] / py:.1f}x | nothing written |",
    ]
    cores = os.cpu_count()
    return f"""## {SECTION}

Measured by `python bench/bench_context.py` (whole processes, as Claude Code starts them;
median of {runs} runs after 2 warm-up runs; baseline `python -c pass` = {py:.0f} ms in the
same run). Machine: {cores} cores, 24 GiB, shared with other jobs. Repositories hold a
corpus from `make_corpus.py` and one changed file; the index is warm. Claude Code's
default hook timeout is 60 s; `agent install` gives SessionStart 15 s and Stop /
SessionEnd 60 s.

| operation | median | vs `python -c pass` | note |
| --- | --- | --- | --- |
{chr(10).join(rows)}

Reading: `context` costs {f['context_200'] - f['version']:.0f} ms (200 entries) and
{f['context_10000'] - f['version']:.0f} ms (10,000 entries) above the start-up floor every
`git memory` command pays ({f['context_10000'] / f['context_200']:.2f}x from 200 to 10,000
entries; the machine is shared, so expect tens of ms of noise), far inside the 15 s
SessionStart timeout. The session hook parses the whole transcript on every Stop
(idempotent by entry keys); when every marker is already known (checked in the index by key),
it imports neither pygit2 nor the writer.
"""


def write_section(text: str) -> None:
    current = DOC.read_text(encoding="utf-8") if DOC.exists() else "# Benchmarks\n"
    pattern = re.compile(rf"^## {SECTION}\n.*?(?=^## |\Z)", re.DOTALL | re.MULTILINE)
    if pattern.search(current):
        updated = pattern.sub(text + "\n", current, count=1)
    else:
        updated = current.rstrip("\n") + "\n\n" + text
    DOC.write_text(updated.rstrip("\n") + "\n", encoding="utf-8")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=15)
    parser.add_argument("--no-write", action="store_true")
    args = parser.parse_args()
    figures = measure(args.runs)
    text = render(figures, args.runs)
    print(text)
    if not args.no_write:
        write_section(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())

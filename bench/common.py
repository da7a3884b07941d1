"""Shared helpers for the benchmark scripts: isolated git, timing, and the report file.

Benchmarks measure whole processes the way a user meets them, take the median of
several runs after a warm-up, and report each figure beside a baseline measured in
the same run. `update_section` rewrites one named section of docs/benchmarks.md.
"""

from __future__ import annotations

import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Callable

ROOT = Path(__file__).resolve().parents[1]
REPORT = ROOT / "docs" / "benchmarks.md"
BIN = os.path.dirname(sys.executable)


def shared_dir() -> Path:
    """`../shared` beside the repository (a checkout deeper down looks further up);
    `GIT_MEMORY_SHARED` overrides."""
    env = os.environ.get("GIT_MEMORY_SHARED")
    if env:
        return Path(env)
    for parent in ROOT.parents:
        if (parent / "shared" / "tools" / "make_corpus.py").is_file():
            return parent / "shared"
    raise SystemExit("cannot find ../shared next to the repository; set GIT_MEMORY_SHARED")


def isolated_env(home: Path) -> dict[str, str]:
    """An environment isolated from the user's git config, with our venv first on PATH."""
    home.mkdir(parents=True, exist_ok=True)
    config = home / "gitconfig"
    config.write_text("[user]\n\tname = Bench\n\temail = bench@example.com\n"
                      "[init]\n\tdefaultBranch = main\n[advice]\n\tdetachedHead = false\n",
                      encoding="utf-8")
    (home / "templates").mkdir(exist_ok=True)
    # A user's Python caches bytecode; this machine sets PYTHONDONTWRITEBYTECODE, which
    # would make every run compile every module again, so the benchmark drops it.
    env = {k: v for k, v in os.environ.items()
           if not k.startswith("GIT_") and k != "PYTHONDONTWRITEBYTECODE"}
    env.update(
        HOME=str(home), GIT_CONFIG_GLOBAL=str(config), GIT_CONFIG_NOSYSTEM="1",
        GIT_TEMPLATE_DIR=str(home / "templates"), LC_ALL="C.UTF-8",
        PATH=BIN + os.pathsep + env.get("PATH", ""),
    )
    return env


def run(cmd: list[str], cwd: Path, env: dict[str, str], stdin: bytes | None = None) -> float:
    """Wall time of one process, in seconds; raise if it fails."""
    start = time.perf_counter()
    result = subprocess.run(cmd, cwd=cwd, env=env, input=stdin, capture_output=True)
    elapsed = time.perf_counter() - start
    if result.returncode != 0:
        raise RuntimeError(f"{cmd} failed: {result.stderr.decode()[:500]}")
    return elapsed


def median_ms(fn: Callable[[], float], runs: int = 7, warmup: int = 1) -> float:
    for _ in range(warmup):
        fn()
    return statistics.median(fn() for _ in range(runs)) * 1000


def machine() -> str:
    mem = ""
    try:
        with open("/proc/meminfo") as handle:
            kib = int(handle.readline().split()[1])
            mem = f", {kib / 1024 / 1024:.0f} GiB"
    except OSError:
        pass
    git = subprocess.run(["git", "--version"], capture_output=True, text=True).stdout.strip()
    return (f"{os.cpu_count()} cores{mem}, {platform.system()} {platform.machine()}, "
            f"Python {platform.python_version()}, {git}")


def make_corpus(n: int, out: Path, sqlite: Path | None = None) -> str:
    cmd = [sys.executable, str(shared_dir() / "tools" / "make_corpus.py"), str(n), str(out)]
    if sqlite is not None:
        cmd += ["--sqlite", str(sqlite)]
    return subprocess.run(cmd, check=True, capture_output=True, text=True).stdout


def scratch() -> tempfile.TemporaryDirectory[str]:
    return tempfile.TemporaryDirectory(prefix="gm-bench-")


def update_section(name: str, body: str) -> None:
    """Replace the text between the section's markers (or append the section)."""
    start, end = f"<!-- bench:{name} -->", f"<!-- /bench:{name} -->"
    text = REPORT.read_text(encoding="utf-8") if REPORT.exists() else "# Benchmarks\n"
    block = f"{start}\n{body.rstrip()}\n{end}"
    if start in text and end in text:
        before, rest = text.split(start, 1)
        text = before + block + rest.split(end, 1)[1]
    else:
        text = text.rstrip() + "\n\n" + block + "\n"
    REPORT.write_text(text, encoding="utf-8")

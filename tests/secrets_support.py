"""The secret the wiring tests put in every field and on every path, and where to look for it.

PATH_SECRET is ONE token, built at run time from harmless pieces so the repository never
holds it whole. It is a Linear API key: a family the scanner before issue #11 did not know
(bench/old_secrets.py passes it), so every path test that refuses or redacts it shows that
path uses the new scanner. It must stay a valid git ref name, since one test names a branch
after it.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

PATH_SECRET = "lin_" + "api_" + "Rq7" + "vK2" * 11 + "x9Zw"
PATH_RULE = "linear-api-key"


def objects_holding(repo: Path, value: str) -> int:
    """How many git objects of `repo` (every one, loose or packed, reachable or not)
    hold `value`."""
    result = subprocess.run(
        ["git", "cat-file", "--batch-all-objects", "--batch"], cwd=repo, capture_output=True,
        check=True,
    )
    return result.stdout.count(value.encode("utf-8"))


def local_files_holding(repo: Path, value: str) -> list[str]:
    """Files under the git-memory dir (audit log, index, hook and worker logs, distill
    queue) whose bytes hold `value`."""
    common = subprocess.run(["git", "rev-parse", "--git-common-dir"], cwd=repo,
                            capture_output=True, text=True, check=True).stdout.strip()
    root = (repo / common / "git-memory").resolve()
    if not root.exists():
        return []
    needle = value.encode("utf-8")
    return [str(p.relative_to(root)) for p in root.rglob("*")
            if p.is_file() and needle in p.read_bytes()]


def assert_nowhere(repo: Path, value: str, objects: bool = True) -> None:
    """No stored object (when `objects`), index row, audit line or log of ours holds `value`."""
    if objects:
        assert objects_holding(repo, value) == 0
    assert local_files_holding(repo, value) == []

"""The secret the wiring tests put in every field and on every path, and where to look for it.

PATH_SECRET is ONE token, built at run time from harmless pieces so the repository never
holds it whole. Until the secrets-scanner branch lands it must be a family today's rules
catch (a GitLab personal access token; the hook and capture tests already use AWS and
GitHub ones). After that branch is merged, the coordinator swaps it for a family only the
new rules cover (a generic `password = "..."` assignment, a Datadog key ...): every path
test then shows that path uses the new scanner. It must stay a valid git ref name, since
one test names a branch after it.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

PATH_SECRET = "gl" + "pat-" + "Rq7" + "vK2" * 6 + "x9Zw"
PATH_RULE = "gitlab-token"


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

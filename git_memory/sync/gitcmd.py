"""The network half of sync: `git fetch` and `git push` run as the user's own `git`, so
credentials, SSH config and URL rewrites behave as they do for code."""

from __future__ import annotations

import subprocess
from dataclasses import dataclass

from git_memory.errors import GitMemoryError
from git_memory.store import gitrun
from git_memory.store.locate import GitDirs

# Set while sync runs its own `git push`, so the pre-push hook it triggers does
# not start another sync (the secret check in that hook still runs).
SYNC_ENV = "GIT_MEMORY_SYNC"

# Push outcomes that mean "someone else updated the branch first": fetch, merge, retry.
# The last two come from the remote when two pushes race for the same ref lock.
_MOVED = ("fetch first", "non-fast-forward", "stale info", "failed to update ref", "failed to lock")


class SyncFailed(GitMemoryError):
    """Fetching or pushing the memory branch failed; the local memory is unchanged."""


class SessionsNotSynced(SyncFailed):
    """The memory branch went through, the session archive did not (memory.shareSessions)."""


class RemoteMoved(Exception):
    """The remote memory branch moved since we fetched it (internal: we retry)."""


@dataclass(frozen=True)
class Remote:
    """A configured remote and where its copy of the memory branch lives."""

    name: str
    ref: str  # the memory branch's name on the remote (same as ours)
    tracking: str  # our remote-tracking copy of it


def tracking_ref(remote: str, ref: str) -> str:
    """refs/heads/git-memory -> refs/remotes/REMOTE/git-memory."""
    short = ref.removeprefix("refs/heads/") if ref.startswith("refs/heads/") else ref[len("refs/"):]
    return f"refs/remotes/{remote}/{short}"


# git's messages in the C locale: the few we recognise ("couldn't find remote ref") must
# not depend on the user's language.
_ENV = {"LC_ALL": "C", "LANGUAGE": "C", SYNC_ENV: "1"}


def run_git(dirs: GitDirs, *args: str) -> subprocess.CompletedProcess[str]:
    """`git --git-dir=... ARGS` (stdin closed: prompts go to the terminal, as git does);
    never raises on an exit code."""
    try:
        done = gitrun.run(list(args), git_dir=dirs.git_dir, cwd=dirs.work_tree or dirs.git_dir,
                          env=_ENV, stdin_null=True)
    except gitrun.GitUnavailable as exc:
        raise SyncFailed(str(exc)) from None
    return subprocess.CompletedProcess(done.args, done.returncode, gitrun.text(done.stdout),
                                       gitrun.text(done.stderr))


def reason(stderr: str) -> str:
    """The one line of git's stderr that says what went wrong."""
    lines = [
        ln.strip() for ln in stderr.splitlines()
        if ln.strip() and not ln.startswith(("hint:", "To ", " "))
        and "failed to push some refs" not in ln
    ]
    for prefix in ("fatal:", "error:"):
        for line in lines:
            if line.startswith(prefix):
                return line[len(prefix) :].strip()
    remote = [ln[len("remote:") :].strip() for ln in lines if ln.startswith("remote:")]
    remote = [ln for ln in remote if ln]
    if remote:
        return remote[0]
    return lines[0] if lines else "git gave no reason"


def fetch(dirs: GitDirs, remote: Remote) -> bool:
    """Update the remote-tracking copy; False when the remote has no memory branch."""
    result = run_git(
        dirs, "fetch", "--no-tags", "--quiet", remote.name, f"+{remote.ref}:{remote.tracking}"
    )
    if result.returncode == 0:
        return True
    if "couldn't find remote ref" in result.stderr:
        return False
    raise SyncFailed(f"cannot fetch from {remote.name}: {reason(result.stderr)}")


def push(dirs: GitDirs, remote: Remote, sha: str, lease: str | None = None) -> None:
    """Push `sha` to the remote memory branch without force: RemoteMoved when the remote
    gained commits we lack, SyncFailed for anything else. `lease` only when `sha` is the
    remote's history rewritten for a purge: it then replaces the branch if, and only if,
    the branch still points at `lease`."""
    force = [f"--force-with-lease={remote.ref}:{lease}"] if lease else []
    result = run_git(
        dirs, "push", "--porcelain", "--quiet", *force, remote.name, f"{sha}:{remote.ref}"
    )
    if result.returncode == 0:
        return
    if lease and "stale info" not in result.stdout:
        raise SyncFailed(
            f"{remote.name} refused the rewritten memory branch (a purge must replace its"
            f" history): {reason(result.stderr)}; the local memory is purged, the remote not yet"
        )
    for line in result.stdout.splitlines():
        parts = line.split("\t")
        if len(parts) < 3 or parts[0] != "!":
            continue
        summary = parts[2]
        if any(why in summary for why in _MOVED):
            raise RemoteMoved(summary)
        detail = summary.replace("[remote rejected]", "").replace("[rejected]", "").strip()
        extra = reason(result.stderr) if "remote:" in result.stderr else ""
        tail = f": {extra}" if extra and extra not in detail else ""
        raise SyncFailed(f"{remote.name} refused the memory push {detail}{tail}".rstrip())
    raise SyncFailed(f"cannot push to {remote.name}: {reason(result.stderr)}")

"""Is this process running inside a git hook? Curate --apply must never. Our shims export
GIT_MEMORY_HOOK; other hooks do not, so the process tree is searched for a hook script
(`.../hooks/<name>` in a parent's command line): Linux /proc only."""

from __future__ import annotations

import os
from pathlib import Path, PurePath

GIT_HOOKS = frozenset(
    "applypatch-msg pre-applypatch post-applypatch pre-commit pre-merge-commit"
    " prepare-commit-msg commit-msg post-commit pre-rebase post-checkout post-merge"
    " pre-push pre-receive update proc-receive post-receive post-update"
    " reference-transaction push-to-checkout pre-auto-gc post-rewrite sendemail-validate"
    " fsmonitor-watchman p4-changelist p4-prepare-changelist p4-post-changelist"
    " p4-pre-submit post-index-change".split()
)
MAX_DEPTH = 8


def _parent(pid: int) -> int:
    stat = Path(f"/proc/{pid}/stat").read_text()
    return int(stat.rsplit(")", 1)[1].split()[1])


def _hook_in(cmdline: bytes) -> str | None:
    for raw in cmdline.split(b"\0"):
        path = PurePath(raw.decode("utf-8", "replace"))
        # .git/hooks, or a core.hooksPath folder such as .githooks
        if "hooks" in path.parent.name and path.name in GIT_HOOKS:
            return path.name
    return None


def running_hook(env: dict[str, str] | None = None) -> str | None:
    """The name of the hook we run inside, or None."""
    env = dict(os.environ) if env is None else env
    if env.get("GIT_MEMORY_HOOK"):
        return env["GIT_MEMORY_HOOK"]
    pid = os.getppid()
    for _ in range(MAX_DEPTH):
        if pid <= 1:
            break
        try:
            found = _hook_in(Path(f"/proc/{pid}/cmdline").read_bytes())
            if found:
                return found
            pid = _parent(pid)
        except (OSError, ValueError, IndexError):
            break
    return None

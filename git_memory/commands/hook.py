"""`git memory hook NAME ARGS...`: what the installed shims (and pre-commit) run.

The shims exec `python -m git_memory.commands.hook NAME ARGS...`, which skips the
command-line parser: every millisecond here is added to the user's `git commit`.
A hook never breaks git work by its own failure: anything unexpected goes to
`<common dir>/git-memory/hooks.log`, is said in one line, and the hook exits 0. Only a
refusal (a secret in a commit message marker or in a push of the memory branch) exits 1.
"""

from __future__ import annotations

import importlib
import os
import sys
import time

from git_memory import ui
from git_memory.store import config
from git_memory.store.locate import discover, read_ref

TYPE_CHECKING = False  # `typing` is off the hot path
if TYPE_CHECKING:
    from typing import Any

REFUSED = 1
LOG_NAME = "hooks.log"

# The module each piece of work needs, imported only when it runs: the other hooks'
# modules would add to every `git commit`.
WORK = {
    "commit-msg": "git_memory.githooks.message",
    "post-commit": "git_memory.capture.history",
    "post-merge": "git_memory.capture.history",
    "post-checkout": "git_memory.githooks.anchors",  # post-merge's second half too
    "pre-push": "git_memory.githooks.push",
    "auto-sync": "git_memory.commands.sync",  # pre-push, with memory.autoSync
    "embed": "git_memory.agents.embedding",  # after a capture that added entries
    "failure": "git_memory.sanitize.scan",  # `mask`: a failure's text may quote a secret
}


def _work(name: str) -> Any:
    return importlib.import_module(WORK[name])


def _commit_msg(args: list[str]) -> int:
    problems = _work("commit-msg").check_message_file(discover(), args[0] if args else None)
    if not problems:
        return 0
    for p in problems:
        ui.warn(f"git-memory: commit refused: the {p.marker}: marker on line {p.line} of the"
                f" message carries a secret ({p.rule})")
    ui.warn("git-memory: remove the secret from the message and commit again"
            " (the secret is not shown or logged)")
    return REFUSED


def _post_commit(args: list[str]) -> int:
    captured, reverted = _work("post-commit").capture_head(discover())
    _say_captured(captured, "")
    if reverted is not None:
        _say_reverted(reverted)
    return 0


def _say_reverted(done: Any) -> None:
    """One line per thing a revert did to the entries of the commit it undoes or restores."""
    what = f"{done.revert[:12]} {'reverts' if done.undoes else 'puts back'} {done.base[:12]}"
    if done.flagged:
        ui.warn(f"git-memory: {what}: {ui.plural(len(done.flagged), 'entry')} captured from it"
                " flagged for review (git memory curate --dry-run)")
    if done.cleared:
        ui.warn(f"git-memory: {what}: revert flag cleared on {ui.plural(len(done.cleared), 'entry')}")
    for eid, branch in done.elsewhere:
        ui.warn(f"git-memory: {what}: entry {eid[-8:].lower()} was captured on branch {branch},"
                " not this one: not flagged")


def _say_captured(outcome: Any, source: str) -> None:
    if outcome.added:
        _work("embed").start(discover())  # detached: a commit never waits for a transformer
        known = f" ({len(outcome.duplicates)} already known)" if outcome.duplicates else ""
        ui.warn(f"git-memory: captured {ui.plural(len(outcome.added), 'entry')}{source}{known}")
    for label, reason in outcome.rejected:
        ui.warn(f"git-memory: not captured ({label}): {reason}")


def _post_merge(args: list[str]) -> int:
    """git passes one argument, 1 for a squash merge. The shims add which half to run:
    `capture` in the foreground (so the user sees what was captured) only when a marker or
    `memory.captureOnPull` makes it worth starting Python, then `anchors` detached; with
    neither (`git memory hook post-merge 0`) both run, capture first."""
    steps = args[1:] or ["capture", "anchors"]
    if "capture" in steps:
        _merge_capture(squash=bool(args) and args[0] == "1")
    if "anchors" in steps:
        _anchors("post-merge", args[:1])
    return 0


def _merge_capture(squash: bool) -> None:
    dirs = discover()
    on_pull = config.get_bool(dirs, "memory.captureOnPull", False)
    # `git pull` names itself to the merge it runs (and so to its hooks) this way.
    via = "pull" if os.environ.get("GIT_REFLOG_ACTION", "").startswith("pull") else "merge"
    done = _work("post-merge").capture_after_merge(dirs, squash=squash, on_pull=on_pull, via=via)
    if done is not None:
        _say_captured(done.outcome, f" from {done.what}")


def _anchors(name: str, args: list[str]) -> int:
    anchors = _work("post-checkout")
    dirs = discover()
    # post-checkout gets (previous HEAD, new HEAD, branch flag); post-merge no HEADs.
    previous = args[0] if name == "post-checkout" and args else None
    with anchors.coalesced(dirs) as mine:
        if mine:
            anchors.check_anchors(dirs, source=name, previous=previous)
    return 0


def _pre_push(args: list[str]) -> int:
    push = _work("pre-push")
    dirs = discover()
    lines = sys.stdin.read().splitlines() if not sys.stdin.isatty() else []
    pushed = push.parse_lines(lines)
    local = os.environ.get("PRE_COMMIT_LOCAL_BRANCH")
    if not pushed and local:  # run by pre-commit, which reads stdin itself
        sha = os.environ.get("PRE_COMMIT_TO_REF") or read_ref(dirs, local) or push.ZERO
        pushed = [push.PushedRef(local, sha, os.environ.get("PRE_COMMIT_REMOTE_BRANCH") or local,
                                 os.environ.get("PRE_COMMIT_FROM_REF") or push.ZERO)]
    findings = push.scan_push(dirs, pushed)
    if not findings:
        _auto_sync(dirs, args, [p.remote_ref for p in pushed])
        return 0
    for f in findings:
        which = f" (record {f.entry_id})" if f.entry_id else ""
        ui.warn(f"git-memory: push refused: {f.ref} carries a secret ({f.rule}) in {f.path}{which},"
                f" {f.where()}, memory commit {f.commit[:12]}")
    ui.warn("git-memory: the way out (hides the record and rewrites the unpushed history"
            " without it; the secret is not shown or logged), then push again:")
    for line in dict.fromkeys(push.way_out(f) for f in findings):
        ui.warn(f"  {line}")
    return REFUSED


def _auto_sync(dirs: object, args: list[str], remote_refs: list[str]) -> None:
    """With `memory.autoSync` on, a code push carries the memory branch along; a failed
    memory sync is said in one line and never blocks the code push."""
    sync = _work("auto-sync")
    line = sync.maybe_sync(dirs, args[0] if args else None, remote_refs,
                           then=lambda report: sync.after_purge(dirs, report))
    if line:
        ui.warn(line)


HOOKS = {
    "commit-msg": _commit_msg,
    "post-commit": _post_commit,
    "post-merge": _post_merge,
    "post-checkout": lambda args: _anchors("post-checkout", args),
    "pre-push": _pre_push,
}


def _log_failure(name: str, exc: BaseException) -> str:
    """Write the traceback where the user can find it; the path, or '' when impossible."""
    try:
        import traceback  # lazy: on a failure only

        memory_dir = discover().memory_dir
        memory_dir.mkdir(parents=True, exist_ok=True)
        path = memory_dir / LOG_NAME
        stamp = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
        text = f"--- {stamp} {name} argv={sys.argv!r}\n" + "".join(
            traceback.format_exception(exc))
        with open(path, "a", encoding="utf-8") as handle:
            handle.write(_masked(text))  # an exception may quote what it choked on
        return str(path)
    except Exception:  # noqa: BLE001 - logging must not fail the hook either
        return ""


def _masked(text: str) -> str:
    masked: str = _work("failure").mask(text)
    return masked


_SCANNING = frozenset({"commit-msg", "post-commit", "post-merge", "pre-push"})


def run(name: str, args: list[str]) -> int:
    """Run hook `name`; 1 only for a refusal, 0 for everything else."""
    os.environ["GIT_MEMORY_HOOK"] = name
    work = HOOKS.get(name)
    if work is None:
        ui.warn(f"git-memory: unknown hook {name!r}; nothing done")
        return 0
    try:
        if name not in _SCANNING:
            return work(list(args))
        # A person's own commit or push: their allow list holds (the scanning hooks load
        # the sanitizer anyway; post-checkout's fast path stays without it).
        from git_memory.sanitize.secrets_allowlist import honoured  # lazy: scanning hooks only

        with honoured():
            return work(list(args))
    except KeyboardInterrupt:
        return 130
    except Exception as exc:  # noqa: BLE001 - a hook must not break git on our failure
        where = _log_failure(name, exc)
        detail = f"; details in {where}" if where else ""
        ui.warn(f"git-memory: {name} hook failed ({_masked(str(exc))}){detail}; git continues")
        return 0


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if not argv:
        ui.warn("usage: python -m git_memory.commands.hook NAME [ARGS...]")
        return 2
    return run(argv[0], argv[1:])


def __getattr__(name: str) -> object:
    """`hook_cmd`, built when the group asks for it: the shims run this module without
    click (PEP 562)."""
    if name != "hook_cmd":
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    import click  # lazy: the shims run this module without click

    @click.command("hook", context_settings={"ignore_unknown_options": True})
    @click.argument("name", metavar="NAME")
    @click.argument("args", nargs=-1, type=click.UNPROCESSED)
    def hook_cmd(name: str, args: tuple[str, ...]) -> int:
        """Run one git hook's work (what the installed shims and pre-commit call)."""
        return run(name, list(args))

    globals()["hook_cmd"] = hook_cmd
    return hook_cmd


if __name__ == "__main__":
    raise SystemExit(main())

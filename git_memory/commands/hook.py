"""`git memory hook NAME ARGS...`: what the installed shims (and pre-commit) run.

Also runnable as `python -m git_memory.commands.hook NAME ARGS...`, which is what
the shims exec: it skips the command-line parser and its imports, because every
millisecond here is added to the user's `git commit`.

Each hook imports only its own work, inside its function (`# lazy: this hook's only`):
the others' modules would add to every `git commit`.

A hook must never break ordinary git work because of its own failure: anything
unexpected is written to `<common dir>/git-memory/hooks.log`, said in one line,
and the hook exits 0. Only a refusal (a secret in a commit message marker or in
a push of the memory branch) exits 1.
"""

from __future__ import annotations

import os
import sys
import time

from git_memory import ui
from git_memory.store import config
from git_memory.store.locate import discover, read_ref

REFUSED = 1
LOG_NAME = "hooks.log"


def _commit_msg(args: list[str]) -> int:
    from git_memory.githooks.message import check_message_file  # lazy: this hook's only

    dirs = discover()
    problems = check_message_file(dirs, args[0] if args else None)
    if not problems:
        return 0
    for p in problems:
        ui.warn(f"git-memory: commit refused: the {p.marker}: marker on line {p.line} of the"
                f" message carries a secret ({p.rule})")
    ui.warn("git-memory: remove the secret from the message and commit again"
            " (the secret is not shown or logged)")
    return REFUSED


def _post_commit(args: list[str]) -> int:
    from git_memory.capture.history import capture_commit  # lazy: this hook's only

    outcome = capture_commit(discover(), "HEAD")
    if outcome.added:
        count = len(outcome.added)
        known = f" ({len(outcome.duplicates)} already known)" if outcome.duplicates else ""
        ui.warn(f"git-memory: captured {count} entr{'y' if count == 1 else 'ies'}{known}")
    for label, reason in outcome.rejected:
        ui.warn(f"git-memory: not captured ({label}): {reason}")
    return 0


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
    from git_memory.capture.history import capture_after_merge  # lazy: this hook's only

    dirs = discover()
    on_pull = config.get_bool(dirs, "memory.captureOnPull", False)
    # `git pull` names itself to the merge it runs (and so to its hooks) this way.
    via = "pull" if os.environ.get("GIT_REFLOG_ACTION", "").startswith("pull") else "merge"
    done = capture_after_merge(dirs, squash=squash, on_pull=on_pull, via=via)
    if done is None:
        return
    outcome = done.outcome
    if outcome.added:
        count = len(outcome.added)
        known = f" ({len(outcome.duplicates)} already known)" if outcome.duplicates else ""
        ui.warn(f"git-memory: captured {count} entr{'y' if count == 1 else 'ies'}"
                f" from {done.what}{known}")
    for label, reason in outcome.rejected:
        ui.warn(f"git-memory: not captured ({label}): {reason}")


def _anchors(name: str, args: list[str]) -> int:
    from git_memory.githooks.anchors import check_anchors, coalesced  # lazy: this hook's only

    dirs = discover()
    # post-checkout gets (previous HEAD, new HEAD, branch flag); post-merge no HEADs.
    previous = args[0] if name == "post-checkout" and args else None
    with coalesced(dirs) as mine:
        if mine:
            check_anchors(dirs, source=name, previous=previous)
    return 0


def _pre_push(args: list[str]) -> int:
    from git_memory.githooks.push import (  # lazy: this hook's only
        ZERO, PushedRef, parse_lines, scan_push, way_out,
    )

    dirs = discover()
    lines = sys.stdin.read().splitlines() if not sys.stdin.isatty() else []
    pushed = parse_lines(lines)
    local = os.environ.get("PRE_COMMIT_LOCAL_BRANCH")
    if not pushed and local:  # run by pre-commit, which reads stdin itself
        sha = os.environ.get("PRE_COMMIT_TO_REF") or read_ref(dirs, local) or ZERO
        pushed = [PushedRef(local, sha, os.environ.get("PRE_COMMIT_REMOTE_BRANCH") or local,
                            os.environ.get("PRE_COMMIT_FROM_REF") or ZERO)]
    findings = scan_push(dirs, pushed)
    if not findings:
        _auto_sync(dirs, args, [p.remote_ref for p in pushed])
        return 0
    for f in findings:
        which = f" (record {f.entry_id})" if f.entry_id else ""
        ui.warn(f"git-memory: push refused: {f.ref} carries a secret ({f.rule}) in {f.path}{which},"
                f" {f.where()}, memory commit {f.commit[:12]}")
    ui.warn("git-memory: the way out (hides the record and rewrites the unpushed history"
            " without it; the secret is not shown or logged), then push again:")
    for line in dict.fromkeys(way_out(f) for f in findings):
        ui.warn(f"  {line}")
    return REFUSED


def _auto_sync(dirs: object, args: list[str], remote_refs: list[str]) -> None:
    """With `memory.autoSync` on, a code push carries the memory branch along.

    A failed memory sync is reported in one line and never blocks the code push."""
    from git_memory.commands.sync import after_purge, maybe_sync  # lazy: this hook's only

    line = maybe_sync(dirs, args[0] if args else None, remote_refs,  # type: ignore[arg-type]
                      then=lambda report: after_purge(dirs, report))
    if line:
        ui.warn(line)


def _dispatch(name: str, args: list[str]) -> int:
    if name == "commit-msg":
        return _commit_msg(args)
    if name == "post-commit":
        return _post_commit(args)
    if name == "post-merge":
        return _post_merge(args)
    if name == "post-checkout":
        return _anchors(name, args)
    if name == "pre-push":
        return _pre_push(args)
    ui.warn(f"git-memory: unknown hook {name!r}; nothing done")
    return 0


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


def _quiet(exc: BaseException) -> str:
    """The exception's message with any secret in it replaced."""
    return _masked(str(exc))


def _masked(text: str) -> str:
    from git_memory.sanitize.scan import mask  # lazy: on a failure only

    return mask(text)


def run(name: str, args: list[str]) -> int:
    """Run hook `name`; 1 only for a refusal, 0 for everything else."""
    os.environ["GIT_MEMORY_HOOK"] = name
    try:
        return _dispatch(name, list(args))
    except KeyboardInterrupt:
        return 130
    except Exception as exc:  # noqa: BLE001 - a hook must not break git on our failure
        where = _log_failure(name, exc)
        detail = f"; details in {where}" if where else ""
        ui.warn(f"git-memory: {name} hook failed ({_quiet(exc)}){detail}; git continues")
        return 0


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if not argv:
        ui.warn("usage: python -m git_memory.commands.hook NAME [ARGS...]")
        return 2
    return run(argv[0], argv[1:])


def __getattr__(name: str) -> object:
    """`hook_cmd`, the click definition of `git memory hook`, built when the group asks for
    it: the shims run this module without click (PEP 562)."""
    if name != "hook_cmd":
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    import click  # lazy: the shims run this module without click

    @click.command("hook", context_settings={"ignore_unknown_options": True})
    @click.argument("name", metavar="NAME")
    @click.argument("args", nargs=-1, type=click.UNPROCESSED)
    def hook_cmd(name: str, args: tuple[str, ...]) -> None:
        """Run one git hook's work (what the installed shims and pre-commit call)."""
        sys.exit(run(name, list(args)))

    globals()["hook_cmd"] = hook_cmd
    return hook_cmd


if __name__ == "__main__":
    raise SystemExit(main())

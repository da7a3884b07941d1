"""`git memory sync`, `pull` and `push`: share the memory branch through a git remote."""

from __future__ import annotations

from git_memory import ui
from git_memory.store.locate import discover
from git_memory.sync import engine
from git_memory.sync.autosync import maybe_sync
from git_memory.sync.engine import SyncReport


def _records(n: int) -> str:
    return f"{n} record" + ("" if n == 1 else "s")


def describe(report: SyncReport) -> str:
    """One line saying what happened, e.g. 'merged 12 records from origin; pushed 3 to origin'."""
    line = _describe_memory(report)
    if report.sessions is not None:
        line += "; session archive: " + _describe_sessions(report.sessions)
    return line


def _describe_sessions(report: SyncReport) -> str:
    if report.action == "empty":
        return "none to share yet"
    parts = []
    if report.action == "adopt":
        parts.append(f"took {report.remote}'s")
    elif report.received:
        parts.append(f"received {_sessions(report.received)}")
    if report.pushed:
        parts.append(f"sent {_sessions(report.sent)}" if not report.created_remote
                     else f"created it on {report.remote}")
    return ", ".join(parts) or "up to date"


def _sessions(n: int) -> str:
    return f"{n} session" + ("" if n == 1 else "s")


def _describe_memory(report: SyncReport) -> str:
    parts: list[str] = []
    name = report.remote
    if report.action == "empty":
        return f"nothing to sync: no memory here or on {name} yet"
    if report.action == "adopt":
        parts.append(f"took the memory branch of {name}")
    elif report.action in ("fast-forward", "merge") and report.received:
        verb = "merged" if report.action == "merge" else "received"
        parts.append(f"{verb} {_records(report.received)} from {name}")
    if report.pushed:
        if report.created_remote:
            parts.append(f"created the memory branch on {name}")
        else:
            parts.append(f"pushed {_records(report.sent)} to {name}")
    if report.conflicts:
        parts.append(f"kept both versions of {len(report.conflicts)} hand-edited files")
    if report.refused:
        parts.append(f"left out {len(report.refused)} unsafe file"
                     f"{'s' if len(report.refused) != 1 else ''} from {name}"
                     " (not records; `git memory doctor` lists them)")
    if report.redacted:
        parts.append(f"redacted what arrived holding a secret ({report.redacted} field(s);"
                     " `git memory audit --rule` by rule, `git memory scan` to list them)")
    if not parts:
        return f"memory already up to date with {name}"
    tip = report.after or report.pushed
    return "; ".join(parts) + (f" ({tip[:7]})" if tip else "")


def _show(report: SyncReport, as_json: bool) -> int:
    if as_json:
        ui.out_json(report.as_dict())
    else:
        ui.out(describe(report))
    return 0


def run_sync(remote: str | None, *, as_json: bool, auto: bool = False) -> int:
    dirs = discover()
    if auto:
        # What the pre-push hook runs: opt-in, no recursion, never fails the code push.
        line = maybe_sync(dirs, remote)
        if line:
            ui.warn(line)
        return 0
    return _show(engine.sync(dirs, remote), as_json)


def run_pull(remote: str | None, *, as_json: bool) -> int:
    return _show(engine.pull(discover(), remote), as_json)


def run_push(remote: str | None, *, as_json: bool) -> int:
    return _show(engine.push(discover(), remote), as_json)

"""`git memory sync`, `pull` and `push`: share the memory branch through a git remote."""

from __future__ import annotations

from dataclasses import asdict
from typing import Any

import click

from git_memory import ui
from git_memory.api.memory import Memory
from git_memory.cli import options
from git_memory.sanitize import secrets_allowlist as allowlist
from git_memory.store.sources import memory_dirs
from git_memory.sync.autosync import maybe_sync
from git_memory.sync.engine import SyncReport
from git_memory.sync.refspec import remotes
from git_memory.sync.fetch_sources import Fetched, fetch_all


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
        parts.append(f"received {ui.plural(report.received, 'session')}")
    if report.pushed:
        parts.append(f"sent {ui.plural(report.sent, 'session')}" if not report.created_remote
                     else f"created it on {report.remote}")
    return ", ".join(parts) or "up to date"


def _describe_memory(report: SyncReport) -> str:
    parts: list[str] = []
    name = report.remote
    if report.action == "empty":
        return f"nothing to sync: no memory here or on {name} yet"
    if report.action == "adopt":
        parts.append(f"took the memory branch of {name}")
    elif report.action in ("fast-forward", "merge") and report.received:
        verb = "merged" if report.action == "merge" else "received"
        parts.append(f"{verb} {ui.plural(report.received, 'record')} from {name}")
    if report.repurged:
        parts.append(f"{name} had lost the purge of {ui.plural(report.repurged, 'blob')} (a forced"
                     " push from a clone that never synced it): purged it again")
    if report.pushed:
        if report.created_remote:
            parts.append(f"created the memory branch on {name}")
        else:
            parts.append(f"pushed {ui.plural(report.sent, 'record')} to {name}")
    if report.conflicts:
        parts.append(f"kept both versions of {len(report.conflicts)} hand-edited files")
    if report.refused:
        parts.append(f"left out {ui.plural(len(report.refused), 'unsafe file')} from {name}"
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


@click.command("sync", epilog=options.REMOTE_EPILOG)
@options.remote()
@options.as_json()
@click.option("--auto", is_flag=True, help="Only when `git config memory.autoSync` is true, and "
              "warn instead of failing (what the pre-push hook runs).")
@options.personal()
def sync_cmd(remote: str | None, *, as_json: bool, auto: bool = False,
             personal: bool = False) -> int:
    """Fetch the remote memory branch, merge it with yours, push the result (never forced).

    With `git config memory.shareSessions true`, the session archive too; every
    `memory.sources` repository is fetched (read only). With --personal, your personal
    memory with its own remote."""
    # A person syncs: their committed allow list holds for what arrives too (a teammate's
    # allowed entry is not redacted on arrival; agents never reach this command).
    with allowlist.honoured():
        return _sync(remote, as_json=as_json, auto=auto, personal=personal)


def _sync(remote: str | None, *, as_json: bool, auto: bool, personal: bool) -> int:
    dirs = memory_dirs(personal)
    if auto:
        # What the pre-push hook runs: opt-in, no recursion, never fails the code push.
        line = maybe_sync(dirs, remote, then=lambda report: after_purge(dirs, report))
        if line:
            ui.warn(line)
        return 0
    fetched = _fetch_sources(dirs)
    if fetched is not None and remote is None and not remotes(dirs):
        # Only sources to read: no remote of our own to sync with is no error then.
        if as_json:
            ui.out_json({"sources": [asdict(f) for f in fetched]})
        else:
            ui.out(_describe_sources(fetched))
        return 0
    report = Memory.at(dirs).sync(remote)
    after_purge(dirs, report)
    if as_json:
        extra = {"sources": [asdict(f) for f in fetched]} if fetched else {}
        ui.out_json({**report.as_dict(), **extra})
        return 0
    line = describe(report)
    ui.out(line + ("; " + _describe_sources(fetched) if fetched else ""))
    return 0


def _fetch_sources(dirs: Any) -> list[Fetched] | None:
    """Fetch `memory.sources` (None when there are none); a failure is a warning."""
    found = fetch_all(dirs)
    for item in found:
        if not item.ok:
            ui.warn(f"source {item.name} not fetched: {item.detail}")
    return found or None


def _describe_sources(fetched: list[Fetched]) -> str:
    read = [f.name for f in fetched if f.ok]
    return f"read-only sources fetched: {', '.join(read)}" if read else "no source fetched"


@click.command("pull", epilog=options.REMOTE_EPILOG)
@options.remote()
@options.as_json()
@options.personal()
def pull_cmd(remote: str | None, *, as_json: bool, personal: bool = False) -> int:
    """Fetch the remote memory branch and merge it into yours; push nothing."""
    dirs = memory_dirs(personal)
    report = Memory.at(dirs).pull(remote)
    after_purge(dirs, report)
    return _show(report, as_json)


def after_purge(dirs: Any, report: SyncReport | None) -> None:
    """When the sync rewrote the local branch without purged blobs, rebuild the index at
    once: the old file still holds their text (rows, full-text segments, free pages), and
    a fresh build is a new file swapped in, so not one page of the old one is left under
    .git/git-memory/ (docs/curation.md)."""
    if report is not None and report.rewrote_local:
        with Memory.at(dirs) as memory:
            memory.reindex()


@click.command("push", epilog=options.REMOTE_EPILOG)
@options.remote()
@options.as_json()
@options.personal()
def push_cmd(remote: str | None, *, as_json: bool, personal: bool = False) -> int:
    """Push your memory branch; refuses when the remote has records you lack (use sync)."""
    return _show(Memory.at(memory_dirs(personal)).push(remote), as_json)

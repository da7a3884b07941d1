"""Sync, pull and push of the memory branch (docs/sync.md, "How it works"): fetch, build the
merged commit without touching our branch, push it, and only then move the local ref, so a
failure leaves the local memory as it was; a push refused because the remote moved goes
round again, for `memory.syncTimeout` seconds. With `memory.shareSessions`, the same for the
session archive."""

from __future__ import annotations

import random
import time
from dataclasses import asdict, dataclass, field
from typing import Callable

from git_memory.errors import GitMemoryError
from git_memory.store import config
from git_memory.store.branch import MemoryBranch, session_archive
from git_memory.store.incoming import remember
from git_memory.store.locate import SESSIONS_REF, GitDirs
from git_memory.curation.record_builders import event
from git_memory.store.rewrite import applied, forget, note_applied
from git_memory.sync import gitcmd, redact_incoming
from git_memory.sync.gitcmd import Remote, RemoteMoved, SessionsNotSynced, SyncFailed
from git_memory.sync.merge import (
    MEMORY, SESSIONS, RefMoved, Rules, integrate, move_ref, plan,
)

# A budget in time, not attempts, so twenty clones syncing at once all get through (each
# round lets at least one of them in).
TIMEOUT_KEY = "memory.syncTimeout"
DEFAULT_TIMEOUT = 60
# The back-off before retry n: a random wait up to FIRST_WAIT * 2**(n-1), at most MAX_WAIT.
FIRST_WAIT = 0.05
MAX_WAIT = 2.0


@dataclass
class SyncReport:
    """What one sync, pull or push did (for the command's message and --json)."""

    remote: str
    action: str  # empty | adopt | up-to-date | ahead | fast-forward | merge
    before: str | None = None
    after: str | None = None
    received: int = 0  # record files that arrived in the local branch
    pushed: str | None = None  # the commit pushed, when we pushed
    sent: int = 0  # record files the remote did not have
    created_remote: bool = False
    attempts: int = 1
    conflicts: list[str] = field(default_factory=list)
    redacted: int = 0  # incoming fields holding a secret (their records are now redacted)
    refused: list[str] = field(default_factory=list)  # "path: reason" left out (store.incoming)
    purged: int = 0  # blobs that purge records name (history rewritten without them)
    repurged: int = 0  # purges the remote had dropped (a forced push), applied again
    rewrote_local: bool = False  # the local branch was rewritten without purged blobs
    sessions: SyncReport | None = None  # the session archive's sync (memory.shareSessions)

    def as_dict(self) -> dict:
        return asdict(self)


def resolve_remote(branch: MemoryBranch, name: str | None) -> Remote:
    """The named remote, else the current branch's upstream remote, else origin."""
    names = branch.remote_names()
    if name is None:
        upstream = branch.upstream_remote()
        name = upstream if upstream in names else "origin"
    if name not in names:
        if not names:
            raise SyncFailed(
                "no remote to sync with; add one with `git remote add origin URL`"
            )
        raise SyncFailed(f"no remote named {name!r} (remotes: {', '.join(sorted(names))})")
    return Remote(name, branch.ref, gitcmd.tracking_ref(name, branch.ref))


def _theirs(
    dirs: GitDirs, branch: MemoryBranch, remote: Remote, rules: Rules, fetched: str | None
) -> tuple[Purges, str | None, list[str]]:
    """The fetched tip made ready to merge: rewritten without purged blobs (`_apply_purges`),
    then topped by a commit without the files we do not accept (store.incoming), listed as
    "path: reason"."""
    purges = _apply_purges(dirs, branch, fetched, rules)
    if purges.theirs is None:
        return purges, None, []
    result = branch.screen(purges.theirs, rules.roots)
    if rules is MEMORY:
        remember(dirs, remote.name, purges.theirs, result.refused)
    return purges, result.tip, [f"{path!r}: {why}" for path, why in result.refused]


def _count_new(
    branch: MemoryBranch, old: str | None, new: str | None, rules: Rules,
    counted: int | None = None,
) -> int:
    """Record files in `new` that `old` lacks (0 without both): `counted` when the merge
    counted them already, else by a tree diff (cheap even at 100k)."""
    if counted is not None:
        return counted
    if old is None or new is None or old == new:
        return 0
    added, _ = branch.changes(old, new)
    return sum(1 for f in added if f.path.split("/", 1)[0] in rules.roots)


@dataclass
class Purges:
    """What `_apply_purges` did before a merge."""

    theirs: str | None  # the fetched tip, rewritten without the purged blobs
    known: dict[str, str] = field(default_factory=dict)  # blob -> entry id, every purge seen
    dropped: set[str] = field(default_factory=set)  # published purges the remote's tip lacks
    rewrote_local: bool = False  # the local branch lost purged blobs: the index must follow
    on_remote: set[str] = field(default_factory=set)  # blobs the fetched tip's records name


def _apply_purges(
    dirs: GitDirs, branch: MemoryBranch, fetched: str | None, rules: Rules
) -> Purges:
    """Before merging: when a purge (a record on either side, or one in this clone's list)
    names a blob this repository holds, rewrite the local branch without it (compare-and-
    swap) and the fetched history the same way. A purge recorded on neither side (a forced
    push dropped it) gets its record again, so the merge and the push carry it back."""
    if rules is not MEMORY:
        return Purges(fetched)
    ours = branch.local_tip()
    listed = applied(dirs)  # one small file, missing in the usual case
    mine = branch.purge_targets(ours)
    on_remote = branch.purge_targets(fetched)
    known = {blob: target for blob, (target, _) in listed.items()}
    known.update(on_remote)
    known.update(mine)
    result = Purges(fetched, known, on_remote=set(on_remote))
    if fetched is not None:
        result.dropped = {b for b, (_, published) in listed.items()
                          if published and b not in on_remote}
    present = {blob for blob in known if branch.holds_object(blob)}
    if present:
        new_ours, _ = branch.rewrite_without(ours, present)
        if ours is not None and new_ours is not None and new_ours != ours:
            move_ref(branch, ours, new_ours, "git-memory sync: rewrite without purged blobs")
            result.rewrote_local = True
        result.theirs, _ = branch.rewrite_without(fetched, present)
    lost = {b: t for b, t in known.items() if b not in mine and b not in on_remote}
    if lost:  # listed here, recorded on neither side: the record is written again
        _record_again(branch, lost)
    return result


def _record_again(branch: MemoryBranch, lost: dict[str, str]) -> None:
    author = branch.author()
    records = [event("purge", target, "purged from history (recorded again by sync)", author,
                     blobs=[blob], paths=[]) for blob, target in sorted(lost.items())]
    branch.append(records, f"memory: purge record{'s' if len(records) > 1 else ''} written"
                  " again", trailers=[("Memory-Purge", blob) for blob in sorted(lost)])


def _note_purges(dirs: GitDirs, purges: Purges, published: bool) -> None:
    """Keep the list of purges applied here (`published`: the remote holds them all now)."""
    if purges.known:
        note_applied(dirs, {blob: (target, published or blob in purges.on_remote)
                            for blob, target in purges.known.items()})


def _forget(dirs: GitDirs, branch: MemoryBranch, remote: Remote, purged: set[str]) -> None:
    """Forget purged blobs in this clone once no ref reaches them any more."""
    if purged and any(branch.holds_object(blob) for blob in purged):
        forget(dirs, [branch.ref, remote.tracking], purged)


def _seal(branch: MemoryBranch, before: str | None, after: str | None, remote: Remote,
          rules: Rules) -> int:
    """Redact incoming memory records that hold a secret, after the merge (unsafe paths were
    dropped before it); how many fields."""
    if rules is not MEMORY:
        return 0
    return len(redact_incoming.seal(branch, before, after, remote.name))


def sync(dirs: GitDirs, remote_name: str | None = None, timeout: float | None = None
         ) -> SyncReport:
    """Fetch, merge, push; retry while the remote moves under us, for `timeout` seconds
    (None: `memory.syncTimeout`, default 60)."""
    budget = sync_timeout(dirs) if timeout is None else max(0.0, timeout)
    return _run(dirs, remote_name, _sync_ref, "synced with", budget)


def pull(dirs: GitDirs, remote_name: str | None = None) -> SyncReport:
    """Fetch and merge into the local branch; push nothing."""
    return _run(dirs, remote_name, _pull_ref, "pulled from", 0.0)


def push(dirs: GitDirs, remote_name: str | None = None) -> SyncReport:
    """Push the local branch; refuse (without merging) when the remote has records we lack."""
    return _run(dirs, remote_name, _push_ref, "pushed to", 0.0)


def sync_timeout(dirs: GitDirs) -> float:
    """`memory.syncTimeout` in seconds (a negative value counts as 0: one attempt)."""
    return float(max(0, config.get_int(dirs, TIMEOUT_KEY, DEFAULT_TIMEOUT)))


def backoff(attempt: int) -> float:
    """The wait after failed attempt `attempt` (1, 2, ...): random, so clones refused together
    separate, up to a ceiling that doubles, so a crowd does not fetch in lock-step."""
    ceiling = min(MAX_WAIT, FIRST_WAIT * 2 ** min(attempt - 1, 16))
    return random.uniform(0.0, ceiling)


Step = Callable[[GitDirs, MemoryBranch, Remote, Rules, float], SyncReport]


def _run(dirs: GitDirs, remote_name: str | None, step: Step, verb: str, budget: float
         ) -> SyncReport:
    """`step` for the memory branch, then for the session archive (memory.shareSessions)."""
    branch = MemoryBranch(dirs)
    remote = resolve_remote(branch, remote_name)
    report = step(dirs, branch, remote, MEMORY, budget)
    if not config.get_bool(dirs, "memory.shareSessions"):
        return report
    archive = session_archive(dirs)
    tracking = f"refs/memory/remotes/{remote.name}/sessions"
    try:
        report.sessions = step(
            dirs, archive, Remote(remote.name, SESSIONS_REF, tracking), SESSIONS, budget
        )
    except GitMemoryError as exc:
        # The memory part has landed; say so, so that nobody thinks it was lost.
        raise SessionsNotSynced(
            f"memory {verb} {remote.name}, but not the session archive: {exc}"
        ) from None
    return report


def _sync_ref(
    dirs: GitDirs, branch: MemoryBranch, remote: Remote, rules: Rules, budget: float
) -> SyncReport:
    """Attempts until one lands or the next would start after `budget` seconds."""
    start = time.monotonic()
    attempt = 1
    rewrote = False  # by any attempt: a later one finds the local branch clean already
    while True:
        report, rewrote = _sync_attempt(dirs, branch, remote, rules, attempt, rewrote)
        if report is not None:
            return report
        wait = backoff(attempt)
        if time.monotonic() + wait - start > budget:
            break
        time.sleep(wait)
        attempt += 1
    tries = f"{attempt} attempt" + ("s" if attempt != 1 else "")
    raise SyncFailed(
        f"{remote.name} kept moving: gave up after {tries} in"
        f" {time.monotonic() - start:.0f} s ({TIMEOUT_KEY} is {budget:g} s) to push"
        f" {rules.title}; nothing was lost, run `git memory sync` again"
    )


def _sync_attempt(
    dirs: GitDirs, branch: MemoryBranch, remote: Remote, rules: Rules, attempt: int,
    rewrote: bool,
) -> tuple[SyncReport | None, bool]:
    """One fetch, merge and push; None when someone moved a ref first (the remote's,
    or a local write landed meanwhile): fetch and merge again. `rewrote`: whether an
    attempt so far rewrote the local branch for a purge (returned, updated)."""
    fetched_tip = branch.ref_target(remote.tracking) if gitcmd.fetch(dirs, remote) else None
    try:
        purges, theirs, refused = _theirs(dirs, branch, remote, rules, fetched_tip)
    except RefMoved:
        return None, rewrote
    rewrote |= purges.rewrote_local
    ours = branch.local_tip()
    step = plan(branch, ours, theirs, remote.name, rules)
    report = SyncReport(remote.name, step.kind, before=ours, attempts=attempt,
                        conflicts=step.conflicts, refused=refused, rewrote_local=rewrote)
    if step.result is None:
        _note_purges(dirs, purges, published=False)
        return report, rewrote
    if step.result != fetched_tip:  # a screened tip is pushed too: the remote ends clean
        lease = fetched_tip if purges.theirs != fetched_tip else None  # a purge replaces history
        try:
            gitcmd.push(dirs, remote, step.result, lease)
        except RemoteMoved:
            return None, rewrote
        report.pushed = step.result
        report.created_remote = fetched_tip is None
        report.sent = _count_new(branch, theirs, step.result, rules, step.ours_only)
        # Only a cache of the remote's state: when it cannot be written, the next fetch corrects it.
        branch.set_ref(remote.tracking, step.result)
    before, applied = integrate(branch, step.result, remote.name, rules)
    report.after = applied.result
    report.redacted = _seal(branch, before, applied.result, remote, rules)
    report.received = _count_new(branch, ours, step.result, rules, step.theirs_only)
    report.purged = len(purges.known)
    report.repurged = len(purges.dropped)
    _note_purges(dirs, purges, published=True)
    _forget(dirs, branch, remote, set(purges.known))
    return report, rewrote


def _pull_ref(
    dirs: GitDirs, branch: MemoryBranch, remote: Remote, rules: Rules, budget: float
) -> SyncReport:
    if not gitcmd.fetch(dirs, remote):
        ours = branch.local_tip()
        return SyncReport(remote.name, "ahead" if ours else "empty", ours, ours)
    fetched_tip = branch.ref_target(remote.tracking)
    purges, theirs, refused = _theirs(dirs, branch, remote, rules, fetched_tip)
    if theirs is None:
        raise GitMemoryError(f"fetched {remote.name} but {remote.tracking} is missing")
    before, applied = integrate(branch, theirs, remote.name, rules)
    report = SyncReport(remote.name, applied.kind, before, applied.result,
                        conflicts=applied.conflicts, refused=refused,
                        rewrote_local=purges.rewrote_local)
    report.redacted = _seal(branch, before, applied.result, remote, rules)
    _note_purges(dirs, purges, published=False)  # nothing pushed: the remote may lack them
    _forget(dirs, branch, remote, set(purges.known))
    report.received = _count_new(branch, before, applied.result, rules, applied.theirs_only)
    return report


def _push_ref(
    dirs: GitDirs, branch: MemoryBranch, remote: Remote, rules: Rules, budget: float
) -> SyncReport:
    ours = branch.local_tip()
    if ours is None:
        if rules.optional:
            return SyncReport(remote.name, "empty")  # none here: nothing to send
        raise SyncFailed("no local memory to push; add an entry or run `git memory pull`")
    theirs = branch.ref_target(remote.tracking) if gitcmd.fetch(dirs, remote) else None
    report = SyncReport(remote.name, "up-to-date", ours, ours)
    if theirs == ours:
        return report
    if theirs is not None and not branch.is_ancestor(theirs, ours):
        raise SyncFailed(
            f"{remote.name} has {rules.noun} this clone lacks; run `git memory sync"
            f" {remote.name}` to merge and push"
        )
    try:
        gitcmd.push(dirs, remote, ours)
    except RemoteMoved:
        raise SyncFailed(
            f"{remote.name} moved while pushing; run `git memory sync {remote.name}`"
        ) from None
    branch.set_ref(remote.tracking, ours)  # the remote-tracking cache, as in `_sync_attempt`
    report.action, report.pushed = "ahead", ours
    report.created_remote = theirs is None
    report.sent = _count_new(branch, theirs, ours, rules)
    return report

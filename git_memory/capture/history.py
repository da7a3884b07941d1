"""Markers from code history: one commit (post-commit), a range (`git memory capture`),
a merge (post-merge). Idempotent: an entry's key is its type and normalised text, so a
second run adds nothing. A backfilled entry is dated by its commit. Without a range,
HEAD's history less the tips an earlier run finished (`capture-scanned`, local).
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

from git_memory.capture.commit import MAX_PATHS, parse_message
from git_memory.capture.reverts import RevertOutcome, follow_revert, reverted_commit
from git_memory.errors import UsageProblem
from git_memory.store.commits import CodeCommit, History, read_commit
from git_memory.store.leftovers import temp_path
from git_memory.store.locate import GitDirs
from git_memory.write.append import NewEntry, WriteOutcome, write_entries


Progress = Callable[[int, int], None]
SCANNED_NAME = "capture-scanned"
MAX_SCANNED_TIPS = 20
PROGRESS_EVERY = 500  # commits between progress calls; shorter ranges show none


@dataclass
class RangeReport:
    """What one capture over a stretch of history found and did."""

    described: str  # the range as given, or what the default stood for
    commits: int = 0  # commits read
    marked: int = 0  # commits with at least one marker
    markers: int = 0
    outcome: WriteOutcome = field(default_factory=WriteOutcome)
    dry_run: bool = False
    already_scanned: int = 0  # tips an earlier default run finished (left out)
    reverts: list[RevertOutcome] = field(default_factory=list)  # reverts of captured commits

    @property
    def captured(self) -> int:
        return len(self.outcome.added)

    @property
    def already(self) -> int:
        return len(self.outcome.duplicates)


def _iso(seconds: int) -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(seconds))


def _right_side(rev_range: str) -> str:
    """`A..B` -> B; `A..` -> HEAD."""
    for sep in ("...", ".."):
        if sep in rev_range:
            return rev_range.split(sep, 1)[1] or "HEAD"
    return rev_range


def _branch_for(dirs: GitDirs, history: History, rev_range: str | None, tips: list[str]) -> str | None:
    """`origin.branch`: the branch the range ends at when it names one, else the
    checked-out one when the range ends at HEAD's commit (CI's `<before>..<after>`)."""
    if rev_range is not None and "..." not in rev_range:
        named = history.branch_named(_right_side(rev_range))
        if named:
            return named
    if len(tips) == 1 and tips[0] == history.resolve("HEAD"):
        return branch_name(dirs.git_dir)
    return None


def _load_scanned(dirs: GitDirs) -> list[str]:
    try:
        text = (dirs.memory_dir / SCANNED_NAME).read_text(encoding="ascii")
    except (OSError, UnicodeDecodeError):
        return []
    ids = [line.strip() for line in text.splitlines()]
    return [i for i in ids if len(i) == 40 and all(c in "0123456789abcdef" for c in i)]


def _save_scanned(dirs: GitDirs, history: History, tips: list[str], before: list[str]) -> None:
    """Remember `tips` as scanned to the root, the newest first, a few at most (an old
    tip that scrolls off only costs a re-read)."""
    kept = list(dict.fromkeys(tips + [t for t in before if history.resolve(t)]))[:MAX_SCANNED_TIPS]
    dirs.memory_dir.mkdir(parents=True, exist_ok=True)
    path = dirs.memory_dir / SCANNED_NAME
    tmp = temp_path(path)  # NAME.<pid>.tmp: a killed writer's is told apart (doctor)
    tmp.write_text("".join(t + "\n" for t in kept), encoding="ascii")
    tmp.replace(path)


def _items(history: History, ids: list[str], branch: str | None, report: RangeReport,
           progress: Progress | None, reverting: list[CodeCommit]) -> list[NewEntry]:
    """The entries of every marker in `ids` (oldest commit first), dated by their commit;
    the commits that say they revert one go to `reverting`, oldest first."""
    items: list[NewEntry] = []
    total = len(ids)
    for number, sha in enumerate(ids, 1):
        if progress and total >= PROGRESS_EVERY and (number % PROGRESS_EVERY == 0 or number == total):
            progress(number, total)
        message, when = history.read(sha)
        if "This reverts commit " in message and reverted_commit(message):
            reverting.append(CodeCommit(sha, message, []))
        if not parse_message(message):  # the cheap test first: most commits have none
            continue
        found = entries_for_commit(CodeCommit(sha, message, history.paths(sha)), branch)
        report.marked += 1
        report.markers += len(found)
        for item in found:
            item.created = _iso(when)
        items.extend(found)
    return items


def capture_range(
    dirs: GitDirs, rev_range: str | None = None, *, dry_run: bool = False,
    progress: Progress | None = None, branch: str | None = None,
) -> RangeReport:
    """Capture every marker of the commits of `rev_range`; UsageProblem, before anything
    is written, for a range git cannot read or one on the memory branch."""
    history = History(dirs)
    scanned: list[str] = []
    if rev_range is None:
        head = history.resolve("HEAD")
        report = RangeReport("HEAD", dry_run=dry_run)
        if head is None:
            return report  # an unborn branch: no history to read
        scanned = _load_scanned(dirs)
        tips, hidden = [head], [t for t in scanned if history.resolve(t)]
        report.already_scanned = len(hidden)
    else:
        if not rev_range.strip() or rev_range.startswith("-"):
            raise UsageProblem(f"not a revision or range of commits: {rev_range!r}")
        tips, hidden = history.range_ends(rev_range)
        report = RangeReport(rev_range, dry_run=dry_run)
    for tip in tips:
        if history.is_memory_tip(tip):
            raise UsageProblem(f"{report.described} is the memory branch's history; capture"
                               " reads the commits of your code")
    ids = history.commits(tips, hidden)
    report.commits = len(ids)
    reverting: list[CodeCommit] = []
    named = branch or _branch_for(dirs, history, rev_range, tips)
    items = _items(history, ids, named, report, progress, reverting)
    if items:
        report.outcome = write_entries(
            dirs, items,
            f"memory: capture {len(items)} from {report.marked} commits ({report.described})",
            reinforce_duplicates=False, strict=False, dry_run=dry_run)
    for commit in [] if dry_run else reverting:  # after the entries: a range may hold both
        done = follow_revert(dirs, commit, named)
        if done is not None:
            report.reverts.append(done)
    whole = rev_range is None or ".." not in rev_range
    if whole and not dry_run:
        _save_scanned(dirs, history, tips, scanned or _load_scanned(dirs))
    return report


@dataclass
class MergeCapture:
    """What the post-merge hook captured: from the merge commit, or from a pull's range."""

    what: str  # "the merge" or "N commits the merge brought"
    outcome: WriteOutcome


def capture_after_merge(
    dirs: GitDirs, *, squash: bool, on_pull: bool, via: str = "merge",
) -> MergeCapture | None:
    """The post-merge hook's capture, or None. A squash made no commit (post-commit
    follows). With `on_pull`, the commits HEAD gained (`ORIG_HEAD..HEAD`); otherwise only
    a merge commit this merge made (after a fast-forward HEAD is somebody's commit).
    `via`: "pull" or "merge", for the message."""
    if squash:
        return None
    history = History(dirs)
    head, orig = history.resolve("HEAD"), history.resolve("ORIG_HEAD")
    branch = branch_name(dirs.git_dir)
    if on_pull and head and orig and head != orig and history.descends(head, orig):
        report = capture_range(dirs, f"{orig}..{head}", branch=branch)
        noun = "commit" if report.commits == 1 else "commits"
        return MergeCapture(f"{report.commits} {noun} the {via} brought", report.outcome)
    if not history.merge_made_here():
        return None
    return MergeCapture("the merge commit", capture_commit(dirs, "HEAD"))


def branch_name(git_dir: Path) -> str | None:
    """The checked-out branch, or the one being rebased, or None when detached."""
    for path in (git_dir / "HEAD", git_dir / "rebase-merge" / "head-name",
                 git_dir / "rebase-apply" / "head-name"):
        try:
            text = path.read_text(encoding="utf-8").strip()
        except OSError:
            continue
        text = text[4:].strip() if text.startswith("ref:") else text
        if text.startswith("refs/heads/"):
            return text[len("refs/heads/"):]
    return None


def entries_for_commit(commit: CodeCommit, branch: str | None) -> list[NewEntry]:
    """The entries of one commit's markers."""
    markers = parse_message(commit.message)
    if not markers:
        return []
    paths = commit.paths
    origin: dict[str, object] = {"commit": commit.id, "branch": branch, "paths": paths[:MAX_PATHS]}
    if len(paths) > MAX_PATHS:
        origin["paths_omitted"] = len(paths) - MAX_PATHS
    return [
        NewEntry(
            content=marker.text,
            type=marker.type,
            tags=marker.tags,
            source="commit",
            origin=dict(origin),
            key=marker.key,
            label=f"{commit.id[:12]} line {marker.line}",
        )
        for marker in markers
    ]


def capture_head(dirs: GitDirs) -> tuple[WriteOutcome, RevertOutcome | None]:
    """The post-commit hook's work: HEAD's markers captured, and when HEAD reverts a
    commit, the entries captured from that one flagged (or, for a revert of a revert,
    cleared)."""
    commit = read_commit(dirs, "HEAD")
    branch = branch_name(dirs.git_dir)
    return _capture(dirs, commit, branch), follow_revert(dirs, commit, branch)


def capture_commit(dirs: GitDirs, rev: str = "HEAD") -> WriteOutcome:
    """Capture the markers of commit `rev` in one memory commit. Duplicates are skipped
    without a reinforce record (a rewritten commit adds nothing); a secret or bad marker
    rejects that marker only, in `rejected` (the commit itself already happened)."""
    return _capture(dirs, read_commit(dirs, rev), branch_name(dirs.git_dir))


def _capture(dirs: GitDirs, commit: CodeCommit, branch: str | None) -> WriteOutcome:
    items = entries_for_commit(commit, branch)
    if not items:
        return WriteOutcome()
    return write_entries(dirs, items, f"memory: capture {len(items)} from commit {commit.id[:12]}",
                         reinforce_duplicates=False, strict=False)

"""`Memory.doctor`: the memory branch, the index, leftovers of killed writers, purged blobs
still found, and the agent hooks checked, as one report masked for secrets (`report`)."""

from __future__ import annotations

import hashlib
import mmap
import re
import shlex
from contextlib import closing
from pathlib import Path
from typing import Any

from git_memory.agents.integrations import check as agent_check
from git_memory.curation import proposal_branch
from git_memory.embed import coverage
from git_memory.index import stats
from git_memory.index.db import index_path, open_index, rebuild_damaged
from git_memory.index.files import build_meta, build_path, building, stale_temp_files
from git_memory.index.schema import INDEX_NAME, SCHEMA_VERSION
from git_memory.sanitize.scan import redact_value
from git_memory.store import leftovers
from git_memory.store.branch import MemoryBranch
from git_memory.store.incoming import remembered
from git_memory.store.locate import GitDirs, memory_ref, memory_tip
from git_memory.store.rewrite import LIST_NAME, applied, reaching_refs
from git_memory.store.sources import sources
from git_memory.sync.refspec import check

_ULID = re.compile(r"^[0-9A-HJKMNP-TV-Z]{26}$")
MAX_TRACED = 20  # duplicate groups traced back to the merge that brought them


def report(dirs: GitDirs) -> dict[str, Any]:
    """Every check, with a secret in any path, id or reason replaced (they come from files
    anyone may have written by hand), and `problems`: how many were found."""
    raw = collect(dirs)
    found = redact_value(raw)
    # Our own checksums of blob ids (hex) can hold no secret, but look like random tokens.
    found["index"]["compared"] = raw["index"]["compared"]
    _unmask_ids(raw["duplicate_texts"], found["duplicate_texts"])
    for raw_item, item in zip(raw["purged_leftovers"], found["purged_leftovers"]):
        item["blob"] = raw_item["blob"]  # a blob id we read from a purge record: 40 hex digits
    found["problems"] = problem_count(found)
    return found


def check_build(dirs: GitDirs) -> dict[str, Any]:
    """An index build: running, how far it got, temporary files of killed older builds. Read
    before anything opens the index, which would wait for the build or do it."""
    meta = build_meta(build_path(dirs))
    return {
        "running": building(dirs),
        "partial": bool(meta),  # a build stopped mid-way resumes at the next command
        "done": int(meta.get("build_done", 0) or 0),
        "total": int(meta.get("build_total", 0) or 0),
        "stale_temp_files": [p.name for p in stale_temp_files(dirs)],
    }


def check_leftovers(dirs: GitDirs, build: dict[str, Any]) -> list[dict[str, Any]]:
    """Temporary files of killed writers but the index build's, each with its remover."""
    return [{"path": str(item.path), "bytes": item.size, "what": item.what,
             "remove": f"rm -f -- {shlex.quote(str(item.path))}"}
            for item in leftovers.find(dirs) if item.path.name not in build["stale_temp_files"]]


def collect(dirs: GitDirs) -> dict[str, Any]:
    """Every check, unmasked (`report` is what may be shown)."""
    build = check_build(dirs)
    left = check_leftovers(dirs, build)
    ref = memory_ref(dirs)
    tip = memory_tip(dirs, ref)
    with closing(open_index(dirs)) as index:
        malformed = stats.malformed(index)
        fold_problems = stats.fold_problems(index)
        entries = stats.sizes(index)["entries"]
        flags = stats.flag_count(index)
        duplicate_groups = stats.duplicate_texts(index)
        indexed = stats.indexed_blobs(index)
        stamp = index.stamp
        embedding = coverage.report(dirs, index)
    stray: list[str] = []
    bad_trees: list[dict[str, str]] = []
    duplicates: list[dict[str, Any]] = []
    compared: dict[str, Any] = {"matches": True}
    purged_on_branch: set[str] = set()
    if tip:
        branch = MemoryBranch(dirs)
        stray = branch.stray_files(tip)
        purged_on_branch = set(branch.purge_targets(tip))
        bad_trees = [{"path": p, "reason": r} for p, r in branch.tree_problems(tip)]
        compared = _compare(dirs, [f.blob for f in branch.iter_files(tip)], indexed, stamp == tip)
        if stamp == tip:
            duplicates = duplicate_texts(branch, tip, duplicate_groups)
    refused = [
        {"remote": remote, **item} for remote, items in sorted(remembered(dirs).items())
        for item in items
    ]
    purged = purge_leftovers(dirs, set(applied(dirs)) | purged_on_branch)
    path = index_path(dirs)
    return {
        "remotes": [{"remote": r.remote, "fetches_memory": r.brings, "refspec": r.refspec}
                    for r in check(dirs, ref)],
        "sources": [{"source": s.key, "from": s.label, "ref": s.ref, "tip": s.tip}
                    for s in sources(dirs, ref)],
        "branch": {"ref": ref, "tip": tip},
        "index": {
            "path": str(path), "schema": SCHEMA_VERSION, "stamp": stamp, "current": stamp == tip,
            "bytes": path.stat().st_size if path.exists() else 0, "entries": entries,
            "local_flags": flags, "matches_branch": compared["matches"],
            "compared": compared,
        },
        "build": build,
        "embedding": embedding,
        "leftovers": left,
        "malformed": malformed,
        "fold_problems": fold_problems,
        "stray_files": stray,
        "bad_trees": bad_trees,
        "duplicate_texts": duplicates,
        "refused": refused,
        "purged_leftovers": purged,
        "agent_hooks": [
            {"scope": c.scope, "agent": c.agent, "event": c.event, "command": c.command,
             "problem": c.problem}
            for c in agent_check.check_all(dirs.work_tree, dirs.work_tree or Path.cwd())
        ],
    }


def problem_count(report: dict[str, Any]) -> int:
    return (int(not report["index"]["compared"]["matches"]) + len(report["malformed"])
            + len(report["fold_problems"]) + len(report["stray_files"]) + len(report["bad_trees"])
            + len(report["duplicate_texts"])
            + len(report["refused"]) + len(report["build"]["stale_temp_files"])
            + len(report["purged_leftovers"]) + len(report["leftovers"])
            + sum(1 for remote in report["remotes"] if not remote["fetches_memory"])
            + sum(1 for hook in report["agent_hooks"] if hook["problem"]))


def purge_leftovers(dirs: GitDirs, blobs: set[str]) -> list[dict[str, str]]:
    """Where a purged blob is still found, with the command that removes it: its id in the
    raw bytes of a file under .git/git-memory/ (a stale index row, FTS segment or free page)
    beyond the live purge records naming it (the purge list names them by design), and
    every ref whose history still reaches it."""
    if not blobs:
        return []
    found = []
    folder = dirs.memory_dir
    live = index_path(dirs)
    expected: dict[str, int] = {}
    if live.exists():
        with closing(open_index(dirs)) as index:
            expected = {blob: stats.naming(index, blob) for blob in blobs}
    for path in sorted(p for p in folder.rglob("*") if p.is_file() and p.name != LIST_NAME):
        counts = _occurrences(path, blobs)
        for blob in sorted(blobs):
            if counts.get(blob, 0) > (expected.get(blob, 0) if path == live else 0):
                fix = ("git memory reindex" if path.name.startswith(INDEX_NAME)
                       else f"rm {path}")
                found.append({"blob": blob, "where": str(path.relative_to(folder)), "fix": fix})
    for blob, refs in reaching_refs(dirs, blobs).items():
        for ref in refs:
            fix = ("git memory sync" if ref == memory_ref(dirs) or ref.startswith("refs/remotes/")
                   else f"git update-ref -d {ref}  (or rewrite it)")
            found.append({"blob": blob, "where": ref, "fix": fix})
    return found


def _occurrences(path: Path, blobs: set[str]) -> dict[str, int]:
    """How often each blob's id (hex or raw) is in `path`'s bytes, read through a map."""
    try:
        if path.stat().st_size == 0:
            return {}
        with open(path, "rb") as handle, \
                mmap.mmap(handle.fileno(), 0, access=mmap.ACCESS_READ) as data:
            return {blob: _count(data, blob.encode("ascii")) + _count(data, bytes.fromhex(blob))
                    for blob in blobs}
    except (OSError, ValueError):
        return {}


def _count(data: mmap.mmap, needle: bytes) -> int:
    count, at = 0, data.find(needle)
    while at >= 0:
        count, at = count + 1, data.find(needle, at + 1)
    return count


def duplicate_texts(branch: Any, tip: str, groups: list[list[dict[str, str]]]
                    ) -> list[dict[str, Any]]:
    """Live entries that share a text (the writer never makes them; a plain `git merge` of
    two histories can), each traced to the commit and proposal branch that brought it."""
    found = []
    for number, group in enumerate(groups):
        entries = []
        for item in group:
            entry: dict[str, Any] = {"id": item["id"], "status": item["status"]}
            if number < MAX_TRACED:  # tracing walks history: bounded for a huge backlog
                came = proposal_branch.arrival(branch, tip, item["path"])
                entry.update(commit=came.commit, merge=came.merge, proposal=came.proposal)
            entries.append(entry)
        found.append({"entries": entries,
                      "proposals": sorted({e["proposal"] for e in entries if e.get("proposal")})})
    return found


def _unmask_ids(raw: list[dict[str, Any]], shown: list[dict[str, Any]]) -> None:
    """Our own ids (ULIDs) and commit ids look like random tokens to the secret scan;
    they are put back when they have exactly that shape (a hand-made id may not)."""
    for raw_group, group in zip(raw, shown):
        for raw_entry, entry in zip(raw_group["entries"], group["entries"]):
            if _ULID.match(raw_entry["id"]):
                entry["id"] = raw_entry["id"]
            if raw_entry.get("commit"):
                entry["commit"] = raw_entry["commit"]


def _compare(dirs: GitDirs, branch_blobs: list[str], indexed: list[str],
             current: bool) -> dict[str, Any]:
    """How many record files the index and the branch hold and a checksum of their blob ids:
    a row lost from the index shows here, and the index is then rebuilt."""
    found = {
        "branch_files": len(branch_blobs), "indexed_files": len(indexed),
        "branch_checksum": _checksum(branch_blobs), "index_checksum": _checksum(indexed),
        "rebuilt": False,
    }
    found["matches"] = found["branch_checksum"] == found["index_checksum"]
    if current and not found["matches"]:
        rebuild_damaged(dirs)
        found["rebuilt"] = True
    return found


def _checksum(blobs: list[str]) -> str:
    return hashlib.sha1("\n".join(sorted(blobs)).encode("ascii", "replace")).hexdigest()[:16]

"""`git memory doctor`: check the memory branch and the index, and say what is wrong.

It lists malformed record files (skipped by the index, counted in the
`problems` table), curation records the fold could not apply, stray top-level
files on the branch (a hand edit), the index's own state, and whether each of
our installed agent hooks runs the way the agent runs it (agents/hook_check.py).
The exit code is 0 when nothing is wrong and 1 when a problem was found, so a
script or CI can act on it.
"""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Any

from git_memory import ui
from git_memory.agents import hook_check
from git_memory.index import stats
from git_memory.index.db import index_path, open_index, rebuild_damaged
from git_memory.index.schema import SCHEMA_VERSION
from git_memory.sanitize.scan import redact_value
from git_memory.store.locate import discover, memory_ref, memory_tip


def collect() -> dict[str, Any]:
    dirs = discover()
    ref = memory_ref(dirs)
    tip = memory_tip(dirs, ref)
    index = open_index(dirs)
    try:
        malformed = stats.malformed(index)
        fold_problems = stats.fold_problems(index)
        entries = stats.sizes(index)["entries"]
        flags = stats.flag_count(index)
        stamp = index.stamp
    finally:
        index.close()
    stray: list[str] = []
    compared: dict[str, Any] = {"matches": True}
    if tip:
        from git_memory.store.branch import MemoryBranch

        branch = MemoryBranch(dirs)
        stray = branch.stray_files(tip)
        compared = _compare(dirs, [f.blob for f in branch.iter_files(tip)], stamp == tip)
    from git_memory.store.incoming import remembered

    refused = [
        {"remote": remote, **item} for remote, items in sorted(remembered(dirs).items())
        for item in items
    ]
    path = index_path(dirs)
    return {
        "branch": {"ref": ref, "tip": tip},
        "index": {
            "path": str(path), "schema": SCHEMA_VERSION, "stamp": stamp, "current": stamp == tip,
            "bytes": path.stat().st_size if path.exists() else 0, "entries": entries,
            "local_flags": flags, "matches_branch": compared["matches"],
            "compared": compared,
        },
        "malformed": malformed,
        "fold_problems": fold_problems,
        "stray_files": stray,
        "refused": refused,
        "agent_hooks": [
            {"scope": c.scope, "event": c.event, "command": c.command, "problem": c.problem}
            for c in hook_check.check_all(dirs.work_tree, dirs.work_tree or Path.cwd())
        ],
    }


def problem_count(report: dict[str, Any]) -> int:
    return (int(not report["index"]["compared"]["matches"]) + len(report["malformed"])
            + len(report["fold_problems"]) + len(report["stray_files"])
            + len(report["refused"])
            + sum(1 for hook in report["agent_hooks"] if hook["problem"]))


def _compare(dirs: Any, branch_blobs: list[str], current: bool) -> dict[str, Any]:
    """The index against the branch: how many record files each holds and a checksum
    of their blob ids. A row lost from the index (a hand edit, damage that left the
    file readable) shows here; the index is then rebuilt, so the next reader is right."""
    index = open_index(dirs)
    try:
        indexed = stats.indexed_blobs(index)
    finally:
        index.close()
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


def _shown(path: str) -> str:
    """A path as one printable line: a hand-made name may hold newlines or escapes."""
    return path if path.isprintable() else path.encode("unicode_escape").decode("ascii")


def run(*, as_json: bool) -> int:
    # Paths, ids and reasons come from files anyone may have written by hand: a secret
    # in one (a file name, an id) is replaced before anything is printed.
    raw = collect()
    report = redact_value(raw)
    # Our own checksums of blob ids (hex) can hold no secret, but look like random tokens.
    report["index"]["compared"] = raw["index"]["compared"]
    count = problem_count(report)
    if as_json:
        ui.out_json(report)
        return 1 if count else 0
    branch, index = report["branch"], report["index"]
    if branch["tip"]:
        ui.out(f"ok    memory branch {branch['ref']} at {branch['tip'][:12]}")
    else:
        ui.out(f"note  memory branch {branch['ref']} does not exist yet (git memory init)")
    state = "current" if index["current"] else "behind the branch"
    ui.out(f"ok    index {index['path']} ({ui.plural(index['entries'], 'entry')}, schema {index['schema']}, {state})")
    compared = index["compared"]
    if not compared["matches"]:
        ui.out(f"index differs from the branch: {compared['branch_files']} record files on the"
               f" branch, {compared['indexed_files']} in the index (checksums"
               f" {compared['branch_checksum']} / {compared['index_checksum']})"
               + ("; rebuilt it" if compared["rebuilt"] else ""))
    for item in report["malformed"]:
        ui.out(f"skip  {_shown(item['path'])}: {item['reason']}")
    for problem in report["fold_problems"]:
        ui.out(f"fold  {problem}")
    for name in report["stray_files"]:
        ui.out(f"stray {name} (top level of the memory branch; not a record, ignored)")
    for hook in report["agent_hooks"]:
        where = f"agent hook {hook['event']} ({hook['scope']}): {hook['command']}"
        if hook["problem"]:
            ui.out(f"fail  {where}: {hook['problem']} (reinstall: git memory install --agent claude)")
        else:
            ui.out(f"ok    {where}")
    for item in report["refused"]:
        ui.out(f"unsafe {item['path']!r} from {item['remote']}: {item['reason']}"
               " (left out by the last sync)")
    ui.out(f"{count} problem{'s' if count != 1 else ''} found" if count else "no problems found")
    return 1 if count else 0

"""`git memory doctor`: check the memory branch and the index, and say what is wrong.

It lists malformed record files (skipped by the index, counted in the
`problems` table), curation records the fold could not apply, stray top-level
files on the branch (a hand edit), the index's own state, and whether each of
our installed agent hooks runs the way the agent runs it (agents/hook_check.py).
The exit code is 0 when nothing is wrong and 1 when a problem was found, so a
script or CI can act on it.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from git_memory import ui
from git_memory.agents import hook_check
from git_memory.index import stats
from git_memory.index.db import index_path, open_index
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
    if tip:
        from git_memory.store.branch import MemoryBranch

        stray = MemoryBranch(dirs).stray_files(tip)
    path = index_path(dirs)
    return {
        "branch": {"ref": ref, "tip": tip},
        "index": {
            "path": str(path), "schema": SCHEMA_VERSION, "stamp": stamp, "current": stamp == tip,
            "bytes": path.stat().st_size if path.exists() else 0, "entries": entries,
            "local_flags": flags,
        },
        "malformed": malformed,
        "fold_problems": fold_problems,
        "stray_files": stray,
        "agent_hooks": [
            {"scope": c.scope, "event": c.event, "command": c.command, "problem": c.problem}
            for c in hook_check.check_all(dirs.work_tree, dirs.work_tree or Path.cwd())
        ],
    }


def problem_count(report: dict[str, Any]) -> int:
    return (len(report["malformed"]) + len(report["fold_problems"]) + len(report["stray_files"])
            + sum(1 for hook in report["agent_hooks"] if hook["problem"]))


def run(*, as_json: bool) -> int:
    # Paths, ids and reasons come from files anyone may have written by hand: a secret
    # in one (a file name, an id) is replaced before anything is printed.
    report = redact_value(collect())
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
    for item in report["malformed"]:
        ui.out(f"skip  {item['path']}: {item['reason']}")
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
    ui.out(f"{count} problem{'s' if count != 1 else ''} found" if count else "no problems found")
    return 1 if count else 0

"""`git memory doctor`: what is wrong with the memory branch, the index and the agent hooks
(the checks: `Memory.doctor`, api/health.py); exit 1 when a problem was found."""

from __future__ import annotations

from typing import Any

import click

from git_memory import ui
from git_memory.api.memory import Memory
from git_memory.cli import options
from git_memory.commands.recall_stats import say_vectors


def _duplicate_line(group: dict[str, Any]) -> str:
    parts = []
    for entry in group["entries"]:
        how = ""
        if entry.get("merge"):
            how = f" (merged in {str(entry['commit'])[:10]}"
            how += f" from proposal {entry['proposal']})" if entry.get("proposal") else ")"
        elif entry.get("proposal"):
            how = f" (from proposal {entry['proposal']})"
        parts.append(f"{entry['id']}{how}")
    return ("dup   one text, several live entries: " + ", ".join(parts)
            + " (git memory curate --dry-run proposes merging them)")


def _say_build(build: dict[str, Any]) -> None:
    if build["running"] or build["partial"]:
        total = max(build["total"], build["done"])
        pct = f" ({100 * build['done'] // total}%)" if total else ""
        state = "in progress" if build["running"] else "interrupted (resumes at the next command)"
        ui.out(f"note  index build {state}: {build['done']:,} of about {total:,} record files{pct}")
    for name in build["stale_temp_files"]:
        ui.out(f"stale {name}: a temporary file of a killed index build (the next build removes it)")


def _say_leftovers(items: list[dict[str, Any]]) -> None:
    for item in items:
        ui.out(f"stale {_shown(item['path'])} ({_size(item['bytes'])}): {item['what']}; the next"
               f" `git memory import` removes it, or: {_shown(item['remove'])}")


def _size(count: int) -> str:
    """Bytes for a person: 840 bytes, 12.5 kB, 1.5 MB."""
    if count < 1000:
        return ui.plural(count, "byte")
    if count < 1000 * 1000:
        return f"{count / 1000:.1f} kB"
    return f"{count / 1e6:.1f} MB"


def _shown(path: str) -> str:
    """A path as one printable line: a hand-made name may hold newlines or escapes."""
    return path if path.isprintable() else path.encode("unicode_escape").decode("ascii")


@click.command("doctor")
@options.as_json()
def doctor_cmd(*, as_json: bool) -> int:
    """Check the memory branch, the index and the agent hooks; list malformed records and
    other problems. Exits 1 when it finds any."""
    with Memory() as memory:
        report = memory.doctor()
    count = report.pop("problems")
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
    _say_build(report["build"])
    say_vectors(report["embedding"], "ok    ")
    _say_leftovers(report["leftovers"])
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
    for group in report["duplicate_texts"]:
        ui.out(_duplicate_line(group))
    for item in report["bad_trees"]:
        ui.out(f"tree  {_shown(item['path'])}: {item['reason']}")
    for name in report["stray_files"]:
        ui.out(f"stray {name} (top level of the memory branch; not a record, ignored)")
    for hook in report["agent_hooks"]:
        where = f"agent hook {hook['event']} ({hook['scope']}): {hook['command']}"
        if hook["problem"]:
            ui.out(f"fail  {where}: {hook['problem']} (reinstall: git memory install --agent"
                   f" {hook['agent']})")
        else:
            ui.out(f"ok    {where}")
    for remote in report["remotes"]:
        if remote["fetches_memory"]:
            ui.out(f"ok    remote {remote['remote']} fetches the memory branch")
        else:
            ui.out(f"fail  remote {remote['remote']} does not fetch the memory branch, so teammates'"
                   f" entries stay out of recall (git memory install adds {remote['refspec']})")
    for source in report["sources"]:
        ui.out(f"ok    read-only source {source['from']} ({source['ref']} at {source['tip'][:12]})")
    for item in report["refused"]:
        ui.out(f"unsafe {item['path']!r} from {item['remote']}: {item['reason']}"
               " (left out by the last sync)")
    for item in report["purged_leftovers"]:
        ui.out(f"purge purged blob {item['blob'][:10]} still in {item['where']}"
               f" (run: {item['fix']})")
    ui.out(f"{count} problem{'s' if count != 1 else ''} found" if count else "no problems found")
    return 1 if count else 0

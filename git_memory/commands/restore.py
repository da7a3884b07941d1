"""`git memory import` of a lossless export (a JSON-lines export or an `export DIR` tree).

The records go onto the memory branch as they are, in one commit: same ids, authors,
times, links and paths, so the fold gives the same memory. Records whose id is already
on the branch are left alone (a record never changes once written), so importing the
same export twice adds nothing. Not a writer of new knowledge: no dedup by text, no new
ids, no new authors.
"""

from __future__ import annotations

from git_memory import ui
from git_memory.index.db import open_index
from git_memory.index.entries import known_ids
from git_memory.model import Record
from git_memory.store.branch import MemoryBranch
from git_memory.store.locate import GitDirs


def run(dirs: GitDirs, records: list[Record], *, as_json: bool) -> int:
    index = open_index(dirs)
    try:
        present = known_ids(index, [r.id for r in records])
    finally:
        index.close()
    new = [r for r in records if r.id not in present]
    commit = None
    if new:
        entries = sum(1 for r in new if r.kind == "entry")
        commit = MemoryBranch(dirs).append(
            new, f"memory: restore {ui.plural(len(new), 'record')} from an export"
            f" ({ui.plural(entries, 'entry')})")
        open_index(dirs, progress=ui.progress("indexing")).close()
    entries = sum(1 for r in new if r.kind == "entry")
    summary = {"restored": len(new), "entries": entries, "curation": len(new) - entries,
               "present": len(present), "commit": commit}
    if as_json:
        ui.out_json(summary)
    else:
        ui.out(f"restored {len(new)} record{'' if len(new) == 1 else 's'} ({entries}"
               f" entr{'y' if entries == 1 else 'ies'}), {len(present)} already present")
    return 0

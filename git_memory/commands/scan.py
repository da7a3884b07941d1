"""`git memory scan [REV-RANGE]`: which record of the memory branch holds a secret, and where
(for CI, and for a branch that existed before git-memory's hooks). Exit 1 when any is found."""

from __future__ import annotations

import click

from git_memory import ui
from git_memory.api.memory import Memory
from git_memory.cli import options
from git_memory.githooks.push import MESSAGE, PushFinding
from git_memory.sanitize import secrets_allowlist as allowlist

FOUND = 1


def _line(f: PushFinding) -> str:
    record = f" (record {f.entry_id})" if f.entry_id else ""
    where = f"commit {f.commit[:12]} message" if f.path == MESSAGE else f"{f.path}{record}"
    return f"{where}: {f.where()}: {f.rule} (commit {f.commit[:12]}, sha256 {f.digest})"


@click.command("scan")
@click.argument("rev_range", metavar="[REV-RANGE]", required=False)
@options.as_json()
def scan_cmd(rev_range: str | None, *, as_json: bool = False) -> int:
    """Scan the memory branch for secrets: every record field and commit message.

    Without REV-RANGE, all of its history; with one (`origin/git-memory..git-memory`,
    or a commit and its history), those commits. Names the file, record, field, line and
    rule of each finding, never the value. Exit 1 when anything is found, 0 when clean.
    """
    with allowlist.honoured() as allowance, Memory() as memory:
        read, findings = memory.scan(rev_range)
        allowed = allowlist.take_allowed()
    for rule, hashed, how in allowed:  # said, so that nothing passes silently
        ui.warn(f"allowed: {rule} (sha256 {hashed}) by {how}")
    del allowance
    if as_json:
        ui.out_json([{"path": None if f.path == MESSAGE else f.path, "record": f.entry_id,
                      "field": f.field, "line": f.line, "rule": f.rule, "commit": f.commit,
                      "sha256": f.digest} for f in findings])
    else:
        for finding in findings:
            ui.out(_line(finding))
    count = len(findings)
    noun = "commit" if read == 1 else "commits"
    if count:
        ui.warn(f"{count} secret{'s' if count != 1 else ''} found in {read} {noun}"
                " (values not shown); `git memory redact ID --reason ... && git memory purge"
                " ID --yes` removes a record")
        return FOUND
    ui.warn(f"no secrets found in {read} {noun}")
    return 0

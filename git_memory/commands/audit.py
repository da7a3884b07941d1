"""`git memory audit`: the local sanitizer and hook audit log, newest last."""

from __future__ import annotations

import click

from git_memory import ui
from git_memory.api.memory import Memory
from git_memory.cli import options


@click.command("audit")
@options.limit("Only the last N actions.")
@click.option("--rule", metavar="RULE", help="Only actions of this rule (e.g. shell-debris).")
@options.as_json()
def audit_cmd(*, limit: int | None, rule: str | None, as_json: bool) -> int:
    """Show the local audit log: every sanitizer and hook action, with its rule."""
    with Memory() as memory:
        items = memory.audit(rule=rule)
    if limit:
        items = items[-limit:]
    if as_json:
        ui.out_json(items)
        return 0
    if not items:
        ui.warn("the audit log is empty")
        return 0
    for item in items:
        where = " ".join(part for part in (item["source"], item["ref"]) if part)
        where = f" [{where}]" if where else ""
        detail = f": {item['detail']}" if item["detail"] else ""
        ui.out(f"{item['time']}  {item['rule']} {item['action']}{where}{detail}")
    return 0

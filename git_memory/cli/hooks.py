"""Click commands of the hooks area: install, uninstall, hook, capture, audit, scan.

Each one parses its options and hands them to its module in `commands/`.
May import click, `cli.options` and `commands`.
"""

from __future__ import annotations

import sys

import click

from git_memory.cli import options

_AGENT_HELP = "An agent's hooks and MCP server instead of git hooks."


@click.command("install")
@click.option("--hooks", metavar="A,B", help=options.HOOKS_HELP)
@click.option("--auto-sync/--no-auto-sync", "auto_sync", default=None,
              help="Also set memory.autoSync, so a plain `git push` syncs the memory branch"
              " (off unless asked).")
@options.agent(None, _AGENT_HELP)
@options.scope("With --agent, ")
@click.option("--remove", is_flag=True, help="With --agent, take ours out again (the files as"
              " they were before install, byte for byte, unless edited since).")
def install_cmd(hooks: str | None, auto_sync: bool | None, agent: str | None, scope: str,
                remove: bool) -> None:
    """Install the git hook shims (idempotent; an existing hook is kept and chained).

    With --agent NAME, merge our hooks and MCP server into that agent's configuration
    instead."""
    if remove and not agent:
        raise click.UsageError("--remove goes with --agent; for git hooks use uninstall")
    if agent:
        from git_memory.commands import agent_install

        sys.exit(agent_install.run(scope=scope, remove=remove, agent=agent))
    from git_memory.commands import install

    sys.exit(install.run(hooks=hooks, auto_sync=auto_sync))


@click.command("uninstall")
@click.option("--hooks", metavar="A,B", help=options.HOOKS_HELP)
@options.agent(None, _AGENT_HELP)
@options.scope("With --agent, ")
def uninstall_cmd(hooks: str | None, agent: str | None, scope: str) -> None:
    """Remove the git hook shims and put back any hook they chained.

    With --agent NAME, take ours out of that agent's configuration."""
    if agent:
        from git_memory.commands import agent_install

        sys.exit(agent_install.run(scope=scope, remove=True, agent=agent))
    from git_memory.commands import uninstall

    sys.exit(uninstall.run(hooks=hooks))


@click.command("hook", context_settings={"ignore_unknown_options": True})
@click.argument("name", metavar="NAME")
@click.argument("args", nargs=-1, type=click.UNPROCESSED)
def hook_cmd(name: str, args: tuple[str, ...]) -> None:
    """Run one git hook's work (what the installed shims and pre-commit call)."""
    from git_memory.commands import hook

    sys.exit(hook.run(name, list(args)))


@click.command("capture")
@click.argument("rev_range", metavar="[REV-RANGE]", required=False)
@click.option("--dry-run", is_flag=True, help="Say what would be captured; write nothing.")
@options.as_json()
def capture_cmd(rev_range: str | None, dry_run: bool, as_json: bool) -> None:
    """Capture the knowledge markers of commits already made (backfill, after a pull, CI).

    REV-RANGE is `A..B` (B's history less A's, e.g. main~20..main or <before>..<after>),
    `A...B`, or one revision and its whole history. Without it: HEAD's history less what
    an earlier `git memory capture` in this clone already read. Markers go through the same
    checks as the post-commit hook (secrets refused, audit log); an entry is keyed by its
    commit's marker text, so a second run, or a run over commits the hooks captured, adds
    nothing and counts them as already there. Exit 2 for a range git cannot read.
    """
    from git_memory.commands import capture

    sys.exit(capture.run(rev_range, dry_run=dry_run, as_json=as_json))


@click.command("audit")
@options.limit("Only the last N actions.")
@click.option("--rule", metavar="RULE", help="Only actions of this rule (e.g. shell-debris).")
@options.as_json()
def audit_cmd(limit: int | None, rule: str | None, as_json: bool) -> None:
    """Show the local audit log: every sanitizer and hook action, with its rule."""
    from git_memory.commands import audit

    sys.exit(audit.run(limit=limit, rule=rule, as_json=as_json))


@click.command("scan")
@click.argument("rev_range", metavar="[REV-RANGE]", required=False)
@options.as_json()
def scan_cmd(rev_range: str | None, as_json: bool) -> None:
    """Scan the memory branch for secrets: every record field and commit message.

    Without REV-RANGE, all of its history; with one (`origin/git-memory..git-memory`,
    or a commit and its history), those commits. Names the file, record, field, line and
    rule of each finding, never the value. Exit 1 when anything is found, 0 when clean.
    """
    from git_memory.commands import scan

    sys.exit(scan.run(rev_range, as_json=as_json))


COMMANDS = (install_cmd, uninstall_cmd, hook_cmd, capture_cmd, audit_cmd, scan_cmd)


def register(group: click.Group) -> None:
    for command in COMMANDS:
        group.add_command(command)

"""What an agent is shown never holds a secret, even one that reached the branch unscanned.

The writer refuses secrets, but a record committed by hand with plain git (or read from a
remote's copy after a plain `git pull`) was never scanned. Every path that feeds an agent
(the SessionStart `context`, `recall --format agent`, the MCP server's tools) cleans text
with `agents.wrap.clean_for_agent`, which masks it."""

from __future__ import annotations

import json

from conftest import out
from rawcommit import commit_unscanned

from git_memory.commands.mcp_tools import Tools
from git_memory.store.locate import discover

TOKEN = "ghp_" + "aB3dE5fG7hJ9kL1mN3pQ5rS7tU9vW1xY3zA5"  # made up, a GitHub token's shape
PASSWORD = "Pl4in_s3cr3t_v4lue"  # made up


def _leak(git_repo, gm) -> None:
    assert gm("add", "LEARNED: the flamingo mirror is read only").returncode == 0
    commit_unscanned(git_repo, f"flamingo mirror pushes with {TOKEN}\npassword: \"{PASSWORD}\"")


def test_context_and_agent_recall_mask_a_secret_committed_by_hand(git_repo, gm):
    _leak(git_repo, gm)
    assert TOKEN in out(gm("recall", "--json", "flamingo mirror"))  # stored as it came
    for args in (("context", "--format", "claude"), ("recall", "--format", "agent", "flamingo mirror")):
        shown = out(gm(*args))
        assert "flamingo mirror pushes with" in shown, args  # the entry itself is shown
        assert TOKEN not in shown and PASSWORD not in shown, args
        assert "[REDACTED:" in shown, args


def test_the_mcp_tools_mask_it_too(git_repo, gm):
    _leak(git_repo, gm)
    memory = Tools(discover(str(git_repo)))
    answer = json.dumps(memory.recall("flamingo mirror"))
    assert "flamingo mirror pushes with" in answer
    assert TOKEN not in answer and PASSWORD not in answer and "[REDACTED:" in answer
    context = json.dumps(memory.context())
    assert TOKEN not in context and PASSWORD not in context

"""Claude Code's PreCompact hook captures before the conversation is summarised, and the
Stop hook afterwards adds nothing twice (issue 14, must-show 3)."""

from __future__ import annotations

import json

from conftest import err, out, tip
from agents_support import _payload
from agents_support import TWO, _lines, _session_entries, _with_two_learned


def test_precompact_captures_both_markers_and_stop_adds_nothing_twice(git_repo, gm, tmp_path):
    copy = _with_two_learned(tmp_path)
    payload = json.loads(_payload(copy, git_repo, "PreCompact"))
    del payload["stop_hook_active"]
    payload.update(trigger="auto", custom_instructions="")
    first = gm("session", "hook", input=json.dumps(payload))
    assert first.returncode == 0, err(first)
    assert out(first) == "" and "2 new" in err(first)
    assert sorted(e["content"] for e in _session_entries(gm)) == sorted(
        t.split(": ", 1)[1] for t in TWO)
    before = tip(git_repo)
    # What compaction leaves in the same file: a boundary and a summary that repeats the
    # markers (flagged isCompactSummary), then the conversation goes on.
    last = _lines(copy)[-1]
    summary = {**last, "type": "user", "isCompactSummary": True, "uuid": "c0mpact",
               "message": {"role": "user", "content": "Summary of the session:\n" + "\n".join(TWO)}}
    with copy.open("a", encoding="utf-8") as handle:
        handle.write(json.dumps({"type": "system", "subtype": "compact_boundary",
                                 "content": "Conversation compacted"}) + "\n")
        handle.write(json.dumps(summary) + "\n")
    stop = gm("session", "hook", input=_payload(copy, git_repo, "Stop"))
    assert stop.returncode == 0, err(stop)
    assert tip(git_repo) == before  # nothing written: both markers were already captured
    assert len(_session_entries(gm)) == 2


def test_install_hooks_precompact_with_the_session_hook(git_repo, gm):
    assert gm("install", "--agent", "claude").returncode == 0
    data = json.loads((git_repo / ".claude" / "settings.json").read_text(encoding="utf-8"))
    commands = [h["command"] for g in data["hooks"]["PreCompact"] for h in g["hooks"]]
    assert len(commands) == 1 and commands[0].endswith("session hook")

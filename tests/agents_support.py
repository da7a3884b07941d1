"""Helpers shared by the agent-area tests (no tests here): where the transcripts live, a real
transcript with two markers added, a hook payload, a fake distillation command.

The Claude Code transcripts are copies kept in tests/data (see its README), so the tests
run the same in a fresh clone.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from conftest import DATA, err, git, out

TRANSCRIPTS = DATA / "claude-code-transcripts"


IDEAS = TRANSCRIPTS / "-experiments-ideas" / "03eb5929-52b3-4b13-ada3-b93ae35806b8.jsonl"


HEADLESS = sorted((TRANSCRIPTS / "-src-experiments-claude_p").glob("*.jsonl"))


TWO = ["LEARNED: the docs split needs an owner per folder",
       "LEARNED: work/ documents go stale within a sprint"]


def _lines(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line]


def _write(path: Path, records: list[dict], extra_raw: list[str] = ()) -> Path:
    text = "".join(json.dumps(r) + "\n" for r in records) + "".join(extra_raw)
    path.write_text(text, encoding="utf-8")
    return path


def _with_two_learned(tmp: Path) -> Path:
    """The real transcript, two LEARNED: lines appended to one assistant text block."""
    records = _lines(IDEAS)
    target = next(r for r in records if r.get("type") == "assistant"
                  and r["message"]["id"] == "msg_017zBSoLmTCZWWh3ARsjYcpf")
    block = next(b for b in target["message"]["content"] if b["type"] == "text")
    block["text"] += "\n\n" + "\n".join(TWO)
    return _write(tmp / IDEAS.name, records)


def _session_entries(gm) -> list[dict]:
    return [e for e in json.loads(out(gm("list", "--json"))) if e["source"] == "session"]


def _payload(path, cwd, event="Stop") -> str:
    return json.dumps({
        "session_id": "03eb5929-52b3-4b13-ada3-b93ae35806b8",
        "transcript_path": str(path),
        "cwd": str(cwd),
        "hook_event_name": event,
        "permission_mode": "default",
        "stop_hook_active": False,
    })


def _reinforce_files(repo: Path) -> list[str]:
    names = git("ls-tree", "-r", "--name-only", "git-memory", cwd=repo).splitlines()
    return [n for n in names if n.split("/")[-1].startswith("reinforce-")]


def _session_copy(tmp: Path, sid: str, extra_user: str = "") -> Path:
    records = _lines(_with_two_learned(tmp))
    for record in records:
        if "sessionId" in record:
            record["sessionId"] = sid
    if extra_user:
        base = next(r for r in records if r.get("type") == "user")
        records.append({**base, "message": {"role": "user", "content": extra_user}})
    return _write(tmp / f"{sid}.jsonl", records)


FAKE = r'''
import os, sys
here = os.path.dirname(os.path.abspath(__file__))
data = sys.stdin.read()
count = len([n for n in os.listdir(here) if n.startswith("prompt-")])
open(os.path.join(here, "prompt-%d.txt" % count), "w").write(data)
print(open(os.path.join(here, "answer.json")).read())
'''


def _fake(repo: Path, tmp: Path, answer: dict) -> Path:
    fake = tmp / "fake"
    fake.mkdir(exist_ok=True)
    (fake / "llm.py").write_text(FAKE, encoding="utf-8")
    (fake / "answer.json").write_text(json.dumps(answer), encoding="utf-8")
    git("config", "memory.distillCommand", f"{sys.executable} {fake / 'llm.py'}", cwd=repo)
    git("config", "memory.distillMinMessages", "2", cwd=repo)
    git("config", "memory.distillMinUserChars", "10", cwd=repo)
    return fake


def _distil(gm, repo: Path, transcript: Path, name: str = "task") -> str:
    queue = repo / ".git" / "git-memory" / "distill" / "queue"
    queue.mkdir(parents=True, exist_ok=True)
    (queue / f"{name}.json").write_text(json.dumps({"transcript_path": str(transcript)}))
    result = gm("session", "worker")
    assert result.returncode == 0, err(result)
    assert "done" in out(result), out(result)
    return out(result)

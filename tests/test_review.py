"""`git memory review` and `list --status` (issue #15, point 3).

A queue of five waiting entries (three distilled by the real worker from a fake LLM, one
flagged needs_review, one whose confidence fell under 0.35), reviewed by a person with
another git identity: from scripts with the subcommands, and interactively through a
real pseudo-terminal with git's editor. Every decision must leave its record on the
memory branch with the reviewer as author.
"""

from __future__ import annotations

import json
import os
import pty
import select
import subprocess
import sys
import time
from pathlib import Path

import pytest

from conftest import err, git, out, tip
from agents_support import _session_copy
from agents_support import _distil, _fake

from git_memory.model import new_id

REVIEWER = {"GIT_AUTHOR_NAME": "Rita Reviewer", "GIT_AUTHOR_EMAIL": "rita@example.com",
            "GIT_COMMITTER_NAME": "Rita Reviewer", "GIT_COMMITTER_EMAIL": "rita@example.com"}
RITA = "Rita Reviewer <rita@example.com>"
BY_RITA = f'author: "{RITA}"'  # as the record's front matter says it
LEARNINGS = ["Release notes are drafted from the merged pull request titles",
             "The staging database is reset every Monday at six",
             "Feature flags live in config/flags.yaml and nowhere else"]


def _add(gm, text: str) -> str:
    result = gm("add", text)
    assert result.returncode == 0, err(result)
    return out(result).strip()


def _queue_through_the_tools(gm, repo: Path, tmp: Path) -> list[str]:
    """Five waiting entries made by the real tools (the distill worker, flag, contradict),
    oldest first, and one that is not waiting."""
    _add(gm, "FACT: the build runs on Python 3.11")  # a person wrote it: not waiting
    _fake(repo, tmp, {"learnings": LEARNINGS})
    _distil(gm, repo, _session_copy(tmp, "queue001-s"))
    flagged = _add(gm, "DECISION: we tag releases from main only")
    assert gm("flag", flagged, "--status", "needs_review", "--reason", "check it").returncode == 0
    doubtful = _add(gm, "FACT: the cache expires after ten minutes")
    for n in range(3):  # 0.80 - 3 x 0.20: under 0.35
        assert gm("contradict", doubtful, "--reason", f"measured {n}").returncode == 0
    return [e["id"] for e in json.loads(out(gm("review", "--json")))]


def _queue_of_five(gm, repo: Path, tmp: Path) -> list[str]:
    """The same memory as `_queue_through_the_tools`, restored from an export in one
    process (the machine is shared: six processes fewer per test). Oldest first."""
    ids = [new_id(1_700_000_000_000 + n * 1000) for n in range(6)]
    person = "Test User <test@example.com>"

    def entry(n: int, kind: str, text: str, source: str, **fields: object) -> dict:
        return {"id": ids[n], "kind": "entry", "type": kind, "content": text, "tags": [],
                "created": f"2026-01-0{n + 1}T00:00:00Z", "author": person, "source": source,
                "origin": {"session": "queue001-s"} if source == "distill" else {},
                "key": None, "fields": dict(fields)}

    def event(n: int, kind: str, target: int, **fields: object) -> dict:
        return {"id": new_id(1_700_100_000_000 + n * 1000), "kind": kind, "type": None,
                "content": "", "tags": [], "created": f"2026-01-1{n}T00:00:00Z",
                "author": person, "source": "manual", "origin": {}, "key": None,
                "fields": {"target": ids[target], "review_reason": "set up", **fields}}

    lines = [entry(0, "fact", "the build runs on Python 3.11", "manual")]
    lines += [entry(1 + n, "learned", text, "distill", status="needs_review")
              for n, text in enumerate(LEARNINGS)]
    lines += [entry(4, "decision", "we tag releases from main only", "manual"),
              entry(5, "fact", "the cache expires after ten minutes", "manual"),
              event(0, "status", 4, status="needs_review")]
    lines += [event(1 + n, "contradict", 5) for n in range(3)]
    header = {"git_memory_export": 1, "records": len(lines), "ref": "refs/heads/git-memory"}
    export = tmp / "queue.jsonl"
    export.write_text("".join(json.dumps(x) + "\n" for x in [header, *lines]), encoding="utf-8")
    result = gm("import", str(export))
    assert result.returncode == 0, err(result)
    return ids[1:]


def _content(gm, entry: str) -> str:
    return json.loads(out(gm("show", entry, "--json")))["content"]


def _record(repo: Path, kind: str, target: str) -> str:
    """The one record file of `kind` aimed at `target` that a review wrote."""
    names = git("ls-tree", "-r", "--name-only", "git-memory", cwd=repo).splitlines()
    found = []
    for name in names:
        if name.split("/")[-1].startswith(f"{kind}-"):
            text = git("show", f"git-memory:{name}", cwd=repo)
            if f"target: {target}" in text and "source: review" in text:
                found.append(text)
    assert len(found) == 1, (kind, target, found)
    return found[0]


def _status(gm, entry: str) -> str:
    return json.loads(out(gm("show", entry, "--json")))["status"]


@pytest.mark.slow
def test_the_queue_lists_what_waits_oldest_first(git_repo, gm, tmp_path):
    ids = _queue_through_the_tools(gm, git_repo, tmp_path)
    queue = json.loads(out(gm("review", "--json")))
    assert len(ids) == 5
    assert [e["created"] for e in queue] == sorted(e["created"] for e in queue)
    assert sorted(e["content"] for e in queue[:3]) == sorted(LEARNINGS)  # one second: by id
    assert all("distilled" in e["waiting"] and "needs review" in e["waiting"] for e in queue[:3])
    assert queue[3]["waiting"] == ["needs review"]
    assert queue[4]["waiting"][0].startswith("low confidence 0.2")
    assert "the build runs on Python" not in out(gm("review", "--json"))
    # Not a terminal and no subcommand: the queue is printed, nothing is asked or written.
    before = tip(git_repo)
    listed = gm("review", input="a\na\na\n")
    assert listed.returncode == 0, err(listed)
    assert "5 entries waiting for review, oldest first:" in out(listed)
    assert all(i[-8:].lower() in out(listed) for i in ids)
    assert tip(git_repo) == before
    statuses = json.loads(out(gm("list", "--status", "needs_review", "--json")))
    assert sorted(e["id"] for e in statuses) == sorted(ids[:4])


def test_the_restored_queue_lists_the_same(git_repo, gm, tmp_path):
    ids = _queue_of_five(gm, git_repo, tmp_path)
    queue = json.loads(out(gm("review", "--json")))
    assert [e["id"] for e in queue] == ids
    # distilled: 0.40, less 0.10 while it needs review
    assert [e["waiting"] for e in queue[:4]] == [
        ["needs review", "distilled", "low confidence 0.30"]] * 3 + [["needs review"]]
    assert queue[4]["waiting"] == ["low confidence 0.20"]
    listed = gm("review", input="a\n")
    assert "5 entries waiting for review, oldest first:" in out(listed)


def test_scripted_accept_edit_reject_leave_records_by_the_reviewer(git_repo, gm, tmp_path):
    ids = _queue_of_five(gm, git_repo, tmp_path)
    accepted = gm("review", "accept", ids[0][-8:], env=REVIEWER)
    assert accepted.returncode == 0, err(accepted)
    record = _record(git_repo, "status", ids[0])
    assert BY_RITA in record and "status: canonical" in record
    assert "accepted in review" in record
    assert git("log", "-1", "--format=%an <%ae>%n%B", "git-memory", cwd=git_repo).startswith(RITA)

    new_text = "Release notes are drafted from the merged pull requests' titles and labels"
    edited = gm("review", "edit", ids[1], "--text", new_text, "--reason", "labels too",
                env=REVIEWER)
    assert edited.returncode == 0, err(edited)
    supersede = _record(git_repo, "supersede", ids[1])
    assert BY_RITA in supersede and "labels too" in supersede
    shown = json.loads(out(gm("show", ids[1], "--json")))
    assert shown["status"] == "superseded"
    replacement = json.loads(out(gm("show", shown["superseded_by"][0], "--json")))
    assert replacement["content"] == new_text and replacement["status"] == "canonical"
    assert replacement["author"] == RITA and replacement["type"] == "learned"

    gone = _content(gm, ids[2])
    rejected = gm("review", "reject", ids[2], "--reason", "not true here", env=REVIEWER)
    assert rejected.returncode == 0, err(rejected)
    redact = _record(git_repo, "redact", ids[2])
    assert BY_RITA in redact and "rejected in review: not true here" in redact
    assert gone not in out(gm("list", "--json"))
    assert gone not in [e["content"] for e in json.loads(out(gm("recall", "--json", gone)))]
    assert any(e["id"] == ids[2] for e in json.loads(out(gm("list", "--status", "redacted",
                                                            "--json"))))
    # What is left: the flagged entry and the doubtful one; only the first needs review.
    left = [e["id"] for e in json.loads(out(gm("review", "--json")))]
    assert left == ids[3:]
    needs = json.loads(out(gm("list", "--status", "needs_review", "--json")))
    assert [e["id"] for e in needs] == [ids[3]]
    both = json.loads(out(gm("list", "--status", "canonical", "--status", "superseded",
                             "--json")))
    assert {e["id"] for e in both} == {ids[0], ids[1], replacement["id"]}


def test_accept_takes_several_ids_in_one_commit(git_repo, gm, tmp_path):
    ids = _queue_of_five(gm, git_repo, tmp_path)
    before = int(git("rev-list", "--count", "git-memory", cwd=git_repo))
    result = gm("review", "accept", ids[0], ids[3], ids[3], "--reason", "both checked",
                env=REVIEWER)
    assert result.returncode == 0, err(result)
    assert int(git("rev-list", "--count", "git-memory", cwd=git_repo)) == before + 1
    assert {_status(gm, ids[0]), _status(gm, ids[3])} == {"canonical"}
    assert "both checked" in _record(git_repo, "status", ids[0])


def test_bad_input_is_one_line_and_writes_nothing(git_repo, gm, tmp_path):
    ids = _queue_of_five(gm, git_repo, tmp_path)
    assert gm("review", "reject", ids[4], "--reason", "wrong").returncode == 0
    before = tip(git_repo)
    cases = [
        (("review", "accept", ids[0], "nosuchid"), 1, "error: no entry 'nosuchid'"),
        (("review", "accept", ids[0], ids[4]), 1, f"entry {ids[4][-8:].lower()} is redacted"),
        (("review", "edit", ids[0], "--text", _content(gm, ids[0])), 1, "same as the old"),
        (("review", "edit", ids[0], "--text", "  "), 1, "--text is empty"),
        (("review", "reject", ids[0]), 2, "--reason"),
        (("review", "reject", ids[0], "--reason", "key " + "AKIA" + "Q" * 16), 1,
         "contains a secret"),
        (("list", "--status", "pending"), 2, "error: unknown status 'pending'; expected one"
         " of: active, canonical, needs_review, superseded, redacted"),
    ]
    for args, code, message in cases:
        result = gm(*args)
        assert result.returncode == code, (args, err(result))
        assert message in err(result), (args, err(result))
        if code == 1:
            assert len(err(result).strip().splitlines()) == 1, err(result)
    assert "AKIA" not in err(gm("review", "reject", ids[0], "--reason", "AKIA" + "Q" * 16))
    assert tip(git_repo) == before


def test_an_edit_saying_what_another_entry_says_supersedes_by_it(git_repo, gm, tmp_path):
    ids = _queue_of_five(gm, git_repo, tmp_path)
    result = gm("review", "edit", ids[0], "--text", "The build  runs on Python 3.11.")
    assert result.returncode == 0, err(result)
    build = next(e for e in json.loads(out(gm("list", "--json")))
                 if e["content"] == "the build runs on Python 3.11")
    assert json.loads(out(gm("show", ids[0], "--json")))["superseded_by"] == [build["id"]]


# -- interactive, through a real pseudo-terminal -------------------------------------

EDITOR = r'''
import sys
path = sys.argv[1]
old = open(path).read()
assert "# Edit the entry's text" in old
open(path, "w").write("The staging database is reset every Monday at seven\n# gone\n")
'''


class Terminal:
    """`git memory review` on a pseudo-terminal: read until a prompt, answer it."""

    def __init__(self, cwd: Path, env: dict[str, str]) -> None:
        self.master, slave = pty.openpty()
        self.proc = subprocess.Popen(["git", "memory", "review"], cwd=cwd, env=env,
                                     stdin=slave, stdout=slave, stderr=slave, close_fds=True)
        os.close(slave)
        self.seen = ""

    def until(self, text: str, seconds: float = 60) -> str:
        end = time.monotonic() + seconds
        while text not in self.seen:
            if time.monotonic() > end:
                raise AssertionError(f"never saw {text!r} in:\n{self.seen}")
            ready, _, _ = select.select([self.master], [], [], 0.2)
            if ready:
                try:
                    chunk = os.read(self.master, 4096)
                except OSError:
                    chunk = b""
                if not chunk and self.proc.poll() is not None:
                    raise AssertionError(f"ended before {text!r}:\n{self.seen}")
                self.seen += chunk.decode("utf-8", "replace")
        found, self.seen = self.seen, self.seen[self.seen.index(text) + len(text):]
        return found

    def answer(self, text: str) -> None:
        os.write(self.master, (text + "\n").encode())

    def finish(self) -> int:
        try:
            while True:
                ready, _, _ = select.select([self.master], [], [], 0.2)
                if ready and not os.read(self.master, 4096):
                    break
                if not ready and self.proc.poll() is not None:
                    break
        except OSError:
            pass
        os.close(self.master)
        return self.proc.wait(timeout=60)


@pytest.mark.skipif(sys.platform != "linux", reason="pty driving is tested on Linux")
def test_interactive_review_on_a_terminal(git_repo, gm, tmp_path):
    ids = _queue_of_five(gm, git_repo, tmp_path)
    editor = tmp_path / "editor.py"
    editor.write_text(EDITOR, encoding="utf-8")
    env = {**os.environ, **REVIEWER, "GIT_EDITOR": f"{sys.executable} {editor}",
           "TERM": "xterm"}
    term = Terminal(git_repo, env)
    question = "[a]ccept, [e]dit, [r]eject, [s]kip, [q]uit?"
    texts = [_content(gm, i) for i in ids]
    shown = term.until(question)
    assert "[1/5]" in shown and texts[0] in shown
    term.answer("x")  # not a choice: asked again
    term.until(question)
    term.answer("a")
    assert texts[1] in term.until(question)
    term.answer("e")
    assert texts[2] in term.until(question)
    term.answer("r")
    term.until("Why reject it?")
    term.answer("only true on the old cluster")
    assert "[4/5]" in term.until(question)
    term.answer("s")
    assert "[5/5]" in term.until(question)
    term.answer("q")
    assert "1 accepted, 1 edited, 1 rejected, 1 skipped" in term.until("skipped")
    assert term.finish() == 0

    assert BY_RITA in _record(git_repo, "status", ids[0])
    assert _status(gm, ids[0]) == "canonical"
    supersede = _record(git_repo, "supersede", ids[1])
    assert BY_RITA in supersede and "edited in review" in supersede
    new = json.loads(out(gm("show", ids[1], "--json")))["superseded_by"][0]
    assert json.loads(out(gm("show", new, "--json")))["content"] == (
        "The staging database is reset every Monday at seven")
    redact = _record(git_repo, "redact", ids[2])
    assert BY_RITA in redact and "only true on the old cluster" in redact
    left = [e["id"] for e in json.loads(out(gm("review", "--json")))]
    assert left == ids[3:]
    assert [e["id"] for e in json.loads(out(gm("list", "--status", "needs_review",
                                                "--json")))] == [ids[3]]


def test_edit_without_text_opens_the_editor_git_would_use(git_repo, gm, tmp_path):
    """core.editor (as git resolves it; GIT_EDITOR unset), an editor setting with an
    argument, run through sh as git runs it; an unchanged text writes nothing."""
    ids = _queue_of_five(gm, git_repo, tmp_path)
    editor = tmp_path / "editor.py"
    editor.write_text(EDITOR, encoding="utf-8")
    git("config", "core.editor", f"{sys.executable} {editor} --ignored-flag", cwd=git_repo)
    EDITOR_TAKES_LAST = editor.read_text().replace("sys.argv[1]", "sys.argv[-1]")
    editor.write_text(EDITOR_TAKES_LAST, encoding="utf-8")
    result = gm("review", "edit", ids[3], env=REVIEWER)
    assert result.returncode == 0, err(result)
    new = json.loads(out(gm("show", ids[3], "--json")))["superseded_by"][0]
    assert _content(gm, new) == "The staging database is reset every Monday at seven"
    git("config", "core.editor", "true", cwd=git_repo)  # saves the file as it was
    before = tip(git_repo)
    unchanged = gm("review", "edit", ids[0])
    assert unchanged.returncode == 0 and "unchanged; nothing written" in err(unchanged)
    assert tip(git_repo) == before

"""Capture from any commit: the post-merge hook (a merge commit's markers; with
memory.captureOnPull, what a pull brought) and `git memory capture [REV-RANGE]` (backfill),
idempotent by commit and marker. Real git, real hooks from `git memory install`, real remotes."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest

from conftest import err, git, make_repo, out, tip
from ptyread import drain
from hooks_support import audit_items, commit, entries, fake_aws_key, head

SYNC = {"GIT_MEMORY_HOOK_SYNC": "1"}  # the detached anchor half of post-merge runs inline


def quiet_commit(repo: Path, message: str | bytes, *files: str,
                 config: tuple[str, ...] = ()) -> str:
    """A commit made with no hooks at all (a teammate without git-memory); its id."""
    for name in files:
        path = repo / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(f"{name} {os.urandom(4).hex()}\n", encoding="utf-8")
        git("add", name, cwd=repo)
    data = message if isinstance(message, bytes) else message.encode("utf-8")
    args = ["git", "-c", "core.hooksPath=/nonexistent", *config, "commit", "-q", "-F", "-"]
    result = subprocess.run(args + ([] if files else ["--allow-empty"]), cwd=repo, input=data,
                            capture_output=True)
    assert result.returncode == 0, result.stderr
    return head(repo)


def run_git(*args: str, cwd: Path, env: dict[str, str] | None = None) -> subprocess.CompletedProcess:
    """git with its hooks, keeping what they print."""
    result = subprocess.run(["git", *args], cwd=cwd, capture_output=True, text=True,
                            env={**os.environ, **SYNC, **(env or {})})
    assert result.returncode == 0, result.stderr
    return result


def captured(result: subprocess.CompletedProcess) -> str:
    """The summary line `capture` writes to standard error."""
    return err(result).strip().splitlines()[-1]


def memory_commits(repo: Path) -> list[str]:
    return git("log", "--format=%s", "git-memory", cwd=repo).splitlines()


# -- post-merge ----------------------------------------------------------------------------

def test_markers_of_a_clean_no_ff_merge_are_captured_by_post_merge(git_repo: Path, gm) -> None:
    assert gm("install").returncode == 0
    git("checkout", "-q", "-b", "topic", cwd=git_repo)
    commit(git_repo, "topic work", "src/topic.py")
    git("checkout", "-q", "main", cwd=git_repo)
    commit(git_repo, "main work", "src/main.py")
    done = run_git("merge", "--no-ff", "-m",
                   "Merge topic\n\nDECISION: merge commits keep their knowledge #merge\n"
                   "Learned: a trailer on a merge counts too", "topic", cwd=git_repo)
    assert "git-memory: captured 2 entries from the merge commit" in done.stderr
    merge = head(git_repo)
    found = {e["type"]: e for e in entries(git_repo)}
    assert sorted(found) == ["decision", "learned"]
    decision = found["decision"]
    assert decision["content"] == "merge commits keep their knowledge"
    assert decision["tags"] == ["merge"]
    assert decision["origin"] == {"commit": merge, "branch": "main", "paths": ["src/topic.py"]}
    # One memory commit, and running the hook again (as git would not) adds nothing.
    assert sum("capture" in s for s in memory_commits(git_repo)) == 1
    before = tip(git_repo)
    assert gm("hook", "post-merge", "0", env=SYNC).returncode == 0
    assert tip(git_repo) == before


def test_fast_forward_squash_and_conflicts_capture_each_commit_once(git_repo: Path, gm) -> None:
    """post-merge after a fast-forward: HEAD is not a new commit, nothing is captured (a
    fast-forward onto a merge someone made from our tip included). A squash merge makes
    no commit; the `git commit` after it captures. A merge stopped by conflicts is
    concluded by `git commit`, whose post-commit captures it, once."""
    assert gm("install").returncode == 0
    git("checkout", "-q", "-b", "topic", cwd=git_repo)
    quiet_commit(git_repo, "LEARNED: made without hooks on topic", "t.py")
    git("checkout", "-q", "main", cwd=git_repo)
    run_git("merge", "-q", "topic", cwd=git_repo)  # a fast-forward
    # A merge made elsewhere whose first parent is our tip, fast-forwarded to.
    git("checkout", "-q", "-b", "elsewhere", cwd=git_repo)
    git("checkout", "-q", "-b", "side", "HEAD~1", cwd=git_repo)
    quiet_commit(git_repo, "side", "s.py")
    git("checkout", "-q", "elsewhere", cwd=git_repo)
    git("-c", "core.hooksPath=/nonexistent", "merge", "-q", "--no-ff", "-m",
        "FACT: a merge made without hooks", "side", cwd=git_repo)
    git("checkout", "-q", "main", cwd=git_repo)
    run_git("merge", "-q", "elsewhere", cwd=git_repo)
    assert head(git_repo) == git("rev-parse", "elsewhere", cwd=git_repo).strip()
    assert tip(git_repo) is None

    git("checkout", "-q", "-b", "squashed", cwd=git_repo)
    quiet_commit(git_repo, "PATTERN: squashed away", "q.py")
    git("checkout", "-q", "main", cwd=git_repo)
    run_git("merge", "--squash", "squashed", cwd=git_repo)
    assert tip(git_repo) is None  # squash: no commit yet
    commit(git_repo, "Squash\n\nPATTERN: squash merges capture at the commit")
    assert [e["content"] for e in entries(git_repo)] == ["squash merges capture at the commit"]

    git("checkout", "-q", "-b", "clash", "HEAD~1", cwd=git_repo)
    (git_repo / "README.md").write_text("theirs\n")
    quiet_commit(git_repo, "clash", "README.md")
    git("checkout", "-q", "main", cwd=git_repo)
    (git_repo / "README.md").write_text("ours\n")
    quiet_commit(git_repo, "ours", "README.md")
    stopped = subprocess.run(["git", "merge", "--no-ff", "-m", "Merge clash\n\nFACT: resolved by"
                              " hand", "clash"], cwd=git_repo, capture_output=True, text=True)
    assert stopped.returncode != 0 and "CONFLICT" in stopped.stdout
    (git_repo / "README.md").write_text("both\n")
    git("add", "README.md", cwd=git_repo)
    run_git("commit", "--no-edit", cwd=git_repo)
    resolved = [e for e in entries(git_repo) if e["content"] == "resolved by hand"]
    assert len(resolved) == 1 and resolved[0]["origin"]["commit"] == head(git_repo)
    assert sum("capture" in s for s in memory_commits(git_repo)) == 2
    # The fast-forwarded markers were left for `capture`.
    result = gm("capture", "main")
    assert "captured 2 entries, 2 already there" in captured(result)


# -- git memory capture REV-RANGE --------------------------------------------------------

def _ten_marked(repo: Path, commit_with=quiet_commit) -> list[str]:
    """20 commits on top of the initial one: 10 with a marker, 10 without; marked ids."""
    marked = []
    for n in range(10):
        commit_with(repo, f"plain change {n}", f"plain{n}.py")
        commit_with(repo, f"Change {n}\n\nLEARNED: lesson {n} of the backfill #backfill",
                    f"src/m{n}.py")
        marked.append(head(repo))
    return marked


def test_a_range_with_ten_marked_commits_captures_ten_once(git_repo: Path, gm) -> None:
    marked = _ten_marked(git_repo)
    assert gm("install").returncode == 0  # installed after the history was made
    result = gm("capture", "main~20..main")
    assert result.returncode == 0, err(result)
    assert captured(result) == ("captured 10 entries, 0 already there"
                                " (20 commits of main~20..main, 10 with markers)")
    assert len(out(result).splitlines()) == 10
    found = entries(git_repo)
    assert sorted(e["origin"]["commit"] for e in found) == sorted(marked)
    by_commit = {e["origin"]["commit"]: e for e in found}
    first = by_commit[marked[0]]
    assert first["content"] == "lesson 0 of the backfill" and first["tags"] == ["backfill"]
    assert first["origin"]["paths"] == ["src/m0.py"] and first["origin"]["branch"] == "main"
    assert first["source"] == "commit"
    # Dated by the commit, not by the run.
    when = git("log", "-1", "--format=%ct", marked[0], cwd=git_repo).strip()
    assert first["created"] == subprocess.run(
        ["date", "-u", "-d", f"@{when}", "+%Y-%m-%dT%H:%M:%SZ"], capture_output=True,
        text=True).stdout.strip()
    assert sum("capture" in s for s in memory_commits(git_repo)) == 1
    before = tip(git_repo)

    again = gm("capture", "main~20..main", "--json")
    report = json.loads(out(again))
    assert (report["captured"], report["already"], report["commits"]) == (0, 10, 20)
    assert report["commits_with_markers"] == 10 and report["memory_commit"] is None
    assert tip(git_repo) == before  # not even a reinforce record
    assert len(entries(git_repo)) == 10


def test_a_range_the_hooks_already_captured_adds_nothing(git_repo: Path, gm) -> None:
    assert gm("install").returncode == 0
    marked = _ten_marked(git_repo, commit_with=lambda r, m, *f: commit(r, m, *f))
    assert sorted(e["origin"]["commit"] for e in entries(git_repo)) == sorted(marked)
    before = tip(git_repo)
    result = gm("capture", "main~20..main")
    assert captured(result) == ("captured 0 entries, 10 already there"
                                " (20 commits of main~20..main, 10 with markers)")
    assert out(result) == "" and tip(git_repo) == before


def test_default_range_is_heads_history_not_yet_read(git_repo: Path, gm) -> None:
    quiet_commit(git_repo, "FACT: one before install", "a.py")
    quiet_commit(git_repo, "FACT: two before install", "b.py")
    first = gm("capture")
    assert captured(first) == ("captured 2 entries, 0 already there"
                               " (3 commits of HEAD, 2 with markers)")
    second = gm("capture")
    assert second.returncode == 0 and "nothing new" in captured(second)
    quiet_commit(git_repo, "FACT: three, after the last capture", "c.py")
    third = json.loads(out(gm("capture", "--json")))
    assert (third["commits"], third["captured"]) == (1, 1)
    # Naming HEAD reads all of it again, and finds everything there.
    assert "captured 0 entries, 3 already there" in captured(gm("capture", "HEAD"))


def test_dry_run_writes_nothing(git_repo: Path, gm) -> None:
    quiet_commit(git_repo, "DECISION: tried first", "a.py")
    quiet_commit(git_repo, f"FACT: a key {fake_aws_key()}\nFACT: clean one", "b.py")
    result = gm("capture", "--dry-run", "HEAD~2..HEAD")
    assert result.returncode == 0
    assert "would capture 2 entries, 0 already there, 1 refused" in captured(result)
    assert out(result).count("(dry run)") == 2
    assert fake_aws_key() not in out(result) + err(result)
    assert tip(git_repo) is None and audit_items(git_repo) == []
    planned = json.loads(out(gm("capture", "--dry-run", "--json", "HEAD~2..")))
    assert planned["captured"] == 2 and planned["dry_run"] is True
    assert [e["id"] for e in planned["entries"]] == [None, None]  # nothing was written
    assert [e["content"] for e in planned["entries"]] == ["tried first", "clean one"]
    assert tip(git_repo) is None


def test_bad_and_empty_ranges(git_repo: Path, gm) -> None:
    quiet_commit(git_repo, "FACT: never captured by a bad range", "a.py")
    for bad in (["nope..HEAD"], ["HEAD..nope"], ["HEAD~99..HEAD"], ["--", "-x"], [""],
                ["HEAD^{tree}"], ["HEAD..HEAD\nFACT: x"]):
        result = gm("capture", *bad)
        assert result.returncode == 2, (bad, err(result))
        lines = err(result).strip().splitlines()
        assert len(lines) == 1 and lines[0].startswith("error:"), (bad, lines)
        assert out(result) == ""
    assert tip(git_repo) is None
    empty = gm("capture", "HEAD..HEAD")
    assert empty.returncode == 0 and captured(empty) == "nothing to capture: HEAD..HEAD holds no commits"
    assert tip(git_repo) is None
    assert gm("add", "FACT: the memory branch exists now").returncode == 0
    memory = gm("capture", "git-memory")
    assert memory.returncode == 2 and "memory branch" in err(memory)


def test_a_secret_in_a_marker_is_refused_and_never_stored(git_repo: Path, gm) -> None:
    sha = quiet_commit(git_repo, f"LEARNED: the deploy key is {fake_aws_key()}\n"
                                 "DECISION: rotate keys monthly", "deploy.py")
    result = gm("capture", "HEAD~1..HEAD")
    said = out(result) + err(result)
    assert result.returncode == 0
    assert f"not captured ({sha[:12]} line 1)" in said and "aws-access-key-id" in said
    assert "captured 1 entry, 0 already there, 1 refused" in captured(result)
    assert fake_aws_key() not in said
    assert [e["content"] for e in entries(git_repo)] == ["rotate keys monthly"]
    stored = git("log", "-p", "--format=%B", "git-memory", cwd=git_repo)
    assert fake_aws_key() not in stored and "deploy key" not in stored
    refusals = [a for a in audit_items(git_repo) if a["rule"] == "aws-access-key-id"]
    assert refusals and refusals[0]["action"] == "refused" and refusals[0]["source"] == "commit"
    again = gm("capture", "HEAD~1..HEAD")  # refused again, still not stored
    assert "captured 0 entries, 1 already there, 1 refused" in captured(again)


def test_messages_that_are_not_utf8(git_repo: Path, gm) -> None:
    """Latin-1 bytes with git's encoding header, and without one (git warns, stores them);
    neither stops the post-commit hook nor the range capture."""
    assert gm("install").returncode == 0
    latin = "FACT: caf\u00e9 cr\u00e8me, stored as Latin-1\n".encode("latin-1")
    labelled = subprocess.run(["git", "-c", "i18n.commitEncoding=latin1", "commit", "-q",
                               "--allow-empty", "-F", "-"], cwd=git_repo, input=latin,
                              capture_output=True)
    assert labelled.returncode == 0 and b"captured 1 entry" in labelled.stderr
    raw = "LEARNED: na\u00efve bytes, no header\n".encode("latin-1")
    unlabelled = subprocess.run(["git", "commit", "-q", "--allow-empty", "-F", "-"],
                                cwd=git_repo, input=raw, capture_output=True)
    assert unlabelled.returncode == 0 and b"captured 1 entry" in unlabelled.stderr
    assert b"did not conform to UTF-8" in unlabelled.stderr  # git's own warning: the bytes are bad
    texts = sorted(e["content"] for e in entries(git_repo))
    assert texts == ["caf\u00e9 cr\u00e8me, stored as Latin-1", "na\u00efve bytes, no header"]
    result = gm("capture", "HEAD~2..HEAD")
    assert "captured 0 entries, 2 already there" in captured(result)


def test_capture_in_a_linked_worktree_and_a_bare_clone(git_repo: Path, gm, tmp_path: Path) -> None:
    linked = tmp_path / "linked"
    git("worktree", "add", "-q", "-b", "wt", str(linked), cwd=git_repo)
    quiet_commit(linked, "FACT: made in a linked worktree", "w.py")
    result = gm("capture", "main..wt", cwd=linked)
    assert "captured 1 entry" in captured(result)
    (entry,) = entries(git_repo)  # the memory is the repository's, whichever worktree
    assert entry["origin"]["branch"] == "wt"
    bare = tmp_path / "server.git"
    git("clone", "-q", "--bare", str(git_repo), str(bare), cwd=tmp_path)
    quiet_commit(git_repo, "FACT: not in the bare clone", "x.py")
    in_bare = gm("capture", "wt", cwd=bare)  # a server-side copy: no work tree needed
    assert in_bare.returncode == 0, err(in_bare)
    assert "captured 0 entries, 1 already there" in captured(in_bare)


def test_progress_on_a_terminal_for_a_long_range(git_repo: Path, gm) -> None:
    import pty

    stream = "".join(
        f"commit refs/heads/main\ncommitter T <t@example.com> {1700000000 + n} +0000\n"
        f"data <<EOM\nchange {n}\n{'FACT: fact number ' + str(n) if n % 100 == 0 else ''}\nEOM\n"
        + ("from refs/heads/main^0\n" if n == 0 else "") + "\n"
        for n in range(1200))
    git("fast-import", "--quiet", cwd=git_repo, input=stream)
    main, terminal = pty.openpty()
    try:
        result = subprocess.run(["git", "memory", "capture"], cwd=git_repo, stderr=terminal,
                                stdout=subprocess.PIPE)
        os.close(terminal)
        shown = drain(main)
    finally:
        os.close(main)
    assert result.returncode == 0
    assert b"reading commits: 1201/1201 (100%)" in shown
    assert b"captured 12 entries" in shown
    assert len(entries(git_repo)) == 12


# -- memory.captureOnPull ----------------------------------------------------------------

def test_capture_on_pull_captures_what_a_teammate_without_hooks_pushed(tmp_path: Path, gm) -> None:
    remote = tmp_path / "remote.git"
    git("init", "-q", "--bare", str(remote), cwd=tmp_path)
    a = make_repo(tmp_path / "a")
    git("remote", "add", "origin", str(remote), cwd=a)
    git("push", "-q", "origin", "main", cwd=a)
    b, c = tmp_path / "b", tmp_path / "c"
    for clone in (b, c):
        git("clone", "-q", str(remote), str(clone), cwd=tmp_path)
        assert gm("install", cwd=clone).returncode == 0
    git("config", "memory.captureOnPull", "true", cwd=b)
    pushed = [quiet_commit(a, f"Feature {n}\n\nLEARNED: teammate lesson {n}", f"f{n}.py")
              for n in range(3)]
    quiet_commit(a, "no markers here", "g.py")
    git("push", "-q", "origin", "main", cwd=a)

    pulled = run_git("pull", "-q", "--ff-only", cwd=b)
    assert "captured 3 entries from 4 commits the pull brought" in pulled.stderr
    assert sorted(e["origin"]["commit"] for e in entries(b)) == sorted(pushed)
    assert {e["origin"]["branch"] for e in entries(b)} == {"main"}
    # C has the hooks but not the setting: a fast-forward pull is not a new commit.
    run_git("pull", "-q", "--ff-only", cwd=c)
    assert tip(c) is None

    # A pull that merges: the teammate's commit and the merge commit, each once.
    quiet_commit(a, "FACT: arrived by a merging pull", "h.py")
    git("push", "-q", "origin", "main", cwd=a)
    commit(b, "local work in b", "b.py")
    merged = run_git("pull", "-q", "--no-rebase", "--no-edit", cwd=b)
    assert "captured 1 entry from 2 commits the pull brought" in merged.stderr
    assert len(entries(b)) == 4
    again = gm("capture", "HEAD", cwd=b)
    assert "captured 0 entries, 4 already there" in captured(again)

    # A pull that rebases runs no post-merge; the documented way after it.
    quiet_commit(a, "FACT: arrived under a rebase", "i.py")
    git("push", "-q", "origin", "main", cwd=a)
    commit(b, "FACT: my commit, rebased", "j.py")
    rebased = run_git("pull", "-q", "--rebase", cwd=b)
    assert "captured" not in rebased.stderr and len(entries(b)) == 5
    after = gm("capture", "ORIG_HEAD..HEAD", cwd=b)
    assert captured(after).startswith("captured 1 entry, 1 already there (")


def test_post_merge_through_pre_commit_captures_a_merge_commit(git_repo: Path, tmp_path: Path) -> None:
    from hooks_support import hook_repository, use_pre_commit

    use_pre_commit(git_repo, hook_repository(tmp_path / "hooks-repo"),
                   ["git-memory-capture", "git-memory-post-merge"])
    git("checkout", "-q", "-b", "topic", cwd=git_repo)
    quiet_commit(git_repo, "topic", "t.py")
    git("checkout", "-q", "main", cwd=git_repo)
    merged = run_git("merge", "--no-ff", "-m", "Merge\n\nDECISION: pre-commit users too",
                     "topic", cwd=git_repo)
    assert "captured 1 entry from the merge commit" in merged.stdout + merged.stderr
    (entry,) = entries(git_repo)
    assert entry["origin"]["commit"] == head(git_repo)


# -- the CI recipe in docs/hooks.md ------------------------------------------------------

def _ci_step() -> dict:
    """The capture step of the GitHub Actions workflow shown in docs/hooks.md."""
    import re

    import yaml

    text = (Path(__file__).resolve().parents[1] / "docs" / "hooks.md").read_text(encoding="utf-8")
    block = re.search(r"```yaml\n(# \.github/workflows/git-memory\.yml\n.*?)```", text, re.S)
    assert block, "the workflow is shown in docs/hooks.md"
    workflow = yaml.safe_load(block.group(1))
    on = workflow.get("on", workflow.get(True))  # YAML 1.1 reads a bare `on` as true
    assert on["push"]["branches"] == ["main"]
    steps = workflow["jobs"]["capture"]["steps"]
    assert steps[0]["uses"].startswith("actions/checkout@") and steps[0]["with"]["fetch-depth"] == 0
    assert any("pipx install git-memory-cli" in s.get("run", "") for s in steps)
    (step,) = [s for s in steps if "git memory capture" in s.get("run", "")]
    return step


def _run_ci(step: dict, workspace: Path, before: str, after: str) -> subprocess.CompletedProcess:
    """The step's script as the runner would run it (bash -e), in a full-history checkout."""
    env = {**os.environ, "BEFORE": before, "AFTER": after}
    result = subprocess.run(["bash", "-e", "-c", step["run"]], cwd=workspace, env=env,
                            capture_output=True, text=True)
    assert result.returncode == 0, result.stdout + result.stderr
    return result


@pytest.mark.slow  # two clones, two syncs and two CI runs: about 20 s on a busy machine
def test_the_documented_ci_workflow_captures_a_server_side_merge(tmp_path: Path, gm) -> None:
    step = _ci_step()
    remote = tmp_path / "remote.git"
    git("init", "-q", "--bare", str(remote), cwd=tmp_path)
    dev = make_repo(tmp_path / "dev")
    git("remote", "add", "origin", str(remote), cwd=dev)
    assert gm("install", cwd=dev).returncode == 0
    commit(dev, "FACT: captured on the developer's machine", "d.py")
    assert gm("sync", "origin", cwd=dev).returncode == 0
    git("push", "-q", "origin", "main", cwd=dev)
    # A pull request merged on the hosting service: commits and a merge made without hooks.
    git("checkout", "-q", "-b", "feature", cwd=dev)
    quiet_commit(dev, "LEARNED: the review found this #review", "f.py")
    git("checkout", "-q", "main", cwd=dev)
    before = head(dev)
    git("-c", "core.hooksPath=/nonexistent", "merge", "-q", "--no-ff", "-m",
        "Merge pull request #7\n\nDECISION: feature flags default off", "feature", cwd=dev)
    git("push", "-q", "origin", "main", cwd=dev)
    after = head(dev)

    ci = tmp_path / "ci"  # actions/checkout with fetch-depth 0: a clone of every branch
    git("clone", "-q", str(remote), str(ci), cwd=tmp_path)
    done = _run_ci(step, ci, before, after)
    assert "captured 2 entries, 0 already there (2 commits of" in done.stderr
    memory = tmp_path / "check"
    git("clone", "-q", "--branch", "main", str(remote), str(memory), cwd=tmp_path)
    assert gm("pull", "origin", cwd=memory).returncode == 0
    texts = sorted(e["content"] for e in entries(memory))
    assert texts == ["captured on the developer's machine", "feature flags default off",
                     "the review found this"]
    pushed = git("rev-parse", "git-memory", cwd=remote).strip()

    # The job run again, and a first push of the branch (before is all zeros): nothing twice.
    again = tmp_path / "ci2"
    git("clone", "-q", str(remote), str(again), cwd=tmp_path)
    rerun = _run_ci(step, again, "0" * 40, after)
    assert "captured 0 entries, 3 already there" in rerun.stderr
    assert git("rev-parse", "git-memory", cwd=remote).strip() == pushed

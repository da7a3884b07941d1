"""The store is the one way to git: one writer, one process runner, pygit2 in store/ only."""

from __future__ import annotations

import ast
import os
import threading
from pathlib import Path

import pytest

from conftest import git
from git_memory.agents.archive import archive
from git_memory.agents.transcript import Message, Transcript
from git_memory.errors import ConcurrentUpdate, GitMemoryError
from git_memory.fold import reaches
from git_memory.store import gitrun
from git_memory.store.branch import MemoryBranch, session_archive
from git_memory.store.locate import SESSIONS_REF, discover

PACKAGE = Path(__file__).resolve().parents[1] / "git_memory"


def _imports(path: Path) -> set[str]:
    """Top-level module names a source file imports (at any depth of the file)."""
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.add(node.module.split(".")[0])
    return names


def _modules() -> list[Path]:
    return sorted(PACKAGE.rglob("*.py"))


def test_pygit2_is_imported_in_store_only() -> None:
    outside = [str(p.relative_to(PACKAGE)) for p in _modules()
               if "pygit2" in _imports(p) and p.parent.name != "store"]
    assert outside == []
    assert "pygit2" in _imports(PACKAGE / "store" / "branch.py")  # the check can see it


def test_only_the_runner_starts_processes() -> None:
    # agents/distill.py runs the user's LLM command, terminal.py the user's pager,
    # agents/integrations/check.py the installed agent hooks (for doctor) and agents/detached.py our
    # own background processes (the distillation worker, an index build a hook cannot wait
    # for), not git; everything else asks gitrun.
    allowed = {"store/gitrun.py", "agents/distill.py", "terminal.py", "agents/integrations/check.py",
               "agents/detached.py", "embed/client.py"}  # client: the warm embedding daemon, detached
    users = {str(p.relative_to(PACKAGE)) for p in _modules() if "subprocess" in _imports(p)}
    # sync.gitcmd keeps subprocess only for the CompletedProcess type it returns.
    assert users - allowed <= {"sync/gitcmd.py"}
    text = (PACKAGE / "sync" / "gitcmd.py").read_text(encoding="utf-8")
    assert "subprocess.run" not in text and "subprocess.Popen" not in text


def test_runner_strips_hook_location_variables(git_repo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # A hook exports GIT_DIR; a nested git must find the repository from its cwd instead.
    monkeypatch.setenv("GIT_DIR", str(git_repo.parent / "nowhere"))
    result = gitrun.run(["rev-parse", "--git-dir"], cwd=git_repo, check=True)
    assert gitrun.text(result.stdout).strip() == ".git"


def test_runner_failure_is_one_line_naming_gits_reason(git_repo: Path) -> None:
    with pytest.raises(gitrun.GitFailed) as caught:
        gitrun.run(["rev-parse", "--verify", "no-such-branch"], cwd=git_repo, check=True,
                   what="find the branch")
    message = str(caught.value)
    assert message.startswith("cannot find the branch: ") and "\n" not in message
    assert isinstance(caught.value, GitMemoryError)


def test_runner_without_git_says_so(git_repo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PATH", str(git_repo / "empty-bin"))
    with pytest.raises(gitrun.GitUnavailable) as caught:
        gitrun.run(["status"], cwd=git_repo)
    assert str(caught.value).startswith("cannot run git: ") and "\n" not in str(caught.value)


def _transcript(session: str, *texts: str) -> Transcript:
    messages = [Message(role="user", text=t, timestamp="2026-11-26T10:00:00Z") for t in texts]
    return Transcript(path=f"{session}.jsonl", session_id=session, messages=messages)


def test_session_archive_goes_through_the_branch_writer(git_repo: Path,
                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    # The identity rule of the one writer (GIT_AUTHOR_* first) now holds for the archive too.
    monkeypatch.setenv("GIT_AUTHOR_NAME", "Archivist")
    monkeypatch.setenv("GIT_AUTHOR_EMAIL", "archivist@example.com")
    dirs = discover()
    assert archive(dirs, _transcript("s1", "hello"), "main") is True
    assert archive(dirs, _transcript("s1", "hello"), "main") is False  # already current: no commit
    assert git("rev-list", "--count", SESSIONS_REF, cwd=git_repo).strip() == "1"
    assert git("log", "-1", "--format=%an <%ae>", SESSIONS_REF, cwd=git_repo).strip() == (
        "Archivist <archivist@example.com>")
    # No README/.gitattributes seed on the archive: only sessions/.
    assert git("ls-tree", "--name-only", SESSIONS_REF, cwd=git_repo).split() == ["sessions"]
    assert archive(dirs, _transcript("s1", "hello", "more"), "main") is True
    assert git("rev-list", "--count", SESSIONS_REF, cwd=git_repo).strip() == "2"


def test_concurrent_archive_writers_lose_nothing(git_repo: Path) -> None:
    dirs = discover()
    errors: list[BaseException] = []

    def write(n: int) -> None:
        try:
            archive(dirs, _transcript(f"s{n}", f"message {n}"), "main")
        except BaseException as exc:  # noqa: BLE001 - reported by the assertion below
            errors.append(exc)

    threads = [threading.Thread(target=write, args=(n,)) for n in range(6)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert errors == []
    names = git("ls-tree", "-r", "--name-only", SESSIONS_REF, cwd=git_repo).split()
    assert sorted(Path(n).stem for n in names) == [f"s{n}" for n in range(6)]


def test_commit_once_refuses_a_moved_ref(git_repo: Path) -> None:
    branch = MemoryBranch(discover())
    first = branch.write_files({"entries/a.md": b"a\n"}, "first")
    assert first is not None
    second = branch.write_files({"entries/b.md": b"b\n"}, "second")
    with pytest.raises(ConcurrentUpdate):
        branch.commit_once(branch.ref, first, {"entries/c.md": b"c\n"}, "stale")
    assert branch.local_tip() == second  # nothing moved


def test_session_archive_is_its_own_ref(git_repo: Path) -> None:
    sessions = session_archive(discover())
    assert sessions.ref == SESSIONS_REF and sessions.roots == ("sessions",)
    assert sessions.tip() is None and os.path.basename(sessions.ref) == "sessions"


def test_one_reachability_rule_for_fold_and_curation() -> None:
    graph = {"c": {"b"}, "b": {"a"}}
    follow = lambda node: graph.get(node, ())  # noqa: E731
    assert reaches(follow, "c", "a") and not reaches(follow, "a", "c")
    graph["a"] = {"c"}  # a cycle does not loop forever
    assert reaches(follow, "a", "b") and not reaches(follow, "a", "z")

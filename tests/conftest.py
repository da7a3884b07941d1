"""Shared fixtures: real git repositories, isolated from the developer's own config.

Every test runs with its own HOME, a private global git config, no system config,
fixed author and committer, and an empty template directory, so nothing on the
machine (hooks templates, aliases, signing) leaks in. Commands run as real
processes: `git memory ...` through the real `git` on PATH.
"""

from __future__ import annotations

import fcntl
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Callable, Iterator

import pytest

import gmfork

# pytest caches each test module with its asserts rewritten in tests/__pycache__, but not
# where PYTHONDONTWRITEBYTECODE is set (as on our CI machine): then every worker rewrites
# every test module at every run, about 7 s of CPU each. The pytest process writes its
# cache regardless, as compiled_package does for the package; the processes the tests
# start keep the environment's setting.
sys.dont_write_bytecode = False

BIN = os.path.dirname(sys.executable)
# Copies of the data sets the tests read (with their licenses): see tests/data/README.md.
DATA = Path(__file__).resolve().parent / "data"



def pytest_xdist_auto_num_workers(config: pytest.Config) -> int:
    """`-n auto`: one worker more than the cores. Many tests wait on processes they start
    (hooks, background builds, servers, timeouts), and a worker that waits leaves its core
    idle; with one more worker the cores stay busy (2 cores: 3 min 43 s with 2 workers,
    3 min 5 s with 3, 3 min 24 s with 4, docs/benchmarks.md)."""
    try:
        cores = len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        cores = os.cpu_count() or 1
    return cores + 1

@pytest.fixture(scope="session", autouse=True)
def compiled_package() -> None:
    """Byte-compile the package once, so the thousands of `git memory` processes the suite
    starts load cached bytecode instead of compiling every module again (about 0.1 s of CPU
    each). Some machines set PYTHONDONTWRITEBYTECODE, which would stop the first process from
    writing the cache; compileall writes it regardless, and is a no-op when it is current."""
    import compileall

    import git_memory

    compileall.compile_dir(os.path.dirname(git_memory.__file__), quiet=1)


@pytest.fixture(scope="session", autouse=True)
def _gm_fork_server() -> Iterator[None]:
    """Ends this worker's `gm` fork server (tests/gmfork.py) when the session ends."""
    yield
    gmfork.stop()


@pytest.fixture(autouse=True)
def isolated_git(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> Path:
    home = tmp_path_factory.mktemp("home")
    templates = home / "templates"
    templates.mkdir()
    config = home / "gitconfig"
    config.write_text(
        "[user]\n\tname = Test User\n\temail = test@example.com\n"
        "[init]\n\tdefaultBranch = main\n[advice]\n\tdetachedHead = false\n"
        "[protocol \"file\"]\n\tallow = always\n"
        # With the model wheel installed every `add` would start a background embedding
        # worker (numpy and a 90 MB model per test repository); tests of that turn it on.
        # A recall that loads the model starts a warm embedding process (embed.daemon) that
        # would stay 10 minutes after its test; a minute is enough for any test of it.
        "[memory \"embed\"]\n\tbackground = false\n\tidleTimeout = 60\n",
        encoding="utf-8",
    )
    for name in list(os.environ):
        if name.startswith("GIT_") or name.startswith("GIT_MEMORY"):
            monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(home / ".config"))
    monkeypatch.setenv("GIT_CONFIG_GLOBAL", str(config))
    monkeypatch.setenv("GIT_CONFIG_NOSYSTEM", "1")
    monkeypatch.setenv("GIT_TEMPLATE_DIR", str(templates))
    for role in ("AUTHOR", "COMMITTER"):
        monkeypatch.setenv(f"GIT_{role}_NAME", "Test User")
        monkeypatch.setenv(f"GIT_{role}_EMAIL", "test@example.com")
    monkeypatch.setenv("PATH", BIN + os.pathsep + os.environ.get("PATH", ""))
    monkeypatch.setenv("LC_ALL", "C.UTF-8")
    return home


@pytest.fixture(scope="session")
def _built_once_root(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """What `built_once` made so far in this worker, by key."""
    return {}


@pytest.fixture
def built_once(
    _built_once_root: dict[str, Path], tmp_path_factory: pytest.TempPathFactory
) -> Callable[[str, Callable[[Path], None]], Path]:
    """`built_once(key, make)`: a folder that `make(folder)` fills the first time a test of
    the run (of any xdist worker) asks for `key`, and that later tests get as it is. The suite's CPU goes into
    the `git memory` processes, so a setup that many tests share (the same entries imported,
    the same origin) runs once instead of once per test. The folder is shared: a test copies
    it (`copy_repo`, `git clone`) and never writes to it. `make` runs inside the first test,
    under its isolated git environment, which every test's environment equals."""

    def get(key: str, make: Callable[[Path], None]) -> Path:
        if key not in _built_once_root:
            _built_once_root[key] = _build_for_the_run(tmp_path_factory, key, make)
        return _built_once_root[key]

    return get


def _build_for_the_run(
    tmp_path_factory: pytest.TempPathFactory, key: str, make: Callable[[Path], None]
) -> Path:
    """The folder of `key`, made by `make` once for the whole run: under pytest-xdist the
    workers share the run's temporary root (the parent of each worker's own), and the
    first worker to ask makes it while the others wait on a lock and then take it as
    made. Without xdist it is the session's own folder. A worker whose `make` failed
    leaves no mark of completion, so the next one to ask makes it again from scratch."""
    name = "built-" + "".join(c if c.isalnum() else "-" for c in key)
    if "PYTEST_XDIST_WORKER" not in os.environ:
        folder = tmp_path_factory.mktemp(name)
        make(folder)
        return folder
    shared = tmp_path_factory.getbasetemp().parent / "built-once"
    shared.mkdir(exist_ok=True)
    folder, done = shared / name, shared / (name + ".done")
    with open(shared / (name + ".lock"), "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # released when the file closes
        if not done.exists():
            shutil.rmtree(folder, ignore_errors=True)  # what a failed make left
            folder.mkdir()
            make(folder)
            done.touch()
    return folder


def copy_repo(source: Path, target: Path) -> Path:
    """A copy of a repository (or any folder holding some) at target, as a test's own.

    Git keeps no absolute path of its own folder in a plain repository, so the copy is a
    repository in its own right; modification times are kept, so an index stays current."""
    shutil.copytree(source, target, symlinks=True)
    return target


def git(*args: str, cwd: Path | str, check: bool = True, input: str | None = None) -> str:
    result = subprocess.run(
        ["git", *args], cwd=cwd, capture_output=True, text=True, input=input
    )
    if check and result.returncode != 0:
        raise AssertionError(f"git {' '.join(args)} failed: {result.stderr}")
    return result.stdout


def make_repo(path: Path, commit: bool = True) -> Path:
    path.mkdir(parents=True, exist_ok=True)
    git("init", "-q", str(path), cwd=path.parent)
    if commit:
        (path / "README.md").write_text("demo\n", encoding="utf-8")
        git("add", "README.md", cwd=path)
        git("commit", "-q", "-m", "initial", cwd=path)
    return path


def _init_inputs() -> tuple[object, ...] | None:
    """What `git init` and the first commit read besides their folder: the global config's
    text, the GIT_* environment (identity, dates) and the template folder, which must be
    empty (None when it is not: then nothing may be reused)."""
    templates = os.environ.get("GIT_TEMPLATE_DIR")
    if not templates or not os.path.isdir(templates) or os.listdir(templates):
        return None
    config = os.environ.get("GIT_CONFIG_GLOBAL")
    return (
        Path(config).read_text(encoding="utf-8") if config and os.path.isfile(config) else None,
        tuple(sorted((k, v) for k, v in os.environ.items()
                     if k.startswith("GIT_") and k not in ("GIT_CONFIG_GLOBAL", "GIT_TEMPLATE_DIR"))),
    )


@pytest.fixture(scope="session")
def _first_repo(tmp_path_factory: pytest.TempPathFactory) -> dict[str, object]:
    """This worker's first `git_repo` (a copy, in `folder`) and what made it (`_init_inputs`)."""
    return {"folder": tmp_path_factory.mktemp("first-git-repo")}


@pytest.fixture
def git_repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, _first_repo: dict[str, object]) -> Path:
    """A fresh repository with one commit on main; the current directory.

    `git init`, `git add` and `git commit` run once per worker (make_repo); a later test
    whose git environment is the same gets a copy of that repository (copy_repo: a few
    file copies instead of three git processes), its own to change. A test needing a
    commit of its own time or another environment's makes its repository with make_repo."""
    inputs = _init_inputs()
    target = tmp_path / "repo"
    if inputs is not None and _first_repo.get("inputs") == inputs:
        repo = copy_repo(Path(str(_first_repo["repo"])), target)
    else:
        repo = make_repo(target)
        if inputs is not None and "repo" not in _first_repo:
            kept = copy_repo(repo, Path(str(_first_repo["folder"])) / "repo")
            _first_repo.update(inputs=inputs, repo=kept)
    monkeypatch.chdir(repo)
    return repo


@pytest.fixture
def shared_repo(
    built_once: Callable[[str, Callable[[Path], None]], Path], tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> Callable[[str, Callable[[Path], None]], Path]:
    """`shared_repo(key, setup)`: what `git_repo` gives (tmp_path/"repo", the current
    directory) after `setup(repo)` ran in it, with setup run once per worker and key and
    copied for each test. For setups many tests share that are not what the tests test."""

    def get(key: str, setup: Callable[[Path], None]) -> Path:
        def make(folder: Path) -> None:
            repo = make_repo(folder / "repo")
            with monkeypatch.context() as inside:
                inside.chdir(repo)
                setup(repo)

        repo = copy_repo(built_once(key, make) / "repo", tmp_path / "repo")
        monkeypatch.chdir(repo)
        return repo

    return get


Run = Callable[..., subprocess.CompletedProcess]


@pytest.fixture
def gm(request: pytest.FixtureRequest) -> Run:
    """Run `git memory ARGS...` as a real process; returns the CompletedProcess.

    The process is forked from a warm interpreter (tests/forkserver.py) that imported
    git_memory once, so the suite does not pay the interpreter start and imports thousands
    of times; it is still its own process, with this call's argv, cwd, environment and
    pipes, running the console script's entry point. Calls the fork cannot reproduce exactly
    (another interpreter or locale in env, `--help`, git tracing) start `git memory` as
    before, and so does every call when GM_TEST_FORK=0 or the test is marked
    `fresh_process`."""
    fork = os.environ.get("GM_TEST_FORK", "1") != "0" and not request.node.get_closest_marker(
        "fresh_process"
    )

    def run(
        *args: str, cwd: Path | str | None = None, input: str | bytes | None = None,
        env: dict[str, str] | None = None,
    ) -> subprocess.CompletedProcess:
        full_env = {**os.environ, **(env or {})}
        data = input.encode("utf-8") if isinstance(input, str) else input
        where = cwd or os.getcwd()
        if fork:
            done = gmfork.run(list(args), str(where), data, full_env)
            if done is not None:
                return done
        return subprocess.run(
            ["git", "memory", *args],
            cwd=where,
            capture_output=True,
            input=data,
            env=full_env,
        )

    return run


def out(result: subprocess.CompletedProcess) -> str:
    return result.stdout.decode("utf-8")


def err(result: subprocess.CompletedProcess) -> str:
    return result.stderr.decode("utf-8")


def tip(repo: Path, ref: str = "refs/heads/git-memory") -> str | None:
    result = subprocess.run(
        ["git", "rev-parse", "--verify", "-q", ref], cwd=repo, capture_output=True, text=True
    )
    return result.stdout.strip() or None

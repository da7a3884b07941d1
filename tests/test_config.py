"""Config follows git: every way git resolves a setting gives the same ref, boolean and
author to git-memory as to `git config` / `git var`.

The matrix runs `git memory add` (observable: the ref it writes and the commit's author
and committer) and `git memory sync --auto` (observable: memory.autoSync, which with no
remote warns when true and is silent when false) under each way of setting config, and
compares with what git itself answers in the same place and environment.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Callable

import gmfork
import pytest

from conftest import git, make_repo, tip

Setup = Callable[[Path, Path], tuple[Path, dict[str, str], list[str]]]
IDENT_VARS = [f"GIT_{role}_{part}" for role in ("AUTHOR", "COMMITTER") for part in ("NAME", "EMAIL")]


def _run(args: list[str], cwd: Path, env: dict[str, str], pre: list[str]) -> subprocess.CompletedProcess:
    """`git PRE... ARGS` in cwd with env added. `git ... memory ...` is forked from the warm
    interpreter with the environment git itself gives its dashed external for these
    options and this environment (gmfork.run_through_git; afresh when GM_TEST_FORK=0)."""
    full = {**os.environ, **env}
    if args[:1] == ["memory"] and os.environ.get("GM_TEST_FORK", "1") != "0":
        done = gmfork.run_through_git(pre, args[1:], str(cwd), None, full)
        if done is not None:
            return subprocess.CompletedProcess(done.args, done.returncode,
                                               done.stdout.decode("utf-8"), done.stderr.decode("utf-8"))
    return subprocess.run(["git", *pre, *args], cwd=cwd, env=full, capture_output=True, text=True)


def _write(path: Path, text: str) -> Path:
    path.write_text(text, encoding="utf-8")
    return path


def _append(path: Path, text: str) -> None:
    with path.open("a", encoding="utf-8") as handle:
        handle.write(text)


# Each setup gets (repo, scratch dir) and returns (where to run, extra env, args before
# the git subcommand such as `-c k=v`). No identity comes from the environment here.

def by_dash_c(repo: Path, tmp: Path) -> tuple[Path, dict[str, str], list[str]]:
    _append(repo / ".git" / "config", "[memory]\n\tref = kb-ignored\n\tautoSync = false\n")
    return repo, {}, ["-c", "memory.ref=kb-dash-c", "-c", "memory.autoSync=yes",
                      "-c", "user.name=Dash C", "-c", "user.email=c@example.com"]


def by_global_file(repo: Path, tmp: Path) -> tuple[Path, dict[str, str], list[str]]:
    glob = _write(tmp / "other-global", "[user]\n\tname = Global G\n\temail = g@example.com\n"
                  "[memory]\n\tref = kb-global\n\tautoSync = on\n")
    return repo, {"GIT_CONFIG_GLOBAL": str(glob)}, []


def by_include(repo: Path, tmp: Path) -> tuple[Path, dict[str, str], list[str]]:
    _write(tmp / "extra.cfg", "[memory]\n\tref = kb-include\n\tautoSync = 1\n"
           "[user]\n\tname = Included I\n\temail = i@example.com\n")
    _append(repo / ".git" / "config", f"[include]\n\tpath = {tmp / 'extra.cfg'}\n")
    return repo, {}, []


def by_include_if(repo: Path, tmp: Path) -> tuple[Path, dict[str, str], list[str]]:
    _write(tmp / "work.cfg", "[memory]\n\tref = kb-include-if\n"
           "[user]\n\tname = Work W\n\temail = w@example.com\n")
    _write(tmp / "play.cfg", "[memory]\n\tref = kb-wrong\n\tautoSync = true\n")
    glob = Path(os.environ["GIT_CONFIG_GLOBAL"])
    _append(glob, f'[includeIf "gitdir:{repo}/"]\n\tpath = {tmp / "work.cfg"}\n'
            f'[includeIf "gitdir:{tmp}/elsewhere/"]\n\tpath = {tmp / "play.cfg"}\n')
    return repo, {}, []


def by_inline_comment(repo: Path, tmp: Path) -> tuple[Path, dict[str, str], list[str]]:
    _append(repo / ".git" / "config", "[memory]\n\tref = refs/heads/kb ; team\n"
            "\tautoSync = true # for the team\n"
            "[user]\n\tname = Inline N ; not this\n\temail = n@example.com # nor this\n")
    return repo, {}, []


def by_quoted_value(repo: Path, tmp: Path) -> tuple[Path, dict[str, str], list[str]]:
    _append(repo / ".git" / "config", '[memory]\n\tref = "kb-quoted"\n\tautoSync = "off"\n'
            '[user]\n\tname = "Quoted \\"Q\\"  Name"\n\temail = "q@example.com"\n')
    return repo, {}, []


def by_worktree_config(repo: Path, tmp: Path) -> tuple[Path, dict[str, str], list[str]]:
    git("config", "extensions.worktreeConfig", "true", cwd=repo)
    git("config", "memory.ref", "kb-shared", cwd=repo)
    linked = tmp / "linked"
    git("worktree", "add", "-q", "-b", "side", str(linked), cwd=repo)
    git("config", "--worktree", "memory.ref", "kb-worktree", cwd=linked)
    git("config", "--worktree", "memory.autoSync", "yes", cwd=linked)
    git("config", "--worktree", "user.name", "Worktree T", cwd=linked)
    git("config", "--worktree", "user.email", "t@example.com", cwd=linked)
    return linked, {}, []


def by_worktree_file_without_extension(repo: Path, tmp: Path) -> tuple[Path, dict[str, str], list[str]]:
    # git ignores config.worktree unless extensions.worktreeConfig is on.
    _append(repo / ".git" / "config", "[memory]\n\tref = kb-plain-local\n"
            "[user]\n\tname = Local L\n\temail = l@example.com\n")
    _write(repo / ".git" / "config.worktree", "[memory]\n\tref = kb-not-this\n\tautoSync\n")
    return repo, {}, []


def by_config_parameters(repo: Path, tmp: Path) -> tuple[Path, dict[str, str], list[str]]:
    return repo, {"GIT_CONFIG_PARAMETERS": "'memory.ref'='kb-params' 'memory.autosync'='2' "
                  "'user.name'='Params P' 'user.email'='p@example.com'"}, []


def by_config_count(repo: Path, tmp: Path) -> tuple[Path, dict[str, str], list[str]]:
    env = {"GIT_CONFIG_COUNT": "3", "GIT_CONFIG_KEY_0": "memory.ref", "GIT_CONFIG_VALUE_0": "kb-count",
           "GIT_CONFIG_KEY_1": "user.name", "GIT_CONFIG_VALUE_1": "Count K",
           "GIT_CONFIG_KEY_2": "user.email", "GIT_CONFIG_VALUE_2": "k@example.com"}
    return repo, env, []


def by_bare_key_and_case(repo: Path, tmp: Path) -> tuple[Path, dict[str, str], list[str]]:
    # Plain syntax the cheap reader handles itself: a bare key is true, names ignore case.
    _append(repo / ".git" / "config", "[Memory]\n\tRef = kb-bare\n\tAUTOSYNC\n"
            "[user]\n\tname = Bare   B\n\temail = b@example.com\n")
    return repo, {}, []


def by_author_config_and_env(repo: Path, tmp: Path) -> tuple[Path, dict[str, str], list[str]]:
    # author.* beats user.*, and GIT_COMMITTER_* from the environment beats both.
    _append(repo / ".git" / "config", "[memory]\n\tref = kb-roles\n\tautoSync = no\n"
            "[user]\n\tname = User U\n\temail = u@example.com\n"
            "[author]\n\tname = Author A\n\temail = a@example.com\n")
    return repo, {"GIT_COMMITTER_NAME": "Env Committer", "GIT_COMMITTER_EMAIL": "e@example.com"}, []


CASES: list[Setup] = [
    by_dash_c, by_global_file, by_include, by_include_if, by_inline_comment, by_quoted_value,
    by_worktree_config, by_worktree_file_without_extension, by_config_parameters,
    by_config_count, by_bare_key_and_case, by_author_config_and_env,
]


def _git_ref(cwd: Path, env: dict[str, str], pre: list[str]) -> str:
    value = _run(["config", "--get", "memory.ref"], cwd, env, pre).stdout.strip()
    assert value, "every case sets memory.ref"
    return value if value.startswith("refs/") else "refs/heads/" + value


def _git_bool(cwd: Path, env: dict[str, str], pre: list[str]) -> bool:
    result = _run(["config", "--type=bool", "--get", "memory.autoSync"], cwd, env, pre)
    return result.stdout.strip() == "true"


def _git_ident(role: str, cwd: Path, env: dict[str, str], pre: list[str]) -> str:
    result = _run(["var", f"GIT_{role}_IDENT"], cwd, env, pre)
    assert result.returncode == 0, result.stderr
    return result.stdout.rsplit(" ", 2)[0]  # without the date


@pytest.mark.parametrize("setup", CASES, ids=[case.__name__[3:] for case in CASES])
def test_config_matrix_agrees_with_git(
    setup: Setup, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    for name in IDENT_VARS:
        monkeypatch.delenv(name)
    repo = make_repo(tmp_path / "repo")
    cwd, env, pre = setup(repo, tmp_path)
    ref = _git_ref(cwd, env, pre)
    auto = _git_bool(cwd, env, pre)
    author, committer = (_git_ident(role, cwd, env, pre) for role in ("AUTHOR", "COMMITTER"))

    added = _run(["memory", "add", "FACT: config follows git"], cwd, env, pre)
    assert added.returncode == 0, added.stderr
    assert tip(repo, ref) is not None
    assert tip(repo) is None or ref == "refs/heads/git-memory"
    logged = git("log", "-1", "--format=%an <%ae>|%cn <%ce>", ref, cwd=repo).strip()
    assert logged == f"{author}|{committer}"
    listed = _run(["memory", "list", "--json"], cwd, env, pre)
    assert [entry["author"] for entry in json.loads(listed.stdout)] == [author]

    synced = _run(["memory", "sync", "--auto"], cwd, env, pre)
    assert synced.returncode == 0
    assert ("not synced" in synced.stderr) is auto, synced.stderr


def test_matrix_covers_true_and_false(tmp_path: Path) -> None:
    # The boolean column must exercise both answers, or it proves nothing.
    answers = set()
    for index, setup in enumerate(CASES):
        repo = make_repo(tmp_path / f"r{index}")
        scratch = tmp_path / f"s{index}"
        scratch.mkdir()
        cwd, env, pre = setup(repo, scratch)
        answers.add(_git_bool(cwd, env, pre))
    assert answers == {True, False}


def test_no_identity_gives_gits_advice_and_writes_nothing(
    git_repo: Path, gm, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    assert gm("init").returncode == 0
    before = tip(git_repo)
    objects = git("count-objects", "-v", cwd=git_repo)
    for name in IDENT_VARS:
        monkeypatch.delenv(name)
    nobody = _write(tmp_path / "nobody", "[user]\n\tuseConfigOnly = true\n")
    monkeypatch.setenv("GIT_CONFIG_GLOBAL", str(nobody))
    advice = _run(["var", "GIT_AUTHOR_IDENT"], git_repo, {}, [])
    assert advice.returncode != 0

    result = gm("add", "FACT: written by nobody")
    assert result.returncode == 1
    message = result.stderr.decode("utf-8")
    assert message.startswith("error: ")
    assert "Please tell me who you are" in message and 'git config --global user.email' in message
    assert advice.stderr.strip().splitlines()[-1] in message  # git's own final line
    assert "git-memory@localhost" not in message
    assert tip(git_repo) == before
    assert git("count-objects", "-v", cwd=git_repo) == objects


def test_no_identity_on_a_fresh_repository_creates_no_branch(
    git_repo: Path, gm, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    for name in IDENT_VARS:
        monkeypatch.delenv(name)
    monkeypatch.setenv("GIT_CONFIG_GLOBAL", str(_write(tmp_path / "g", "[user]\n\tuseConfigOnly = 1\n")))
    result = gm("add", "FACT: nobody")
    assert result.returncode == 1 and "Please tell me who you are" in result.stderr.decode()
    assert tip(git_repo) is None
    assert not (git_repo / ".git" / "git-memory").exists() or not any(
        (git_repo / ".git" / "git-memory").glob("*.sqlite*"))


def test_invalid_ref_name_is_one_clear_error(git_repo: Path, gm) -> None:
    git("config", "memory.ref", "refs/heads/kb ; team", cwd=git_repo)  # git writes it quoted
    # The value really holds spaces, which no ref name may: one line, not 60 retries.
    result = gm("add", "FACT: never written")
    assert result.returncode == 1
    assert result.stderr.decode().strip() == (
        "error: memory.ref: 'refs/heads/kb ; team' is not a valid branch name")
    assert git("for-each-ref", cwd=git_repo).count("refs/heads/") == 1


def test_bad_boolean_is_gits_error(git_repo: Path, gm) -> None:
    assert gm("add", "FACT: a fact").returncode == 0
    git("config", "memory.semantic", "maybe", cwd=git_repo)
    git_says = subprocess.run(["git", "config", "--type=bool", "memory.semantic"],
                              cwd=git_repo, capture_output=True, text=True)
    result = gm("recall", "fact")
    assert result.returncode == 1
    assert "bad boolean config value 'maybe' for 'memory.semantic'" in result.stderr.decode()
    assert "bad boolean config value 'maybe' for 'memory.semantic'" in git_says.stderr


# -- the cheap reader: it agrees with git, or it hands over to git ---------------------

PLAIN = [  # syntax the pure-Python reader handles itself (the hot path)
    "[memory]\n\tref = kb\n\tautoSync\n",
    "[memory]\n  ref=kb\n\tautosync = false\n# a comment\n; another\n\n",
    '[Memory]\n\tRef = a  b   c\n[remote "Origin"]\n\turl = /x/y\n\tfetch = +refs/heads/*:refs/remotes/Origin/*\n',
    "[memory]\n\tref = one\n\tref = two\n\tempty =\n",
    '[alias]\n\tl = log --format=%h=%s [x]\n[url "git@host:"]\n\tinsteadOf = https://host/\n',
]
ODD = [  # everything else goes to `git config`
    "[memory]\n\tref = kb ; team\n",
    "[memory]\n\tref = kb # team\n",
    '[memory]\n\tref = "kb"\n',
    "[memory]\n\tref = k\\\n b\n",
    "[memory]\n\tref = a\tb\n",
    "[memory.Sub]\n\tref = legacy\n",
    "[memory] ref = same-line\n",
    '[memory "a\\"b"]\n\tref = x\n',
    "[memory]\r\n\tref = crlf\r\n",
    "[include]\n\tpath = nowhere.cfg\n",
    '[includeIf "onbranch:main"]\n\tpath = nowhere.cfg\n',
]


INVALID = [  # git refuses these files; so do we, with git's words, never half-reading them
    "[ memory]\n\tref = x\n",
    "[memory ]\n\tref = x\n",
    "[memory]\n\tref x\n",
    "[memory]\n\t2ref = x\n",
    "\ufeff[memory]\n\tref = a byte-order mark in the middle\n",
]


def _in_process(repo: Path, code: str) -> str:
    script = ("import sys\nfrom git_memory.store import config\nfrom git_memory.store.locate "
              "import discover\ndirs = discover()\n" + code)
    result = subprocess.run([sys.executable, "-c", script], cwd=repo, capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    return result.stdout


@pytest.mark.parametrize("text", PLAIN + ODD)
def test_cheap_reader_agrees_with_git_or_defers(git_repo: Path, text: str) -> None:
    _append(git_repo / ".git" / "config", text)
    report = _in_process(git_repo, (
        "ours = config.settings(dirs)\n"
        "print('subprocess' in sys.modules)\n"
        "print(ours == config._from_git(dirs))\n"))
    deferred, agrees = report.split()
    assert agrees == "True"
    assert deferred == str(text in ODD)


@pytest.mark.parametrize("text", INVALID)
def test_config_git_refuses_is_refused(git_repo: Path, text: str) -> None:
    _append(git_repo / ".git" / "config", text)
    git_says = subprocess.run(["git", "config", "--list"], cwd=git_repo, capture_output=True, text=True)
    assert git_says.returncode != 0 and "bad config line" in git_says.stderr
    # `git memory` would stop in git itself; the git-memory script (as hooks run it) must
    # stop too, with git's words.
    result = subprocess.run(["git-memory", "list"], cwd=git_repo, capture_output=True, text=True)
    assert result.returncode == 1
    assert result.stderr.startswith("error: bad config line ")
    assert result.stderr.strip().endswith(".git/config")


def test_plain_config_costs_no_git_process(git_repo: Path) -> None:
    git("config", "memory.ref", "kb", cwd=git_repo)
    report = _in_process(git_repo, (
        "from git_memory.store.locate import memory_ref\n"
        "print(memory_ref(dirs), config.get_bool(dirs, 'memory.autoSync'), 'subprocess' in sys.modules)\n"))
    assert report.split() == ["refs/heads/kb", "False", "False"]


@pytest.mark.parametrize(("value", "expected"), [
    (None, True), ("", False), ("true", True), ("YES", True), ("On", True), ("1", True),
    ("false", False), ("No", False), ("off", False), ("0", False), ("2k", True), ("0x0", False),
    ("010", True), ("-1", True),
])
def test_the_one_boolean_parser_follows_git(git_repo: Path, value: str | None, expected: bool) -> None:
    line = "\tflag\n" if value is None else f"\tflag = {value}\n"
    _append(git_repo / ".git" / "config", "[memory]\n" + line)
    git_says = git("config", "--type=bool", "memory.flag", cwd=git_repo).strip()
    assert git_says == str(expected).lower()
    assert _in_process(git_repo, "print(config.get_bool(dirs, 'memory.flag'))").strip() == str(expected)


def test_config_change_in_the_same_process_is_seen(git_repo: Path) -> None:
    report = _in_process(git_repo, (
        "import subprocess\n"
        "print(config.get_bool(dirs, 'memory.autoSync'))\n"
        "subprocess.run(['git', 'config', 'memory.autoSync', 'yes'], check=True)\n"
        "print(config.get_bool(dirs, 'memory.autoSync'))\n"))
    assert report.split() == ["False", "True"]


def test_system_file_as_git_reads_it(git_repo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    system = _write(tmp_path / "system-gitconfig", "[memory]\n\tref = kb-system\n\tautoSync\n")
    monkeypatch.delenv("GIT_CONFIG_NOSYSTEM")
    monkeypatch.setenv("GIT_CONFIG_SYSTEM", str(system))
    code = "print(config.get_str(dirs, 'memory.ref'), config.get_bool(dirs, 'memory.autoSync'), 'subprocess' in sys.modules)"
    assert _in_process(git_repo, code).split() == ["kb-system", "True", "False"]
    # A git outside /usr has its own system file, which only it knows: ask it.
    elsewhere = tmp_path / "bin"
    elsewhere.mkdir()
    (elsewhere / "git").symlink_to(subprocess.run(["which", "git"], capture_output=True, text=True).stdout.strip())
    monkeypatch.delenv("GIT_CONFIG_SYSTEM")
    monkeypatch.setenv("PATH", f"{elsewhere}{os.pathsep}{os.environ['PATH']}")
    expected = git("config", "--get", "memory.ref", cwd=git_repo, check=False).strip() or "None"
    assert _in_process(git_repo, "print(config.get_str(dirs, 'memory.ref'), 'subprocess' in sys.modules)").split() == [
        expected, "True"]


def test_GIT_CONFIG_does_not_replace_the_config_files(git_repo: Path, gm, tmp_path: Path) -> None:
    # Only `git config` itself reads GIT_CONFIG; our fallback runs `git config`, so it
    # must not let that variable swap the user's files for another one.
    git("config", "memory.ref", "kb-real", cwd=git_repo)
    other = _write(tmp_path / "other", "[memory]\n\tref = kb-other\n")
    env = {"GIT_CONFIG": str(other), "GIT_CONFIG_PARAMETERS": "'memory.autosync'='false'"}
    assert gm("add", "FACT: where does it go", env=env).returncode == 0
    assert tip(git_repo, "refs/heads/kb-real") is not None
    assert tip(git_repo, "refs/heads/kb-other") is None

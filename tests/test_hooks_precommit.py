"""The `.pre-commit-hooks.yaml` manifest, validated and run by the real pre-commit.

No network: the manifest's hooks are `language: script`, so pre-commit clones the hook
repository and builds no environment. The tests build that repository from this checkout's
manifest and entry script (a local path is a valid `repo:`), so what runs is what ships;
the script runs the `git-memory` on PATH (this checkout's editable install).
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from pathlib import Path

import yaml

from conftest import git, tip
from hooks_support import commit, entries, fake_aws_key, head, local_flags

from git_memory.githooks.install import render
from hooks_support import ENTRY, MANIFEST, PRE_COMMIT, ROOT, _pre_commit, hook_repository, use_pre_commit

# pre-commit is in [test]: a suite without it fails here instead of skipping.
assert PRE_COMMIT is not None, "pre-commit (in the [test] extra) is not installed"
def test_manifest_is_valid_and_says_what_the_issue_asks() -> None:
    assert _pre_commit("validate-manifest", str(MANIFEST), cwd=ROOT).returncode == 0
    hooks = yaml.safe_load(MANIFEST.read_text())
    stages = {h["id"]: h["stages"] for h in hooks}
    assert stages == {
        "git-memory-commit-msg": ["commit-msg"],
        "git-memory-capture": ["post-commit"],
        "git-memory-post-checkout": ["post-checkout"],
        "git-memory-post-merge": ["post-merge"],
        "git-memory-pre-push": ["pre-push"],
    }
    for hook in hooks:
        assert hook["always_run"] is True and hook["language"] == "script"
        assert hook["entry"] == "hooks/pre-commit-entry.sh " + hook["stages"][0]
        # Only commit-msg takes a file: the message, as git hands it over.
        assert hook["pass_filenames"] is (hook["stages"] == ["commit-msg"])
    assert os.access(ENTRY, os.X_OK)
    # The manifest says how to get the command the hooks run (and you recall with).
    assert "pipx install git-memory-cli" in MANIFEST.read_text()


def test_entry_and_shim_share_one_marker_test() -> None:
    """pre-commit runs the entry script from its clone, with no install step to write the
    patterns in, so they are literal there: the same as the installed shim's, which come
    from model.ENTRY_TYPES."""
    def function(text: str) -> str:
        return re.search(r"^has_marker\(\) \{\n.*?^\}\n", text, re.M | re.S).group(0)

    installed = function(render("commit-msg"))
    assert "LEARNED:*" in installed
    assert function(ENTRY.read_text(encoding="utf-8")) == installed


def test_a_real_pre_commit_run_captures_and_refuses(git_repo: Path, gm, tmp_path: Path) -> None:
    use_pre_commit(git_repo, hook_repository(tmp_path / "hooks-repo"))
    done = commit(git_repo, "Work\n\nLEARNED: pre-commit users capture too #precommit", "a.py")
    assert "captured 1 entry" in done.stdout + done.stderr  # the user sees it
    (entry,) = entries(git_repo)
    assert entry["content"] == "pre-commit users capture too" and entry["tags"] == ["precommit"]
    assert entry["origin"]["commit"] == head(git_repo)

    before, memory = head(git_repo), tip(git_repo)
    refused = commit(git_repo, f"LEARNED: key {fake_aws_key()}", "b.py", check=False)
    assert refused.returncode != 0
    assert "aws-access-key-id" in refused.stdout + refused.stderr
    assert fake_aws_key() not in refused.stdout + refused.stderr
    assert head(git_repo) == before and tip(git_repo) == memory

    git("rm", "-q", "a.py", cwd=git_repo)
    git("commit", "-q", "-m", "drop a", cwd=git_repo)
    for target in ("HEAD~1", "main"):  # back to a commit without a.py: its entry is stale
        subprocess.run(["git", "checkout", "-q", target], cwd=git_repo, check=True,
                       env={**os.environ, "GIT_MEMORY_HOOK_SYNC": "1"})  # the check in the hook
    assert local_flags(git_repo / ".git")[entry["id"]][0] == "stale"


def test_markerless_commit_and_checkout_start_no_python(git_repo: Path, tmp_path: Path) -> None:
    """A `git-memory` wrapper first on PATH logs every start: none for plain work."""
    log = tmp_path / "starts.log"
    wrapper = tmp_path / "bin" / "git-memory"
    wrapper.parent.mkdir()
    real = shutil.which("git-memory")
    wrapper.write_text(f'#!/bin/sh\necho "$*" >> "{log}"\nexec "{real}" "$@"\n')
    wrapper.chmod(0o755)
    env = {**os.environ, "PATH": f"{wrapper.parent}{os.pathsep}{os.environ['PATH']}",
           "GIT_MEMORY_HOOK_SYNC": "1"}
    use_pre_commit(git_repo, hook_repository(tmp_path / "hooks-repo"))
    done = commit(git_repo, "Plain work\n\nNo knowledge here.", "a.py", env=env)
    assert "git-memory (capture" in done.stdout + done.stderr  # pre-commit did run our hooks
    for args in (["checkout", "-q", "-b", "topic"], ["checkout", "-q", "main"]):
        subprocess.run(["git", *args], cwd=git_repo, env=env, check=True, capture_output=True)
    assert not log.exists()
    commit(git_repo, "More\n\nFACT: the wrapper sees this one", "b.py", env=env)
    assert log.read_text().splitlines() == ["hook commit-msg .git/COMMIT_EDITMSG",
                                            "hook post-commit"]


def test_without_the_command_a_hook_says_how_to_get_it(git_repo: Path, tmp_path: Path) -> None:
    use_pre_commit(git_repo, hook_repository(tmp_path / "hooks-repo"), ["git-memory-capture"])
    # pre-commit's git hook names its own interpreter, so it still runs with our bin off PATH.
    path = os.pathsep.join(p for p in os.environ["PATH"].split(os.pathsep)
                           if not (Path(p) / "git-memory").exists())
    done = commit(git_repo, "LEARNED: nobody will capture this", "a.py", env={"PATH": path})
    said = done.stdout + done.stderr
    assert "git-memory command is not on PATH" in said and "pipx install git-memory-cli" in said
    assert tip(git_repo) is None


def test_pre_push_through_pre_commit_refuses_a_secret(git_repo: Path, tmp_path: Path) -> None:
    from hooks_support import _hand_written_memory_commit

    use_pre_commit(git_repo, hook_repository(tmp_path / "hooks-repo"), ["git-memory-pre-push"])
    bare = tmp_path / "remote.git"
    git("init", "-q", "--bare", str(bare), cwd=tmp_path)
    git("remote", "add", "origin", str(bare), cwd=git_repo)
    git("branch", "git-memory", _hand_written_memory_commit(git_repo, f"k {fake_aws_key()}", None),
        cwd=git_repo)
    result = subprocess.run(["git", "push", "origin", "git-memory"], cwd=git_repo,
                            capture_output=True, text=True)
    assert result.returncode != 0
    assert "aws-access-key-id" in result.stdout + result.stderr
    assert fake_aws_key() not in result.stdout + result.stderr
    assert git("branch", "--list", cwd=bare).strip() == ""

"""The `.pre-commit-hooks.yaml` manifest, validated and run by the real pre-commit.

No network: pre-commit would pip-install a `language: python` repository, so the
run uses a `repo: local` configuration built from the manifest's own hooks (same
ids, entries, stages, always_run and pass_filenames) with `language: system`,
which runs the git-memory on PATH (this checkout's editable install).
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest
import yaml

from conftest import git, tip
from hooks_support import commit, entries, fake_aws_key, head, local_flags

ROOT = Path(__file__).resolve().parents[1]
MANIFEST = ROOT / ".pre-commit-hooks.yaml"
PRE_COMMIT = shutil.which("pre-commit")
pytestmark = pytest.mark.skipif(PRE_COMMIT is None, reason="pre-commit is in the test extras")


def _pre_commit(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run([PRE_COMMIT, *args], cwd=cwd, capture_output=True, text=True)


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
        assert hook["always_run"] is True and hook["pass_filenames"] is False
        assert hook["entry"] == "git-memory hook " + hook["stages"][0]


def test_a_real_pre_commit_run_captures_and_refuses(git_repo: Path, gm) -> None:
    hooks = yaml.safe_load(MANIFEST.read_text())
    local = [{**hook, "language": "system"} for hook in hooks]
    config = {"repos": [{"repo": "local", "hooks": local}]}
    (git_repo / ".pre-commit-config.yaml").write_text(yaml.safe_dump(config, sort_keys=False))
    git("add", ".pre-commit-config.yaml", cwd=git_repo)
    git("commit", "-q", "-m", "pre-commit config", cwd=git_repo)
    (git_repo / ".git" / "hooks").mkdir(exist_ok=True)
    installed = _pre_commit("install", "--hook-type", "commit-msg", "--hook-type", "post-commit",
                            "--hook-type", "post-checkout", "--hook-type", "post-merge",
                            "--hook-type", "pre-push", cwd=git_repo)
    assert installed.returncode == 0, installed.stderr
    assert "pre-commit" in (git_repo / ".git" / "hooks" / "post-commit").read_text()

    commit(git_repo, "Work\n\nLEARNED: pre-commit users capture too #precommit", "a.py")
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
    git("checkout", "-q", "-b", "elsewhere", cwd=git_repo)  # post-checkout via pre-commit
    assert local_flags(git_repo / ".git")[entry["id"]][0] == "stale"


def test_pre_push_through_pre_commit_refuses_a_secret(git_repo: Path, tmp_path: Path) -> None:
    from test_hooks_checks import _hand_written_memory_commit

    hooks = yaml.safe_load(MANIFEST.read_text())
    local = [{**hook, "language": "system"} for hook in hooks if hook["stages"] == ["pre-push"]]
    (git_repo / ".pre-commit-config.yaml").write_text(
        yaml.safe_dump({"repos": [{"repo": "local", "hooks": local}]}))
    git("add", ".pre-commit-config.yaml", cwd=git_repo)
    git("commit", "-q", "-m", "pre-commit config", cwd=git_repo)
    (git_repo / ".git" / "hooks").mkdir(exist_ok=True)
    assert _pre_commit("install", "--hook-type", "pre-push", cwd=git_repo).returncode == 0
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

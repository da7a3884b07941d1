"""Secret detectors: every rule catches its fake token, ordinary text passes.

Tokens are assembled here at run time from harmless pieces; none is stored whole.
"""

from __future__ import annotations

import pytest

import re
import subprocess
from pathlib import Path

from git_memory.errors import SecretFound
from git_memory.githooks.install import render
from git_memory.sanitize.pipeline import clean, secret_rule
from git_memory.sanitize.secrets import DETECTORS, find_secret, rules


def _rep(piece: str, n: int) -> str:
    return (piece * (n // len(piece) + 1))[:n]


FAKES: dict[str, str] = {
    "aws-access-key-id": "AKIA" + _rep("Z7Q2", 16),
    "aws-secret-access-key": "aws_secret_access_key = " + _rep("wJalrXUtnFEMIK7MDENGbPxRfiCY", 40),
    "github-token": "gh" + "p_" + _rep("x9Yz", 36),
    "github-fine-grained-token": "github" + "_pat_" + _rep("11AB_cd", 82),
    "gitlab-token": "gl" + "pat-" + _rep("Ab1_", 20),
    "slack-token": "xo" + "xb-" + "1234567890-1234567890123-" + _rep("aBcD", 24),
    "slack-webhook": "https://hooks.slack.com/services/" + "T0000/B0000/" + _rep("XyZ1", 24),
    "stripe-key": "sk" + "_live_" + _rep("4eC39Hq", 24),
    "anthropic-api-key": "sk-" + "ant-api03-" + _rep("Ab3-_x", 93),
    "openai-api-key": "sk-" + "proj-" + _rep("Ab3_x-", 48),
    "npm-token": "np" + "m_" + _rep("a1B2", 36),
    "pypi-token": "pypi-" + "AgEIcHlwaS5vcmc" + _rep("CJDk4-_", 60),
    "google-api-key": "AI" + "za" + _rep("SyD-9_x", 35),
    "google-oauth-client-secret": "GOCSPX-" + _rep("a1B2-_", 28),
    "private-key-block": "-----BEGIN " + "RSA PRIVATE KEY-----\nMIIE...",
    "jwt": "ey" + "J" + _rep("hbGciOiJ", 20) + ".ey" + "J" + _rep("zdWIiOi", 20) + "." + _rep("SflKxw", 20),
    "huggingface-token": "h" + "f_" + _rep("AbCd", 34),
    "sendgrid-api-key": "S" + "G." + _rep("Ab1_", 22) + "." + _rep("Cd2-", 43),
    "digitalocean-token": "do" + "p_v1_" + _rep("a1b2c3", 64),
    "shopify-token": "shp" + "at_" + _rep("a1b2c3", 32),
    "discord-webhook": "https://discord.com/api/webhooks/" + "123456789/" + _rep("Ab1-_", 68),
    "telegram-bot-token": "123456789" + ":AA" + _rep("Ab1-_", 33),
    "azure-storage-key": "AccountKey=" + _rep("Ab1+/", 86) + "==",
    "credentials-in-url": "postgres://deploy:" + _rep("s3cr3tV4lue", 14) + "@db.internal:5432/app",
}


def test_at_least_fifteen_detectors_each_with_a_fake() -> None:
    assert len(rules()) >= 15
    assert sorted(FAKES) == sorted(rules())


@pytest.mark.parametrize("rule", sorted(FAKES))
def test_each_detector_catches_its_token_in_prose(rule: str) -> None:
    text = f"LEARNED: the setting is {FAKES[rule]} in production."
    assert find_secret(text) == rule
    with pytest.raises(SecretFound) as caught:
        clean(text)
    assert rule in str(caught.value) and FAKES[rule] not in str(caught.value)


@pytest.mark.parametrize("text", [
    "commit 3f2a9c1d8e7b6a5f4e3d2c1b0a9f8e7d6c5b4a3f fixed it",
    "uuid 123e4567-e89b-12d3-a456-426614174000 is the tenant",
    "connect with postgres://user:password@localhost/db in the docs",
    "use https://$USER:${TOKEN}@example.com/repo.git from CI",
    "the AKIA prefix marks AWS access keys; sk-ant- marks Anthropic keys",
    "ghp_ tokens are classic GitHub tokens; gho_ are OAuth ones",
    "-----BEGIN PUBLIC KEY----- is fine to share",
    "eyJ alone is just base64 for '{\"'",
    "task-1234567890 and sk_test_ mentioned without a key",
])
def test_ordinary_text_is_not_a_secret(text: str) -> None:
    assert find_secret(text) is None


def test_detectors_have_descriptions() -> None:
    assert all(d.description for d in DETECTORS)


def test_invisible_characters_and_full_width_letters_do_not_hide_a_key() -> None:
    key = FAKES["aws-access-key-id"]
    assert secret_rule(key[:4] + "\u200b\u2066" + key[4:]) == "aws-access-key-id"
    wide = "".join(chr(ord(c) + 0xFEE0) for c in key)  # full-width forms fold under NFKC
    assert secret_rule(wide) == "aws-access-key-id"


@pytest.mark.parametrize("rule", sorted(FAKES))
def test_the_commit_msg_shim_prefilter_sees_every_detector(rule: str, tmp_path: Path) -> None:
    """The shim skips Python for ASCII messages its grep does not match: it must match
    wherever a detector does, or a secret would slip through commit-msg."""
    shim = render("commit-msg")
    hints = re.search(r"secrets='([^']+)'", shim).group(1)
    message = tmp_path / "msg"
    message.write_text(f"LEARNED: the setting is {FAKES[rule]} in production.\n")
    assert subprocess.run(["grep", "-qE", hints, str(message)], env={"LC_ALL": "C"}).returncode == 0
    message.write_text("LEARNED: a task-based queue is fine for plain prose.\n")
    assert subprocess.run(["grep", "-qE", hints, str(message)], env={"LC_ALL": "C"}).returncode == 1


def test_every_detector_has_its_literal_gate() -> None:
    from git_memory.sanitize.secrets import _LITERALS

    assert set(_LITERALS) == {d.rule for d in DETECTORS}

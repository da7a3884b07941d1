"""`import` keeps the entry and loses the secret (`--redact-secrets`, the default).

Every detector's fake token is replaced by `[REDACTED:rule]`, the rest of the text is
kept, the audit log records the rule (never the value), and nothing of the token reaches
the branch, the index or the output. With `--skip-secrets` such a line is rejected
instead (and the summary says how to keep it).
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from conftest import err, out, tip
from git_memory.sanitize.pipeline import clean
from git_memory.sanitize.secrets import find_secret, redact_secrets
from secrets_support import FAKES


@pytest.mark.parametrize("rule", sorted(FAKES))
def test_each_detector_token_is_redacted_and_the_prose_kept(rule: str) -> None:
    text = f"LEARNED: the deploy reads {FAKES[rule]} at start.\nKeep this line."
    redacted, fired = redact_secrets(text)
    assert fired == [rule]
    assert f"[REDACTED:{rule}]" in redacted
    assert find_secret(redacted) is None
    assert redacted.startswith("LEARNED: the deploy reads ")
    if rule != "private-key-block":  # a key without its END line is cut to the end of the text
        assert redacted.endswith(" at start.\nKeep this line.")
    # The token's last characters are secret, except in a URL, which keeps user and host.
    secret = FAKES[rule].split(":")[2].split("@")[0] if rule == "credentials-in-url" else FAKES[rule][-16:]
    assert secret not in redacted


def test_a_private_key_goes_up_to_its_end_line() -> None:
    key = "-----BEGIN " + "OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAA\nAAAABG5vbmUAAAA\n" \
          "-----END " + "OPENSSH PRIVATE KEY-----"
    redacted, fired = redact_secrets(f"Key for the box:\n{key}\nUse it only from the bastion.")
    assert fired == ["private-key-block"]
    assert redacted == ("Key for the box:\n[REDACTED:private-key-block]\n"
                        "Use it only from the bastion.")


def test_a_url_keeps_user_and_host_and_placeholders_stay() -> None:
    text = ("prod: postgres://deploy:Zq81xx77Kp2@db.internal:5432/app; "
            "docs: postgres://user:password@localhost/app")
    redacted, fired = redact_secrets(text)
    assert fired == ["credentials-in-url"]
    assert "postgres://deploy:[REDACTED:credentials-in-url]@db.internal:5432/app" in redacted
    assert "postgres://user:password@localhost/app" in redacted  # a placeholder, not a secret


def test_clean_refuses_without_redact_and_audits_rule_only_with_it() -> None:
    text = f"LEARNED: CI pushes with {FAKES['github-token']} from the runner"
    with pytest.raises(Exception) as refused:
        clean(text)
    assert "github-token" in str(refused.value)
    cleaned, actions = clean(text, redact=True)
    assert cleaned == "LEARNED: CI pushes with [REDACTED:github-token] from the runner"
    assert [(a.rule, a.action) for a in actions] == [("github-token", "redacted")]
    assert FAKES["github-token"] not in json.dumps([a.__dict__ for a in actions])


def _lines(tmp: Path) -> Path:
    rows = [
        {"type": "learned", "content": "Local DB: postgresql://app:Zq81xx77Kp2qq@10.0.1.1/app_db"},
        {"type": "learned", "content": f"Stripe test mode uses {FAKES['stripe-key']} in CI"},
        {"type": "decision", "content": "Deploys happen on Tuesdays"},
    ]
    path = tmp / "secrets.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


def test_import_skip_secrets_rejects_them_and_says_how_to_keep_them(
    git_repo: Path, gm, tmp_path: Path
) -> None:
    result = gm("import", "--skip-secrets", str(_lines(tmp_path)))
    assert result.returncode == 0, err(result)
    assert "imported 1, skipped 0 duplicates, rejected 2" in out(result)
    assert ("2 lines held a secret and were skipped; without --skip-secrets they are imported"
            " with it replaced by [REDACTED:rule]") in err(result)
    assert "Zq81xx77Kp2qq" not in out(result) + err(result)


def test_import_redacts_by_default_and_says_where(git_repo: Path, gm, tmp_path: Path) -> None:
    result = gm("import", str(_lines(tmp_path)))
    assert result.returncode == 0, err(result)
    assert "imported 3, skipped 0 duplicates, rejected 0" in out(result)
    assert "secrets replaced by [REDACTED:rule] in 2: line 1, line 2" in out(result)
    assert "Zq81xx77Kp2qq" not in out(result) + err(result)
    contents = {e["content"] for e in json.loads(out(gm("list", "--json")))}
    assert "Stripe test mode uses [REDACTED:stripe-key] in CI" in contents


def test_import_with_redact_secrets_keeps_entries_without_secrets(
    git_repo: Path, gm, tmp_path: Path
) -> None:
    result = gm("import", "--redact-secrets", "--json", str(_lines(tmp_path)))
    assert result.returncode == 0, err(result)
    summary = json.loads(out(result))
    assert summary["imported"] == 3 and summary["rejected"] == 0
    assert summary["redacted"] == ["line 1", "line 2"]
    listed = json.loads(out(gm("list", "--json")))
    contents = sorted(e["content"] for e in listed)
    assert "Local DB: postgresql://app:[REDACTED:credentials-in-url]@10.0.1.1/app_db" in contents
    assert "Stripe test mode uses [REDACTED:stripe-key] in CI" in contents
    # Nothing of either secret anywhere on the branch, in the index or in the audit log.
    branch = subprocess.run(["git", "log", "-p", "refs/heads/git-memory"], capture_output=True,
                            text=True, cwd=git_repo).stdout
    common = git_repo / ".git" / "git-memory"
    for value in ("Zq81xx77Kp2qq", FAKES["stripe-key"]):
        assert value not in branch
        assert value.encode() not in (common / "index.sqlite").read_bytes()
        assert value not in (common / "audit.jsonl").read_text(encoding="utf-8")
    audit = [json.loads(line) for line in (common / "audit.jsonl").read_text().splitlines()]
    assert {(a["rule"], a["action"]) for a in audit} >= {
        ("credentials-in-url", "redacted"), ("stripe-key", "redacted")}
    # A text that was nothing but the secret is not kept as an empty entry.
    bare = tmp_path / "bare.jsonl"
    bare.write_text(json.dumps({"type": "learned", "content": f" {FAKES['npm-token']}. "}) + "\n",
                    encoding="utf-8")
    lone = json.loads(out(gm("import", "--redact-secrets", "--json", str(bare))))
    assert lone["imported"] == 0 and lone["redacted"] == []
    assert lone["rejects"] == [{"where": "line 1", "reason": "content is nothing but a secret;"
                                " nothing is left to keep"}]
    # Importing the same file again adds nothing: the redacted texts are duplicates now.
    again = gm("import", "--redact-secrets", "--json", str(_lines(tmp_path)))
    assert json.loads(out(again))["imported"] == 0
    assert tip(git_repo) is not None

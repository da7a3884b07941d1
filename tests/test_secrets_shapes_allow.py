"""Issue #32's way out of a false refusal: a person lists the finding's digest in the
committed `.gitmemory-allow` (or puts `git-memory: allow-secret` on its line); `add`,
`import`, the commit hook and `scan` then let it through and the audit log says so, and
the MCP server (an agent) is still refused, digest or marker.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

from conftest import err, out
from hooks_support import audit_items, commit
from mcp_support import run_session
from secrets_support import AN, g
from git_memory.sanitize import secrets_allowlist as allowlist
from git_memory.sanitize.secrets import find_secret

HASH = "$2" + "b$12$" + g(AN + "./", 53, "allowed-hash")
TEXT = f"LEARNED: the seed user's hash is {HASH} in the fixtures"


def _refused_digest(repo: Path, gm) -> str:
    result = gm("add", TEXT)
    assert result.returncode != 0 and "password-hash" in err(result)
    detail = [a for a in audit_items(repo) if a["action"] == "refused"][-1]["detail"]
    found = re.search(r"sha256 ([0-9a-f]{8})", detail)
    assert found, detail
    return found.group(1)


def _entries(gm) -> list[dict]:
    result = gm("list", "--json")
    assert result.returncode == 0, err(result)
    return json.loads(out(result))


def _mcp_add(repo: Path, text: str):
    async def body(session):
        return await session.call_tool("add", {"text": text})

    return run_session(repo, body)


def test_an_allowed_finding_is_stored_audited_and_still_refused_through_mcp(git_repo, gm):
    digest = _refused_digest(git_repo, gm)
    assert _entries(gm) == []
    (git_repo / allowlist.ALLOW_FILE).write_text(
        f"# a fixture's hash of a throwaway password (reviewed)\nsha256:{digest}\n", encoding="utf-8")

    # a person's add: stored as written, and the audit log names rule, digest and why
    result = gm("add", TEXT)
    assert result.returncode == 0, err(result)
    stored = _entries(gm)
    assert len(stored) == 1 and HASH in stored[0]["content"]
    allowed = [a for a in audit_items(git_repo) if a["action"] == "allowed"]
    assert allowed and allowed[-1]["rule"] == "password-hash"
    assert digest in allowed[-1]["detail"] and allowlist.ALLOW_FILE in allowed[-1]["detail"]

    # `git memory scan` honours the list, and says what it let through
    result = gm("scan")
    assert result.returncode == 0, err(result)
    assert f"allowed: password-hash (sha256 {digest})" in err(result)

    # an agent through MCP: refused, with the allow file there and with the marker
    for text in (TEXT.replace("seed", "admin"), f"{TEXT} {allowlist.MARKER}"):
        done = _mcp_add(git_repo, text)
        assert done.is_error, done
        assert "password-hash" in done.content[0].text and HASH not in done.content[0].text
    assert len(_entries(gm)) == 1


def test_the_inline_marker_is_honoured_for_a_person_only(git_repo, gm, tmp_path):
    marked = f"{TEXT} ({allowlist.MARKER})"
    result = gm("add", marked)
    assert result.returncode == 0, err(result)
    assert any(a["action"] == "allowed" and "inline marker" in a["detail"]
               for a in audit_items(git_repo))
    # import: the marked line is stored, the same text unmarked is not
    source = tmp_path / "two.jsonl"
    other = TEXT.replace("seed", "ops")
    source.write_text(json.dumps({"type": "learned", "content": other + f" {allowlist.MARKER}",
                                  "key": "a"}) + "\n"
                      + json.dumps({"type": "learned", "content": other, "key": "b"}) + "\n",
                      encoding="utf-8")
    result = gm("import", str(source), "--json", "--skip-secrets")
    assert result.returncode == 0, err(result)
    summary = json.loads(out(result))
    assert len(summary["rejects"]) == 1 and "secret" in summary["rejects"][0]["reason"]
    # the commit hook lets a marked marker through, and refuses it unmarked
    assert gm("install").returncode == 0
    assert commit(git_repo, f"Work\n\nLEARNED: {other} {allowlist.MARKER}\n", "a.py",
                  check=False).returncode == 0
    assert commit(git_repo, f"Work\n\nLEARNED: {other}\n", "b.py", check=False).returncode != 0


def test_outside_honoured_nothing_is_allowed(tmp_path: Path) -> None:
    (tmp_path / allowlist.ALLOW_FILE).write_text(
        allowlist.value_digest(HASH)[:8] + "\n", encoding="utf-8")
    text = TEXT + " " + allowlist.MARKER
    assert find_secret(text) == "password-hash"
    with allowlist.honoured(tmp_path):
        assert find_secret(TEXT) is None and find_secret(text) is None
        with allowlist.refused():  # what the MCP tools and distillation run under
            assert find_secret(TEXT) == "password-hash"
        assert [r for r, _, _ in allowlist.take_allowed()] == ["password-hash"]
    assert find_secret(TEXT) == "password-hash"


def test_a_line_of_the_allow_file_that_is_no_digest_allows_nothing(tmp_path: Path) -> None:
    (tmp_path / allowlist.ALLOW_FILE).write_text("everything\n*\nsha256:\n1234567\n",
                                                 encoding="utf-8")
    assert allowlist.read_allow_file(tmp_path / allowlist.ALLOW_FILE) == ()
    with allowlist.honoured(tmp_path):
        assert find_secret(TEXT) == "password-hash"


def test_sync_lets_an_allowed_entry_arrive_where_the_list_is_committed(git_repo, gm, tmp_path):
    """A teammate's allowed entry is not redacted on arrival where the same allow file is
    in the work tree (the list is the code's, committed, not the memory branch's)."""
    from conftest import git, make_repo

    remote = tmp_path / "remote.git"
    git("init", "-q", "--bare", str(remote), cwd=tmp_path)
    git("remote", "add", "origin", str(remote), cwd=git_repo)
    assert gm("add", "FACT: a clean entry first").returncode == 0
    assert gm("push").returncode == 0
    other = make_repo(tmp_path / "other")
    git("remote", "add", "origin", str(remote), cwd=other)
    assert gm("sync", cwd=other).returncode == 0
    digest = allowlist.value_digest(HASH)[:8]
    (other / allowlist.ALLOW_FILE).write_text(f"sha256:{digest}\n", encoding="utf-8")
    result = gm("add", TEXT, cwd=other)
    assert result.returncode == 0, err(result)
    assert gm("sync", cwd=other).returncode == 0
    # this clone has the same allow file: the entry arrives as written
    (git_repo / allowlist.ALLOW_FILE).write_text(f"sha256:{digest}\n", encoding="utf-8")
    result = gm("sync")
    assert result.returncode == 0, err(result)
    assert "redacted what arrived" not in out(result)
    assert any(HASH in e["content"] for e in _entries(gm))

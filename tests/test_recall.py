"""`git memory recall`: nasty queries, every option, the JSON shape, hiding and demotion."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest

from conftest import err, out
from git_memory.model import Record, new_id, utc_now
from git_memory.store.branch import MemoryBranch
from git_memory.store.locate import discover

NASTY = [
    '"', '""', "'", "*", "**", "NEAR(", "NEAR(a b", "-", "--x", "-foo", ":", "a:b", "content:oauth",
    "()", "(", ")", "a AND", "OR", "NOT", "AND OR NOT", "^oauth", "oauth*", "{oauth}", "[x]",
    "redirect_uri\\", "\\", "%", "_", "a+b", "@@", "#oauth", "$(rm -rf /)", "`x`",
    "東京タワー", "Привет мир", "مرحبا", "שלום", "🙂 emoji", "ｆｕｌｌｗｉｄｔｈ", "e\u0301",
    "x" * 10_000, ("oauth redirect " * 700)[:10_000],
]


def import_entries(gm, tmp_path: Path, entries: list[dict]) -> None:
    data = tmp_path / "entries.jsonl"
    data.write_text("".join(json.dumps(e) + "\n" for e in entries), encoding="utf-8")
    result = gm("import", "--format", "jsonl", str(data))
    assert result.returncode == 0, err(result)


def recall_json(gm, *args: str) -> list[dict]:
    result = gm("recall", "--json", *args)
    assert result.returncode == 0, err(result)
    return json.loads(out(result))


@pytest.fixture
def memory(shared_repo, gm) -> Path:
    return shared_repo("recall-memory", lambda repo: import_entries(gm, repo.parent, [
        {"type": "learned", "content": "OAuth redirect_uri must match exactly, trailing slash included",
         "tags": ["oauth", "auth"], "key": "learned-oauth-redirect", "created": "2026-03-01T10:00:00Z"},
        {"type": "decision", "content": "Use Postgres timestamptz for every timezone-aware column",
         "tags": ["postgres"], "created": "2026-01-15T10:00:00Z"},
        {"type": "failure", "content": "The parseHttpHeader helper crashed on folded header lines",
         "tags": ["http"], "created": "2025-06-01T10:00:00Z"},
        {"type": "fact", "content": "東京タワーの高さは333メートルです", "created": "2026-02-01T10:00:00Z"},
        {"type": "pattern", "content": "Retry idempotent HTTP calls with jittered backoff",
         "tags": ["http"], "created": "2026-02-10T10:00:00Z"},
    ]))


@pytest.mark.parametrize("query", NASTY, ids=lambda q: repr(q[:20]))
def test_nasty_queries_never_fail(memory: Path, gm, query: str) -> None:
    result = gm("recall", "--json", "--", query)
    assert result.returncode == 0, err(result)
    assert isinstance(json.loads(out(result)), list)
    plain = gm("recall", "--", query)
    assert plain.returncode == 0, err(plain)
    assert "error" not in err(plain).lower()


def test_nasty_queries_with_a_match_still_find_it(memory: Path, gm) -> None:
    for query in ('"oauth"', "oauth*", "content:oauth", "NEAR(oauth redirect)", "(oauth)", "-oauth"):
        hits = recall_json(gm, "--", query)
        assert hits and hits[0]["key"] == "learned-oauth-redirect", query


def test_json_fields(memory: Path, gm) -> None:
    hits = recall_json(gm, "redirect uri")
    assert hits[0]["key"] == "learned-oauth-redirect"
    for name in ("id", "key", "type", "content", "tags", "status", "score", "created", "confidence"):
        assert name in hits[0], name
    assert hits[0]["type"] == "learned" and hits[0]["status"] == "active"
    assert hits[0]["tags"] == ["oauth", "auth"]
    assert isinstance(hits[0]["score"], float) and hits[0]["score"] > 0
    assert all(h["key"] is None for h in hits[1:])


def test_identifier_splitting_meets_both_ways(memory: Path, gm) -> None:
    assert recall_json(gm, "redirect URI")[0]["key"] == "learned-oauth-redirect"
    assert recall_json(gm, "redirect_uri")[0]["key"] == "learned-oauth-redirect"
    assert recall_json(gm, "redirectUri")[0]["key"] == "learned-oauth-redirect"
    assert "parseHttpHeader" in recall_json(gm, "parse http header")[0]["content"]
    assert "parseHttpHeader" in recall_json(gm, "parse_http_header")[0]["content"]


def test_stemming_and_stop_words(memory: Path, gm) -> None:
    hits = recall_json(gm, "how do I retry the calls?")
    assert "Retry idempotent" in hits[0]["content"]
    assert "timestamptz" in recall_json(gm, "timezones")[0]["content"]


def test_non_latin_scripts_match(memory: Path, gm) -> None:
    assert "東京タワー" in recall_json(gm, "東京タワー")[0]["content"]


def test_plain_output_is_one_readable_line_per_entry(memory: Path, gm) -> None:
    result = gm("recall", "http")
    lines = out(result).splitlines()
    assert len(lines) == 2
    assert any(line.split()[1] == "pattern" and "#http" in line and "ago" in line for line in lines)


def test_no_match_says_so(memory: Path, gm) -> None:
    result = gm("recall", "kubernetes")
    assert result.returncode == 0 and "no entries found" in out(result)
    assert recall_json(gm, "kubernetes") == []


def test_type_tag_since_limit(memory: Path, gm) -> None:
    assert {h["type"] for h in recall_json(gm, "http", "--type", "pattern")} == {"pattern"}
    assert [h["tags"] for h in recall_json(gm, "http OR postgres", "--tag", "postgres")] == [["postgres"]]
    assert recall_json(gm, "http", "--since", "2026-01-01") and all(
        h["created"] >= "2026-01-01" for h in recall_json(gm, "http", "--since", "2026-01-01"))
    assert len(recall_json(gm, "http", "--limit", "1")) == 1
    assert len(recall_json(gm, "http", "-n", "1")) == 1
    assert recall_json(gm, "http", "--since", "1d") == []


def test_recent(memory: Path, gm) -> None:
    recent = recall_json(gm, "--recent", "2")
    assert [h["created"][:10] for h in recent] == ["2026-03-01", "2026-02-10"]
    # with a query: ranked among the two newest only
    assert [h["type"] for h in recall_json(gm, "http", "--recent", "2")] == ["pattern"]
    assert len(out(gm("recall", "--recent", "3")).splitlines()) == 3


def test_stats(memory: Path, gm) -> None:
    stats = json.loads(out(gm("recall", "--stats", "--json")))
    assert stats["entries"] == 5
    assert stats["by_type"]["learned"] == 1 and stats["by_tag"]["http"] == 2
    assert stats["by_status"] == {"active": 5}
    assert stats["index"]["malformed_files"] == 0
    text = out(gm("recall", "--stats"))
    assert "5 entries" in text and "by type:" in text and "index:" in text


def test_usage_errors(memory: Path, gm) -> None:
    for args in ([], [""], ["   "], ["--limit", "0", "x"], ["--recent", "-1"], ["--bogus", "x"],
                 ["x", "--since", "last tuesday"], ["x", "--limit"]):
        result = gm("recall", *args)
        assert result.returncode == 2, (args, err(result))
        assert out(result) == ""


def test_help_goes_through_click(memory: Path, gm) -> None:
    result = gm("recall", "-h")
    assert result.returncode == 0 and "--recent" in out(result) and "--path" in out(result)


def _append(records: list[Record]) -> None:
    MemoryBranch(discover()).append(records, "test: hand-written records")


def _entry(content: str, **kw: object) -> Record:
    return Record(id=new_id(), type="learned", content=content, created=utc_now(),
                  author="T <t@example.com>", **kw)  # type: ignore[arg-type]


def test_superseded_and_redacted_hidden_unless_all(git_repo: Path, gm) -> None:
    old, new, secret = (_entry("Deploys run on Fridays at noon"),
                        _entry("Deploys run on Thursdays at noon"), _entry("Deploys keep a noon log"))
    _append([old, new, secret])
    _append([
        Record(id=new_id(), kind="supersede", created=utc_now(), author="T <t@example.com>",
               fields={"target": old.id, "by": new.id, "review_reason": "moved"}),
        Record(id=new_id(), kind="redact", created=utc_now(), author="T <t@example.com>",
               fields={"target": secret.id, "review_reason": "test"}),
    ])
    ids = [h["id"] for h in recall_json(gm, "deploys noon")]
    assert ids == [new.id]
    every = {h["id"]: h["status"] for h in recall_json(gm, "deploys noon", "--all")}
    # --all brings superseded entries back; a redacted entry's text has left the index
    # altogether (curation: redaction hides everywhere), so no query can find it.
    assert every == {new.id: "active", old.id: "superseded"}
    assert "[superseded]" in out(gm("recall", "deploys", "noon", "--all"))


def test_exact_duplicates_shown_once(git_repo: Path, gm) -> None:
    # Two clones may each add the same text; the writer cannot see the other one.
    _append([_entry("Cache keys include the tenant id"), _entry("cache keys include the tenant id.")])
    _append([_entry("Cache keys are short")])
    hits = recall_json(gm, "cache keys tenant")
    assert [h["content"].lower().rstrip(".") for h in hits].count("cache keys include the tenant id") == 1
    assert len(hits) == 2


def _flag(repo: Path, entry_id: str, flag: str) -> None:
    conn = sqlite3.connect(repo / ".git" / "git-memory" / "index.sqlite")
    conn.execute("INSERT OR REPLACE INTO local_flags(id, flag, reason, checked) VALUES (?,?,?,?)",
                 (entry_id, flag, "anchor src/gone.py is missing", utc_now()))
    conn.commit()
    conn.close()


def test_stale_entries_are_demoted_not_hidden(git_repo: Path, gm) -> None:
    best, weaker = _entry("Webhook signatures use HMAC SHA256 over the raw body"), _entry(
        "Webhook retries back off")
    _append([best, weaker])
    assert recall_json(gm, "webhook signatures HMAC")[0]["id"] == best.id
    _flag(git_repo, best.id, "stale")
    hits = recall_json(gm, "webhook signatures HMAC")
    assert [h["id"] for h in hits] == [weaker.id, best.id]
    assert hits[1]["stale"] is True and hits[1]["local_flag"] == "stale"
    assert "[stale here]" in out(gm("recall", "webhook"))


def test_contradicted_entry_demoted_a_little(git_repo: Path, gm) -> None:
    one, two = _entry("Builds cache the node modules folder"), _entry("Builds cache the node modules")
    _append([one, two])
    first = recall_json(gm, "builds cache node modules")
    assert first[0]["id"] == two.id  # shorter text, same words: wins by BM25
    _append([Record(id=new_id(), kind="contradict", created=utc_now(), author="T <t@example.com>",
                    fields={"target": two.id, "review_reason": "not any more"})])
    assert recall_json(gm, "builds cache node modules")[0]["id"] == one.id


def test_path_boosts_anchored_entries(git_repo: Path, gm) -> None:
    plain = _entry("Tokens expire after one hour in the session store")
    anchored = _entry("Tokens expire after one hour", origin={"paths": ["src/auth/session.py"]})
    other = _entry("Tokens expire quickly in tests", origin={"paths": ["tests/test_auth.py"]})
    _append([plain, anchored, other])
    hits = recall_json(gm, "tokens expire", "--path", "src/auth")
    assert hits[0]["id"] == anchored.id
    assert recall_json(gm, "tokens expire", "--path", "src/auth/session.py")[0]["id"] == anchored.id
    listed = recall_json(gm, "--path", "src")
    assert [h["id"] for h in listed] == [anchored.id]
    sub = git_repo / "src"
    sub.mkdir()
    result = gm("recall", "--json", "--path", "auth", cwd=sub)  # relative to the cwd
    assert [h["id"] for h in json.loads(out(result))] == [anchored.id]
    # a path prefix that is not a folder boundary does not count
    assert recall_json(gm, "--path", "src/au") == []

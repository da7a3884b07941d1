"""The web view without a browser: the server's guards (token, Host, read only, CSRF and
Origin), its binding to 127.0.0.1, search ranked as `recall`, an entry's provenance, and the
static export (no redacted text in any file). The application runs in-process through
Starlette's TestClient against a real repository; `serve` itself runs as a real process.
The browser tests are in test_web_browser.py."""

from __future__ import annotations

import dataclasses
import json
import os
import re
import shutil
import subprocess
import sys
import urllib.error
import urllib.request
from pathlib import Path

import pytest
from conftest import copy_repo, err, make_repo, out, tip
from rawcommit import commit_unscanned
from starlette.testclient import TestClient
from webmem import REDACTED_TEXT, Memory, build

from git_memory.commands import review
from git_memory.commands.serve import _accept, _bind, _reject
from git_memory.api.memory import Memory as Library
from git_memory.store.locate import discover
from git_memory.web import data
from git_memory.web.app import COOKIE, Review, Settings, create_app

TOKEN = "t0ken-for-the-tests"
PORT = 8765
BASE = f"http://127.0.0.1:{PORT}"
OURS = {"origin": BASE, "sec-fetch-site": "same-origin"}


@pytest.fixture
def memory(git_repo: Path, gm, built_once, monkeypatch: pytest.MonkeyPatch) -> Memory:
    """The memory webmem.build makes, built once for the run and copied into this test's
    repository (the tests read it or add review records; none tests the building). Its
    ids are kept beside it (memory.json), as another xdist worker may have built it."""

    def make(folder: Path) -> None:
        repo = make_repo(folder / "repo")
        with monkeypatch.context() as inside:
            inside.chdir(repo)
            made = build(gm, folder, extra=30)
        (folder / "memory.json").write_text(json.dumps(dataclasses.asdict(made)), encoding="utf-8")

    template = built_once("web-memory", make)
    shutil.rmtree(git_repo)
    copy_repo(template / "repo", git_repo)
    monkeypatch.chdir(git_repo)
    return Memory(**json.loads((template / "memory.json").read_text(encoding="utf-8")))


def _client(write: bool, csrf: str = "csrf-of-this-session") -> TestClient:
    settings = Settings(dirs=discover(), token=TOKEN, port=PORT, write=write, csrf=csrf,
                        review=Review(queue=review.queue, accept=_accept, reject=_reject))
    return TestClient(create_app(settings), base_url=BASE, follow_redirects=False)


def _status(gm, entry: str) -> str:
    return json.loads(out(gm("show", entry, "--json")))["status"]


def test_a_request_without_the_token_is_refused(memory: Memory) -> None:
    client = _client(write=False)
    for path in ("/", "/graph", "/static/style.css", f"/entry/{memory.merged}", "/review"):
        assert client.get(path).status_code == 403, path
    assert client.get("/?token=wrong").status_code == 403
    first = client.get(f"/?token={TOKEN}")
    assert first.status_code == 200
    assert "HttpOnly" in first.headers["set-cookie"] and "SameSite=Strict" in first.headers["set-cookie"]
    assert "script-src 'self'" in first.headers["content-security-policy"]
    assert first.headers["referrer-policy"] == "same-origin"
    # after the first visit the cookie carries the token
    assert client.get("/graph").status_code == 200
    client.cookies.clear()
    assert client.get("/graph").status_code == 403


def test_another_host_name_is_refused_even_with_the_token(memory: Memory) -> None:
    client = _client(write=False)
    refused = client.get(f"/?token={TOKEN}", headers={"host": "attacker.example:8765"})
    assert refused.status_code == 403
    assert client.get(f"/?token={TOKEN}", headers={"host": f"localhost:{PORT}"}).status_code == 200


def _queue_page(client: TestClient) -> str:
    page = client.get(f"/review?token={TOKEN}")
    assert page.status_code == 200
    return page.text


def test_read_only_refuses_a_decision_and_changes_nothing(memory: Memory, git_repo: Path, gm) -> None:
    client = _client(write=False)
    page = _queue_page(client)
    assert memory.waiting[0] in page and "<form" not in page.split("<main")[1]
    before = tip(git_repo)
    sent = client.post("/review", headers=OURS,
                       data={"csrf": "csrf-of-this-session", "id": memory.waiting[0], "action": "accept"})
    assert sent.status_code == 403 and "read only" in sent.text
    assert tip(git_repo) == before
    assert _status(gm, memory.waiting[0]) == "needs_review"


def test_a_cross_site_post_is_refused_and_changes_nothing(memory: Memory, git_repo: Path, gm) -> None:
    client = _client(write=True)
    page = _queue_page(client)
    csrf = re.search(r'name="csrf" value="([^"]+)"', page).group(1)
    before = tip(git_repo)
    form = {"csrf": csrf, "id": memory.waiting[0], "action": "accept"}
    tries = [
        ({"origin": "http://attacker.example"}, {k: v for k, v in form.items() if k != "csrf"}),
        ({"origin": "http://attacker.example"}, form),  # even with a stolen CSRF token
        ({"sec-fetch-site": "cross-site"}, form),
        ({}, form),  # neither Origin nor Sec-Fetch-Site: not a form of ours
        (OURS, {**form, "csrf": "a-guess"}),
        (OURS, {k: v for k, v in form.items() if k != "csrf"}),
    ]
    for headers, body in tries:
        sent = client.post("/review", headers=headers, data=body)
        assert sent.status_code == 403, (headers, body)
    assert tip(git_repo) == before
    assert _status(gm, memory.waiting[0]) == "needs_review"


def test_accept_and_reject_with_write_make_the_review_records(memory: Memory, git_repo: Path, gm) -> None:
    client = _client(write=True)
    csrf = re.search(r'name="csrf" value="([^"]+)"', _queue_page(client)).group(1)
    accepted = client.post("/review", headers=OURS,
                           data={"csrf": csrf, "id": memory.waiting[0], "action": "accept"})
    assert accepted.status_code == 303 and accepted.headers["location"].startswith("/review?done=accepted")
    assert _status(gm, memory.waiting[0]) == "canonical"
    without_reason = client.post("/review", headers=OURS,
                                 data={"csrf": csrf, "id": memory.waiting[1], "action": "reject"})
    assert without_reason.status_code == 400 and "reason" in without_reason.text
    rejected = client.post("/review", headers=OURS, data={
        "csrf": csrf, "id": memory.waiting[1], "action": "reject", "reason": "not true here"})
    assert rejected.status_code == 303
    assert _status(gm, memory.waiting[1]) == "redacted"
    queue = json.loads(out(gm("review", "--json")))
    assert not {e["id"] for e in queue} & set(memory.waiting)
    log = subprocess.run(["git", "log", "-2", "--format=%s", "git-memory"], cwd=git_repo,
                         capture_output=True, text=True).stdout
    assert "memory: review, reject" in log and "memory: review, accept" in log


QUERIES = ("beads database sync", "symlink AGENTS.md", "parser cache files", "memory recall hooks")


def test_search_ranks_as_recall_does(memory: Memory, gm) -> None:
    with Library() as index:
        for query in QUERIES:
            recall = [e["id"] for e in json.loads(out(gm("recall", "--json", "-n", "10", query)))]
            assert recall, query
            assert [e["id"] for e in data.search(index, query, limit=10)] == recall, query
        typed = data.search(index, "cache", types=["fact"])
        assert typed and {e["type"] for e in typed} == {"fact"}
        old = data.search(index, "parser cache", status="superseded")
        assert {e["id"] for e in old} == set(memory.chain[:2])


def test_an_entry_shows_its_provenance_and_a_redacted_one_is_not_found(memory: Memory) -> None:
    client = _client(write=False)
    page = client.get(f"/entry/{memory.chain[1]}?token={TOKEN}")
    assert page.status_code == 200
    assert page.text.count('class="prov-node') == 3  # the chain of three
    merged = client.get(f"/entry/{memory.merged}").text
    assert merged.count('class="prov-node') == 3 and "e-merged_from" in merged
    missing = client.get(f"/entry/{memory.redacted}")
    assert missing.status_code == 404 and REDACTED_TEXT not in missing.text
    with Library() as index:
        whole = data.whole(index)
    assert not any(n["id"] == "entry:" + memory.redacted for n in whole["nodes"])
    assert {"entry:" + memory.merged, "entry:" + memory.merge_sources[0]} <= {
        n["id"] for n in whole["nodes"]}
    kinds = {(e["source"], e["target"], e["kind"]) for e in whole["edges"]}
    assert ("entry:" + memory.chain[2], "entry:" + memory.chain[1], "supersedes") in kinds


def test_serve_binds_127_0_0_1_and_prints_a_tokened_address(git_repo: Path, gm) -> None:
    sock = _bind(0)
    try:
        assert sock.getsockname()[0] == "127.0.0.1"
    finally:
        sock.close()
    assert gm("add", "LEARNED: the web view listens on loopback").returncode == 0
    proc = subprocess.Popen(["git", "memory", "serve", "--no-open"], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    try:
        line = proc.stdout.readline()
        match = re.search(r"http://127\.0\.0\.1:(\d+)/\?token=([\w-]{20,})", line)
        assert match, line
        with urllib.request.urlopen(match.group(0), timeout=30) as page:
            assert "loopback" in page.read().decode()
        with pytest.raises(urllib.error.HTTPError) as refused:
            urllib.request.urlopen(f"http://127.0.0.1:{match.group(1)}/", timeout=30)
        assert refused.value.code == 403
        listening = Path("/proc/net/tcp").read_text()
        port = f"{int(match.group(1)):04X}"
        assert f"0100007F:{port} 00000000:0000 0A" in listening  # LISTEN on 127.0.0.1 only
    finally:
        proc.terminate()
        proc.wait(timeout=30)


def test_serve_without_the_web_extra_says_how_to_install_it(git_repo: Path) -> None:
    # `sys.modules[name] = None` makes Python's own import fail as a missing package would.
    code = ("import sys; sys.modules['uvicorn'] = None; sys.modules['starlette'] = None;"
            "from git_memory.entry import main; sys.argv = ['git-memory', 'serve', '--no-open'];"
            "sys.exit(main())")
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                            env=os.environ.copy())
    assert result.returncode == 2
    assert result.stderr.strip().splitlines() == [
        "error: git memory serve needs the web extra: pip install 'git-memory-cli[web]'"]


def test_the_static_export_holds_no_redacted_text(memory: Memory, gm, tmp_path: Path) -> None:
    site = tmp_path / "site"
    result = gm("export", "--format", "html", str(site))
    assert result.returncode == 0, err(result)
    names = {p.relative_to(site).as_posix() for p in site.rglob("*") if p.is_file()}
    assert {"index.html", "graph.html", "timeline.html", "search-index.js", "static/graph.js",
            "static/search.js", "static/style.css", f"entry/{memory.merged}.html"} <= names
    assert f"entry/{memory.redacted}.html" not in names
    for path in site.rglob("*"):
        if path.is_file():
            text = path.read_text(encoding="utf-8")
            assert REDACTED_TEXT not in text and "zanzibar" not in text, path
            assert "http://" not in text.replace("http://www.w3.org/2000/svg", ""), path
    index_js = (site / "search-index.js").read_text(encoding="utf-8")
    assert index_js.startswith("window.GM_INDEX = ")
    assert memory.merged in index_js and memory.chain[0] not in index_js  # superseded: not searched


def test_export_html_needs_a_folder(git_repo: Path, gm) -> None:
    result = gm("export", "--format", "html")
    assert result.returncode == 2 and "needs a folder" in err(result)


SECRET = "ghp_" + "aB3dE5fG7hJ9kL1mN3pQ5rS7tU9vW1xY3zA5"  # made up, in a GitHub token's shape


def test_a_secret_that_reached_the_branch_is_masked_everywhere(git_repo: Path, gm, tmp_path: Path) -> None:
    assert gm("add", "LEARNED: the mirror is read only").returncode == 0
    leaked = commit_unscanned(git_repo, f"push with token {SECRET} to the mirror")
    assert SECRET in out(gm("recall", "--json", "mirror token"))  # the index holds it as it came
    client = _client(write=False)
    pages = [client.get(f"/?token={TOKEN}&q=mirror+token"), client.get(f"/entry/{leaked}"),
             client.get("/graph"), client.get("/timeline")]
    assert all(p.status_code == 200 for p in pages)
    assert "[REDACTED:github-token]" in pages[1].text and leaked in pages[0].text
    site = tmp_path / "site"
    assert gm("export", "--format", "html", str(site)).returncode == 0
    texts = [p.text for p in pages] + [f.read_text(encoding="utf-8") for f in site.rglob("*") if f.is_file()]
    for text in texts:
        assert SECRET not in text and SECRET.lower()[:12] not in text.lower()


def test_the_search_page_without_words_lists_the_newest_with_filters(memory: Memory) -> None:
    client = _client(write=False)
    page = client.get(f"/?token={TOKEN}").text
    ids = re.findall(r'<li class="hit" data-id="(\w+)"', page)
    assert len(ids) == 20 and memory.redacted not in ids and memory.chain[0] not in ids
    old = client.get("/?status=superseded").text
    assert set(re.findall(r'<li class="hit" data-id="(\w+)"', old)) >= set(memory.chain[:2])
    facts = client.get("/?type=fact").text
    assert 'class="type t-fact"' in facts and 'class="type t-learned"' not in facts

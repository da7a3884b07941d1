"""`graph` and `related` on bad input and edge cases (issue 18): an unknown id, bounds out of
range, both selectors at once, a path with spaces and quotes, no repository, an empty
memory. Each refusal is one line, with the exit code other commands use, and changes
nothing; the graph tables fill in batches to the same result as in one pass."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest

from conftest import err, out, tip
from mermaid_check import check_mermaid
from rawcommit import commit_unscanned

ODD_PATH = "docs/it's \"quoted\" [dir]/a b.md"


def _import(gm, tmp_path: Path, items: list[dict]) -> None:
    source = tmp_path / "items.jsonl"
    source.write_text("".join(json.dumps(i) + "\n" for i in items), encoding="utf-8")
    done = gm("import", str(source))
    assert done.returncode == 0, err(done)


def test_empty_memory_is_an_empty_graph(git_repo, gm):
    result = gm("graph")
    assert result.returncode == 0, err(result)
    assert json.loads(out(result)) == {"nodes": [], "edges": [], "truncated": False, "note": None}
    assert err(result) == ""
    assert out(gm("graph", "--format", "mermaid")) == "graph LR\n"
    dot = out(gm("graph", "--format", "dot"))
    assert dot.startswith("digraph memory {") and dot.rstrip().endswith("}")
    assert tip(git_repo) is None  # reading the graph wrote nothing to the branch


def test_unknown_id_is_one_line_and_exit_1_like_show(git_repo, gm):
    assert gm("add", "LEARNED: the cache lives in src/cache.py").returncode == 0
    before = tip(git_repo)
    shown = gm("show", "nosuchid")
    for args in (("graph", "nosuchid"), ("graph", "nosuchid", "--provenance"),
                 ("related", "nosuchid")):
        result = gm(*args)
        assert result.returncode == shown.returncode == 1
        assert err(result) == "error: no entry 'nosuchid'\n"
        assert out(result) == ""
    missing = gm("graph", "--path", "no/such/place.py")
    assert missing.returncode == 1
    assert err(missing) == "error: no entry is about path 'no/such/place.py'\n"
    assert tip(git_repo) == before


@pytest.mark.parametrize("args", [
    ("graph", "--depth", "0"), ("graph", "--depth", "-1"), ("graph", "--depth", "11"),
    ("graph", "-n", "0"), ("graph", "-n", "99999999999999"), ("graph", "--limit", "20001"),
    ("graph", "--format", "svg"), ("related", "x", "-n", "0"), ("related", "x", "-n", "5000"),
    ("graph", "abc", "--path", "src"), ("graph", "--tag", "a", "--path", "b"),
    ("graph", "--provenance"),
])
def test_bad_bounds_and_selectors_are_usage_errors(git_repo, gm, args):
    result = gm(*args)
    assert result.returncode == 2, err(result)
    assert out(result) == ""
    last = err(result).strip().splitlines()[-1]
    assert last.startswith("Error:") or last.startswith("error:")


def test_a_path_with_spaces_and_quotes(git_repo, gm, tmp_path):
    _import(gm, tmp_path, [
        {"type": "fact", "content": "The odd folder holds the handbook", "tags": ["docs"],
         "origin": {"paths": [ODD_PATH]}},
        {"type": "fact", "content": "The handbook is built nightly", "tags": ["docs"],
         "origin": {"paths": [ODD_PATH]}},
    ])
    graph = json.loads(out(gm("graph", "--path", ODD_PATH)))
    assert [n["id"] for n in graph["nodes"]][0] == f"path:{ODD_PATH}"
    assert len([n for n in graph["nodes"] if n["kind"] == "entry"]) == 2
    folder = json.loads(out(gm("graph", "--path", "docs/it's \"quoted\" [dir]")))
    assert f"path:{ODD_PATH}" in {n["id"] for n in folder["nodes"]}  # under the folder
    check_mermaid(out(gm("graph", "--path", ODD_PATH, "--format", "mermaid")))
    dot = shutil.which("dot")
    if dot is not None:
        text = gm("graph", "--path", ODD_PATH, "--format", "dot").stdout
        assert subprocess.run([dot, "-Tsvg"], input=text, capture_output=True).returncode == 0
    related = json.loads(out(gm("related", graph["nodes"][1]["id"][len("entry:"):], "--json")))
    assert related[0]["reasons"][0] == f"shares path {ODD_PATH}"


def test_outside_a_repository(tmp_path, gm):
    plain = tmp_path / "plain"
    plain.mkdir()
    listed = gm("list", cwd=plain)
    for args in (("graph",), ("related", "abc")):
        result = gm(*args, cwd=plain)
        assert result.returncode == listed.returncode != 0
        assert err(result) == err(listed) and len(err(result).splitlines()) == 1


def test_filling_in_batches_gives_the_same_tables(git_repo, gm, tmp_path):
    """The graph tables fill in committed batches (index.graph.BATCH entries each); a
    small batch must give the same graph as one pass."""
    from git_memory.graph.extract import about
    from git_memory.graph.query import neighbourhood
    from git_memory.graph.render import to_json
    from git_memory.index import graph as tables
    from git_memory.index.db import open_index
    from git_memory.store.locate import discover

    _import(gm, tmp_path, [{"type": "learned", "content": f"step_{n} of the DeployScript in"
                            f" scripts/deploy{n % 3}.sh", "tags": [f"t{n % 2}"]}
                           for n in range(10)])
    index = open_index(discover())
    try:
        added = tables.catch_up(index, about, batch=3)
        assert added == 10 and tables.is_current(index)
        small = to_json(neighbourhood(index, limit=1000))
    finally:
        index.close()
    (git_repo / ".git" / "git-memory" / "index.sqlite").unlink()
    index = open_index(discover())  # rebuilt: no graph tables until asked
    try:
        assert not tables.is_current(index)
        whole = to_json(neighbourhood(index, limit=1000))
        assert tables.catch_up(index, about) == 0
    finally:
        index.close()
    assert small == whole
    assert len(small["nodes"]) == 10 + 10 + 1 + 3 + 2  # entries, step_N, DeployScript, paths, tags


def test_no_graph_answer_names_a_secret_that_reached_the_branch(git_repo, gm):
    """A record committed by hand (no writer, no scan) holding a token and a password: the
    graph's labels are masked and no path, symbol or tag node is made of the secret, in any
    format, nor in `related`'s reasons."""
    token = "ghp_" + "aB3dE5fG7hJ9kL1mN3pQ5rS7tU9vW1xY3zA5"  # made up, a GitHub token's shape
    password = "Pl4in_s3cr3t_v4lue"  # made up; a symbol to the extractor
    assert gm("add", "LEARNED: the deploy_mirror config lives in deploy/mirror.yml").returncode == 0
    leaked = commit_unscanned(
        git_repo, f"deploy_mirror pushes with {token}\npassword: \"{password}\"\nsee deploy/mirror.yml")
    for fmt in ("json", "dot", "mermaid"):
        whole = gm("graph", "--format", fmt)
        around = gm("graph", leaked, "--format", fmt)
        assert whole.returncode == 0 and around.returncode == 0
        for text in (out(whole) + err(whole), out(around) + err(around)):
            assert token not in text and password not in text
            assert "deploy_mirror" in text  # the rest of the graph is still drawn
    nodes = json.loads(out(gm("graph", leaked, "--format", "json")))["nodes"]
    assert any(n["id"] == f"entry:{leaked}" and "[REDACTED" in n["label"] for n in nodes)
    related = gm("related", leaked, "--json")
    shown = out(related)
    assert related.returncode == 0 and token not in shown and password not in shown
    assert "deploy_mirror" in shown or "deploy/mirror.yml" in shown

"""The graph's extraction rules and its three renderers, example by example and as
Hypothesis properties: any text, id or label (quotes, brackets, newlines, unicode) leaves
the output valid JSON, DOT Graphviz accepts, and Mermaid of the grammar we write."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from git_memory.graph.extract import MAX_PER_ENTRY, NAME_MAX, about, identifiers
from git_memory.graph.values import EDGE_KINDS, NODE_KINDS, Edge, Graph, Node
from git_memory.graph.render import dot_string, to_dot, to_json, to_mermaid
from mermaid_check import check_mermaid


@pytest.mark.parametrize(("text", "expected"), [
    ("the `TokenCache.refresh()` call in src/auth/token.py",
     [("symbol", "TokenCache.refresh"), ("path", "src/auth/token.py")]),
    ("set GIT_DIR before os.path.join; see config.yaml", [
        ("symbol", "GIT_DIR"), ("symbol", "os.path.join"), ("path", "config.yaml")]),
    ("useState and HttpClient and parse_args", [
        ("symbol", "useState"), ("symbol", "HttpClient"), ("symbol", "parse_args")]),
    ("./scripts/ci.sh and ~/.cursor/hooks.json and .github/workflows/", [
        ("path", "scripts/ci.sh"), ("path", "~/.cursor/hooks.json"), ("path", ".github/workflows/")]),
])
def test_identifiers_found(text: str, expected: list[tuple[str, str]]) -> None:
    assert identifiers(text) == expected


@pytest.mark.parametrize("text", [
    "read and/or write, e.g. the B/C/D plan or P0/P1 items",
    "see https://example.com/docs/page.html for details",
    "a `git log --oneline` command line and a plain sentence.",
    "Version 1.2.3 shipped; i.e. nothing else",
])
def test_prose_names_nothing(text: str) -> None:
    assert identifiers(text) == []


def test_about_adds_anchors_and_tags_once_and_is_bounded() -> None:
    found = about("edit src/a.py", ["#Ops", "ops"], ["./src/a.py", "docs/my file.md"])
    assert found == [("path", "src/a.py"), ("path", "docs/my file.md"), ("tag", "ops")]
    many = " ".join(f"name_{n}" for n in range(100))
    assert len(about(many, [], [])) == MAX_PER_ENTRY


@given(st.text(max_size=400), st.lists(st.text(max_size=20), max_size=5),
       st.lists(st.text(max_size=30), max_size=3))
def test_about_never_fails_and_names_are_clean(text: str, tags: list[str], anchors: list[str]) -> None:
    found = about(text, tags, anchors)
    assert len(found) <= MAX_PER_ENTRY
    assert len(set(found)) == len(found)
    for kind, name in found:
        assert kind in ("path", "symbol", "tag")
        assert name and len(name) <= NAME_MAX
        if kind == "symbol":
            assert not any(ch.isspace() for ch in name)


# Ids and labels made to break things: quotes, brackets, braces, pipes, semicolons,
# backslashes, line breaks, control characters, markup and any unicode (not lone
# surrogates: the index holds valid UTF-8 only).
NASTY = st.text(alphabet=st.one_of(st.sampled_from(list('"\'[](){}<>|;#&`\\\n\r\t%-:/ ')),
                                   st.characters(exclude_categories=("Cs",))), max_size=40)


@st.composite
def graphs(draw: st.DrawFn) -> Graph:
    count = draw(st.integers(min_value=0, max_value=8))
    nodes = []
    for n in range(count):
        kind = draw(st.sampled_from(NODE_KINDS))
        nodes.append(Node(id=f"{kind}:{draw(NASTY)}#{n}", kind=kind, label=draw(NASTY),
                          entry_type=draw(st.sampled_from([None, "learned", "failure"])),
                          status=draw(st.sampled_from([None, "active", "superseded", "canonical",
                                                       "needs_review"])),
                          confidence=draw(st.sampled_from([None, 0.5])), created=None))
    edges = []
    if nodes:
        for _ in range(draw(st.integers(min_value=0, max_value=10))):
            edges.append(Edge(draw(st.sampled_from(nodes)).id, draw(st.sampled_from(nodes)).id,
                              draw(st.sampled_from(EDGE_KINDS)), draw(st.integers(1, 9))))
    return Graph(nodes=nodes, edges=edges, truncated=draw(st.booleans()),
                 note=draw(st.one_of(st.none(), NASTY)))


@given(graphs())
def test_json_keeps_every_id_and_label(graph: Graph) -> None:
    data = json.loads(json.dumps(to_json(graph)))
    assert [n["id"] for n in data["nodes"]] == [n.id for n in graph.nodes]
    assert [n["label"] for n in data["nodes"]] == [n.label for n in graph.nodes]
    assert len(data["edges"]) == len(graph.edges) and data["truncated"] == graph.truncated


@given(graphs())
def test_mermaid_is_valid_for_any_ids_and_labels(graph: Graph) -> None:
    text = to_mermaid(graph)
    check_mermaid(text)
    assert len(re.findall(r"^  n\d+[\[{(]", text, re.M)) == len(graph.nodes)
    assert len(re.findall(r"^  n\d+ (?:-->|==>|-\.->|---)", text, re.M)) == len(graph.edges)


DOT_STRING = r'"(?:[^"\\\n]|\\.)*"'
DOT_NODE = re.compile(rf"^  ({DOT_STRING}) \[label={DOT_STRING} shape=\w+(?: style=\w+)?\];$")
DOT_EDGE = re.compile(rf"^  {DOT_STRING} -> {DOT_STRING} \[[^\n]*\];$")


def _undot(quoted: str) -> str:
    return re.sub(r"\\(.)", lambda m: "\n" if m.group(1) == "n" else m.group(1), quoted[1:-1])


@given(graphs())
def test_dot_lines_quote_every_id_and_label(graph: Graph) -> None:
    lines = to_dot(graph).splitlines()
    assert lines[0] == "digraph memory {" and lines[-1] == "}"
    nodes = [line for line in lines if DOT_NODE.match(line)]
    assert len(nodes) == len(graph.nodes)
    assert len([line for line in lines if DOT_EDGE.match(line)]) == len(graph.edges)
    for line, node in zip(nodes, graph.nodes):
        match = DOT_NODE.match(line)
        assert match is not None
        assert _undot(match.group(1)) == _as_kept(node.id)


def _as_kept(text: str) -> str:
    """What DOT keeps of an id: each line break (as str.splitlines() sees them) a newline,
    other control characters gone."""
    lines = text.splitlines(keepends=True)
    flat = "".join(line.rstrip("\r\n\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029") + "\n"
                   if line != line.rstrip("\r\n\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029") else line
                   for line in lines)
    return "".join(ch for ch in flat if ch in "\t\n" or not (ch < " " or "\x7f" <= ch <= "\x9f"))


def test_dot_string_escapes() -> None:
    assert dot_string('a "b" \\ c\nd') == '"a \\"b\\" \\\\ c\\nd"'


@settings(max_examples=15, deadline=None)
@given(graphs())
# A note holding a NUL once reached the `//` comment as it was, and Graphviz refused it.
@example(Graph(nodes=[], edges=[], truncated=False, note="\x00"))
def test_graphviz_accepts_any_graph(graph: Graph) -> None:
    dot = shutil.which("dot")
    if dot is None:
        if os.environ.get("CI") == "true":
            pytest.fail("Graphviz `dot` is missing on CI (apt-get install graphviz)")
        pytest.skip("Graphviz `dot` not installed (apt-get install graphviz)")
    done = subprocess.run([dot, "-Tsvg"], input=to_dot(graph).encode("utf-8"), capture_output=True)
    assert done.returncode == 0, done.stderr.decode("utf-8", "replace")
    assert b"syntax error" not in done.stderr

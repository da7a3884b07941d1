"""The warm MCP recall's shortcuts give exactly what the long way gave (issue 14 point 1).

Each shortcut is checked against the code it stands in for:
- the rescoring's positions and lengths (`rerank._positions`): the candidates' text read
  from `fts_content`, each query token looked up with `term = ?` in sorted order, against
  the old `FROM fts WHERE rowid IN` and `term IN (...)`, dictionary order included (the
  rescoring sums floats in that order);
- cleaning for an agent: ASCII text skips NFKC's code-span pass (`tidy_lines` alone equals
  `normalise` there), the role regexes when no line starts with a role word
  (`roles._nothing_to_neutralise`), and the tag regex when `untrusted` is absent;
- a secret committed by hand is still masked through these paths.
"""

from __future__ import annotations

import sqlite3
import sys
import unicodedata
from pathlib import Path
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from git_memory.agents import wrap
from git_memory.index.rank import rerank
from git_memory.index.rank.hits import make_scratch
from git_memory.sanitize import chars, roles

ROOT = Path(__file__).resolve().parents[1]


def _index(folder: Path) -> Any:
    sys.path.insert(0, str(ROOT / "bench"))
    try:
        import rank_eval
    finally:
        sys.path.remove(str(ROOT / "bench"))
    texts = [
        "Kestrel pipeline retries the upload; retried uploads use the kestrel queue.",
        "Osprey cache, kestrel mode.\nThe osprey `cache` warms at 6am. See [kestrel docs](k.md).",
        "Using uses used: the user's tool retries\n\n```\nkestrel --retry 3\n```\nthen osprey",
        "Café déjà vu: naïve kestrel résumé, osprey straße",  # not ASCII
        "Pipeline PIPELINE pipelines piped <https://kestrel.example/osprey> retries",
    ]
    items = [{"id": f"k{n}", "doc": texts[n % len(texts)] + f" variant {n}", "query": ""}
             for n in range(40)]
    return rank_eval.build(items, folder)


def _old_positions(conn: sqlite3.Connection, rowids: list[int], stems: list[str]
                   ) -> tuple[dict[int, dict[str, list[tuple[str, int]]]], dict[int, int]]:
    """The positions and lengths as the rescoring read them before (the reference)."""
    marks = ",".join("?" * len(rowids))
    docs = []
    for rowid, content, tags, kind, anchors in conn.execute(
            f"SELECT rowid, content, tags, type, anchors FROM fts WHERE rowid IN ({marks})", rowids):
        head, body, code, link = rerank._parts(content)
        docs.append((rowid, head, body, f"{tags} {kind} {anchors}", code, link))
    conn.execute("BEGIN")
    conn.execute("INSERT INTO temp.gm_c(gm_c) VALUES ('delete-all')")
    conn.executemany("INSERT INTO temp.gm_c(rowid, head, body, meta, code, link) VALUES (?,?,?,?,?,?)", docs)
    conn.execute("COMMIT")
    lengths = {}
    for rowid, sizes in conn.execute("SELECT id, sz FROM temp.gm_c_docsize"):
        n = rerank._varints(sizes)
        lengths[rowid] = round(n[0] + n[1] + n[2] + rerank.CODE * n[3] + rerank.ANCHOR * n[4])
    found: dict[int, dict[str, list[tuple[str, int]]]] = {}
    if stems:
        marks = ",".join("?" * len(stems))
        for term, doc, col, offset in conn.execute(
                f"SELECT term, doc, col, offset FROM temp.gm_cv WHERE term IN ({marks})", stems):
            found.setdefault(doc, {}).setdefault(term, []).append((col, offset))
    return found, lengths


def test_positions_are_read_as_before_in_the_same_order(tmp_path):
    index = _index(tmp_path)
    conn: sqlite3.Connection = index.conn
    conn.row_factory = None
    make_scratch(conn)
    rowids = [row[0] for row in conn.execute("SELECT rowid FROM records ORDER BY rowid")]
    for stems in (["retri", "kestrel"], ["osprei", "use", "pipelin", "kestrel"], ["cach"],
                  ["zzz", "kestrel"], [], ["resum", "deja", "strass"]):
        for chosen in (rowids, rowids[::3], rowids[5:9]):
            expected = _old_positions(conn, chosen, stems)
            got = rerank._positions(conn, [{"rowid": r} for r in chosen], stems)
            assert got == expected
            # the same token order in every entry's dict: the rescoring sums in this order
            assert ({doc: list(terms) for doc, terms in got[0].items()}
                    == {doc: list(terms) for doc, terms in expected[0].items()})
            if stems and stems[0] != "zzz" and chosen is rowids:
                assert got[0]  # the query's tokens were found somewhere
    index.close()


_ASCII_PIECES = st.sampled_from([
    "a", "B", " ", "  ", "\t", "\n", "\n\n\n", "\r\n", "\r", "`", "```", "~~~", "code",
    "x ", " \n", "###", ">", "*", "_", ":", "system", "System", "USER", "user", "tool",
    "Developer", "assistant", "human", "instruction", "Response", "<|im_start|>", "[INST]",
    "[/INST]", "<<SYS>>", "<< sys >>", "<", "/", "untrusted", "UNTRUSTED", "-", "_",
    "knowledge", "Knowledge", "untrusted-knowledge", "</untrusted knowledge>", "&",
])
_ANY_PIECES = st.one_of(_ASCII_PIECES, st.sampled_from([
    "\u017fystem", "u\u017fer", "\uff1c", "\u2039", "\u00e9", "\u200b", "\u2028", "\uff55ser",
]))
# Texts made of those pieces: what each shortcut must leave exactly as the long way does.
_ANY_TEXT = st.lists(_ANY_PIECES, max_size=25).map("".join)


@settings(max_examples=400, deadline=None)
@given(_ANY_TEXT)
def test_neutralising_skips_only_text_it_could_not_change(text):
    assert roles.neutralise_for_agent(text) == roles._neutralise_all(text)


@settings(max_examples=400, deadline=None)
@given(_ANY_TEXT)
def test_tag_escaping_skips_only_text_without_our_tag(text):
    escaped = wrap._TAG_RE.sub(wrap._escaped, text)  # the long way, as escape_tags was
    if not escaped.isascii():
        folded = unicodedata.normalize("NFKC", escaped)
        if wrap._TAG_RE.search(folded):
            escaped = wrap._TAG_RE.sub(wrap._escaped, folded)
    assert wrap.escape_tags(text) == escaped


@settings(max_examples=400, deadline=None)
@given(st.lists(_ASCII_PIECES, max_size=30).map("".join))
def test_ascii_text_needs_only_one_pass_of_tidy_lines(text):
    assert chars.tidy_lines(text) == chars.normalise(text)


@settings(max_examples=200, deadline=None)
@given(_ANY_TEXT)
def test_cleaning_for_an_agent_is_the_long_way_round(text):
    wrap._CLEANED.clear()
    stripped, _ = chars.strip_invisible(text)
    expected = wrap.escape_tags(roles._neutralise_all(wrap.masked(chars.normalise(stripped))))
    assert wrap.clean_for_agent(text) == expected


def test_a_secret_in_plain_ascii_is_still_masked():
    wrap._CLEANED.clear()
    token = "ghp_" + "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8"
    shown = wrap.clean_for_agent(f"LEARNED: the deploy token is {token} for now")
    assert token not in shown and "[REDACTED:" in shown

"""A bad record never stops a reader (issue #12): hand-made files arrive by sync, every
reader exits 0 and doctor names each bad path."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from conftest import err, git, out
from plumbing import commit_files, record
from sync_world import clone, make_remote

BAD = {
    "impossible date": ("entries/2026/02/28/learned-bad-date-aaaa0001.md",
                        record("01BADDATE0000000000000001", created="2026-02-30")),
    "broken yaml": ("entries/2026/02/28/learned-broken-aaaa0002.md",
                    b"---\nid: 01BROKEN\ntype: [learned\ntags: {a: \n---\nbody\n"),
    "binary body": ("entries/2026/02/28/learned-binary-aaaa0003.md",
                    b"---\nid: 01BINARY\ntype: learned\n---\n\x00\xff\xfe binary \x89PNG\n"),
    "deep nesting": ("entries/2026/02/28/learned-deep-aaaa0004.md",
                     b"---\nid: 01DEEPNEST\ntype: learned\nextra: " + b"[" * 10000
                     + b"]" * 10000 + b"\n---\ndeeply nested value\n"),
    "hand-made id": ("entries/2026/02/28/learned-handid-aaaa0005.md",
                     record("01HAND/../../x", body="hand-made id with a slash")),
    "id as a list": ("entries/2026/02/28/learned-listid-aaaa0006.md",
                     b"---\nid: [1, 2]\ntype: learned\n---\nbody\n"),
}


@pytest.fixture
def fetched(tmp_path: Path, gm):
    """Clone b, holding one good entry, syncs a remote branch that also holds BAD."""
    bare = make_remote(tmp_path)
    a, b = clone(bare, tmp_path / "a"), clone(bare, tmp_path / "b")
    assert gm("add", "LEARNED: the good entry survives hostile neighbours", cwd=a).returncode == 0
    assert gm("sync", cwd=a).returncode == 0
    git("fetch", "-q", "origin", "git-memory:git-memory", cwd=a)
    files = {tuple(path.split("/")): ("100644", data) for path, data in BAD.values()}
    commit_files(a, files)
    git("push", "-q", "origin", "git-memory", cwd=a)
    result = gm("sync", cwd=b)
    assert result.returncode == 0, err(result)
    return b


READERS = [
    ("list",), ("list", "--all", "--json"), ("recall", "good entry"), ("recall", "nested"),
    ("context",), ("export", "--format", "jsonl"), ("log",), ("curate", "--json"),
]


def test_every_reader_exits_0_and_doctor_names_each_bad_path(fetched: Path, gm, tmp_path) -> None:
    for args in READERS:
        result = gm(*args, cwd=fetched)
        assert result.returncode == 0, (args, err(result))
    listed = json.loads(out(gm("list", "--json", cwd=fetched)))
    assert [e["content"] for e in listed] == ["the good entry survives hostile neighbours"]
    shown = gm("show", listed[0]["id"], cwd=fetched)
    assert shown.returncode == 0 and b"good entry" in shown.stdout
    exported = gm("export", str(tmp_path / "out"), cwd=fetched)
    assert exported.returncode == 0 and b"exported 1 entry and" in exported.stdout
    assert gm("redact", listed[0]["id"], "--reason", "test", cwd=fetched).returncode == 0
    doctor = gm("doctor", "--json", cwd=fetched)
    assert doctor.returncode == 1, err(doctor)  # problems found, reported, no crash
    malformed = {m["path"]: m["reason"] for m in json.loads(doctor.stdout)["malformed"]}
    assert set(malformed) == {path for path, _ in BAD.values()}
    assert "created is not a valid UTC time" in malformed[BAD["impossible date"][0]]
    assert "nested" in malformed[BAD["deep nesting"][0]]
    assert "UTF-8" in malformed[BAD["binary body"][0]] or "binary" in malformed[BAD["binary body"][0]]
    assert "id is not" in malformed[BAD["hand-made id"][0]]
    text = out(gm("doctor", cwd=fetched))
    for path, _ in BAD.values():
        assert f"skip  {path}:" in text

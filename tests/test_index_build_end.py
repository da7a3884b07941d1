"""The end of a cold build (index.build): what it leaves, and the confidence it puts in.

- a finished build leaves no build file, its `fts` table is whole (FTS5's own integrity
  check) and holds no build setting;
- a killed build an older version left with its full-text side file
  (index.sqlite.build-fts) starts over rather than resume without its words, makes the
  index a full build makes, and removes the side file;
- entries go in with the fold's confidence whatever the guess of the fold's time;
- the build stamps the sources itself.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

from build_support import build_done, built_origin, dump_index, kill_build_past, plant_files
from conftest import git

MEMORY = Path(".git") / "git-memory"


def _killed_half_way(tmp_path: Path, origin: Path, name: str) -> Path:
    """A clone whose build was killed (SIGKILL) after at least 500 files were in."""
    clone = tmp_path / name
    git("clone", "-q", str(origin), str(clone), cwd=tmp_path)
    kill_build_past(clone, 500)  # returns once the killed build's lock is free
    assert build_done(clone) >= 500
    return clone


def _resumed_from(index: Path) -> int:
    conn = sqlite3.connect(index)
    try:
        return int(conn.execute("SELECT v FROM meta WHERE k = 'build_resumed_from'").fetchone()[0])
    finally:
        conn.close()


def test_a_build_leaves_a_whole_index_and_an_old_side_file_starts_over(
        tmp_path: Path, gm, built_once) -> None:
    origin = built_origin(tmp_path, gm, built_once)
    full = tmp_path / "full"
    git("clone", "-q", str(origin), str(full), cwd=tmp_path)
    assert gm("reindex", cwd=full).returncode == 0
    built = full / MEMORY / "index.sqlite"
    assert not list((full / MEMORY).glob("index.sqlite.*"))  # no build file left
    conn = sqlite3.connect(built)
    try:
        conn.execute("INSERT INTO fts(fts) VALUES ('integrity-check')")  # raises if damaged
        assert conn.execute("SELECT count(*) FROM fts").fetchone()[0] > 1000
        assert conn.execute("SELECT count(*) FROM fts_config WHERE k = 'hashsize'").fetchone() == (0,)
    finally:
        conn.close()
    expected = dump_index(built)

    # An older version's killed build: its words in a side file this version never
    # fills. Resuming would lose them: the build starts over and the side file goes.
    old = _killed_half_way(tmp_path, origin, "old")
    (old / MEMORY / "index.sqlite.build-fts").write_bytes(b"")
    result = gm("reindex", "--background", cwd=old)
    assert result.returncode == 0, result.stderr
    index = old / MEMORY / "index.sqlite"
    assert _resumed_from(index) == 0
    assert dump_index(index) == expected
    assert not list((old / MEMORY).glob("index.sqlite.*"))


def test_entries_go_in_with_the_folds_confidence_whatever_the_guess(
        tmp_path: Path, gm, monkeypatch, built_once) -> None:
    """index.build guesses the fold's time (the newest `created`) before the load and
    inserts entries with the confidence the fold gives at that time. Right, wrong (older
    or newer than the fold's) or missing, the index is the one a fold over all rows makes."""
    from git_memory.index.build import full as build_module
    from git_memory.index.db import open_index
    from git_memory.store.branch import MemoryBranch
    from git_memory.store.locate import discover

    origin = built_origin(tmp_path, gm, built_once)
    clone = tmp_path / "clone"
    git("clone", "-q", str(origin), str(clone), cwd=tmp_path)
    monkeypatch.chdir(clone)
    right = build_module._newest_created
    dumps = {}
    for name, guess in (("right", None), ("none", ""), ("older", "2025-03-01T00:00:00Z"),
                        ("newer", "2031-01-01T00:00:00Z"), ("bad", "2025'; DROP TABLE x")):
        monkeypatch.setattr(build_module, "_newest_created",
                            right if guess is None else (lambda branch, tip, g=guess: g))
        open_index(discover(), force_rebuild=True).close()
        index = clone / MEMORY / "index.sqlite"
        dumps[name] = dump_index(index)
        conn = sqlite3.connect(index)
        try:
            meta = dict(conn.execute("SELECT k, v FROM meta").fetchall())
            newest = conn.execute("SELECT max(created) FROM records").fetchone()[0]
            decayed = conn.execute("SELECT count(*) FROM records WHERE kind = 'entry'"
                                   " AND confidence < 0.6").fetchone()[0]
        finally:
            conn.close()
        assert decayed > 100  # the rule did apply: a year of entries decays
        assert meta["decay_now"] == newest
    branch = MemoryBranch(discover())
    assert right(branch, branch.tip()) == newest  # the usual case: the guess is right
    assert right(branch, None) == ""
    assert all(dump == dumps["right"] for dump in dumps.values())


QUERIES = ("cache shard", "deploy svc7", "warms up", "shard 12 warms", "svc1499", "t3",
           "decision", "after the deploy", "cache OR deploy", "learned", "97 s", "svc42 cache")


def test_a_build_answers_as_a_fold_over_every_row(
        tmp_path: Path, gm, monkeypatch, built_once) -> None:
    """The same memory built twice in this process: once with no guess of the fold's
    time (the fold computes every row) and once the usual way (entries' confidence put in
    as they go in). Hand-made files sit mid-tree. Same tables, same answers."""
    from git_memory.index.build import full as build_module
    from git_memory.index.db import open_index
    from git_memory.store.locate import discover

    origin = built_origin(tmp_path, gm, built_once)
    plant_files(origin, {
        "entries/2025/06/15/hand-made.md": ("100644", "---\nid: HANDMADE1\ntype: Learned\n"
                                            "tags: cache, deploy\n---\nA cache note by hand\n"),
        "entries/2025/07/01/broken.md": ("100644", "---\nid: x\ntype: nonsense\n---\nhi\n"),
    })
    built = {}
    for name in ("general", "fast"):  # "general": no guess
        clone = tmp_path / name
        git("clone", "-q", str(origin), str(clone), cwd=tmp_path)
        monkeypatch.chdir(clone)
        with monkeypatch.context() as patch:
            if name == "general":
                patch.setattr(build_module, "_newest_created", lambda branch, tip: "")
            open_index(discover(), force_rebuild=True).close()
        built[name] = clone
    assert dump_index(built["fast"] / MEMORY / "index.sqlite") == dump_index(
        built["general"] / MEMORY / "index.sqlite")
    for query in QUERIES:
        answers = [gm("recall", *query.split(), "--json", cwd=built[name]).stdout
                   for name in ("general", "fast")]
        assert answers[0] == answers[1], query
    assert b"HANDMADE1" in gm("recall", "cache", "note", "by", "hand", "--json",
                             cwd=built["fast"]).stdout


def test_a_build_stamps_the_sources_itself_so_nothing_writes_after_it(
        tmp_path: Path, gm, monkeypatch, built_once) -> None:
    """A fresh clone's build puts the sources' stamp (and their rows) in its own last
    transaction: the index it swaps in is current, and opening it again runs no second
    catch-up pass (which committed once more, making the kernel write the whole new
    file out before the first answer)."""
    from git_memory.index import db
    from git_memory.index.build import catchup
    from git_memory.store.locate import discover
    from git_memory.store.sources import signature, sources

    origin = built_origin(tmp_path, gm, built_once)
    clone = tmp_path / "clone"
    git("clone", "-q", str(origin), str(clone), cwd=tmp_path)
    monkeypatch.chdir(clone)
    dirs = discover()

    def no_second_pass(*args: object) -> None:
        raise AssertionError("the sources were followed after the build")

    monkeypatch.setattr(catchup, "_follow_sources", no_second_pass)
    index = db.open_index(dirs)
    try:
        assert index.sources == signature(sources(dirs)) != ""
        assert "remote:origin" in index.sources
        assert index.conn.execute("SELECT count(*) FROM records").fetchone()[0] > 100
    finally:
        index.close()
    conn = sqlite3.connect(clone / MEMORY / "index.sqlite")
    try:
        stamped = dict(conn.execute("SELECT k, v FROM meta").fetchall())
    finally:
        conn.close()
    assert stamped["sources"] == signature(sources(dirs))

"""A writer hands the records it just wrote to the index instead of having them read back.

What the index holds must not depend on that shortcut: after imports, adds,
duplicates and curation, a forced rebuild from the blobs (`reindex`) gives the
very same rows.
"""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from typing import Any

import pytest

from conftest import DATA, err
from git_memory.store.locate import discover

INDEX = Path(".git") / "git-memory" / "index.sqlite"
LAVRA = DATA / "lavra-knowledge" / "syslog-mcp.raw.knowledge.jsonl"
TIL = DATA / "til-jbranchaud" / "notes.jsonl"


def snapshot(repo: Path) -> dict[str, Any]:
    """Every row the index derives from the branch, keyed by file path (rowids may differ)."""
    conn = sqlite3.connect(repo / INDEX)
    conn.row_factory = sqlite3.Row
    records = {}
    for row in conn.execute("SELECT * FROM records"):
        values = dict(row)
        values.pop("rowid")
        records[values["path"]] = values
    fts = {
        path: (content, tags, kind, anchors)
        for path, content, tags, kind, anchors in conn.execute(
            "SELECT r.path, f.content, f.tags, f.type, f.anchors"
            " FROM fts f JOIN records r ON r.rowid = f.rowid"
        )
    }
    problems = conn.execute("SELECT path, blob, reason FROM problems ORDER BY path").fetchall()
    fold = conn.execute("SELECT v FROM meta WHERE k = 'fold_problems'").fetchone()
    conn.close()
    return {"records": records, "fts": fts, "problems": problems, "fold": fold}


def varied_jsonl(path: Path) -> Path:
    """Entries with tags, keys, anchors, type fields, code, links and non-Latin text."""
    notes = [json.loads(line) for line in TIL.open(encoding="utf-8")][:300]
    lines = [
        {"key": n["id"], "type": "learned", "content": n["body"], "tags": [n["id"].split("/")[0]]}
        for n in notes
    ]
    lines += [
        {"type": "pattern", "content": "Retry the upload with backoff in src/upload/retry.py",
         "files": ["src/upload/retry.py"], "symbols": ["retry_upload"], "created": "2026-01-02T03:04:05Z"},
        {"type": "decision", "content": "日本語のメモ: 設定は config/app.toml に置く", "tags": ["日本"]},
        {"type": "prevention", "content": "Never run `rm -rf $DIR/` with an empty DIR", "tags": []},
    ]
    path.write_text("".join(json.dumps(line, ensure_ascii=False) + "\n" for line in lines),
                    encoding="utf-8")
    return path


def test_index_from_writer_records_equals_rebuild_from_blobs(git_repo: Path, gm, tmp_path) -> None:
    assert gm("import", "--format", "jsonl", str(varied_jsonl(tmp_path / "v.jsonl"))).returncode == 0
    assert gm("import", "--format", "lavra", str(LAVRA)).returncode == 0
    added = gm("add", "LEARNED: the staging database resets every night")
    assert added.returncode == 0, err(added)
    again = gm("add", "LEARNED: the staging database resets every night")  # reinforce event
    assert again.returncode == 0, err(again)
    made = gm("add", "LEARNED: staging resets at 02:00 UTC")
    assert made.returncode == 0, err(made)
    new_id = made.stdout.decode().split()[0]
    old_id = json.loads(gm("recall", "--json", "every night").stdout)[0]["id"]
    sup = gm("supersede", old_id, new_id, "--reason", "more precise")
    assert sup.returncode == 0, err(sup)
    assert gm("list").returncode == 0  # supersede leaves the catch-up to the next reader

    written = snapshot(git_repo)
    assert len(written["records"]) > 350
    reindex = gm("reindex")
    assert reindex.returncode == 0, err(reindex)
    rebuilt = snapshot(git_repo)
    assert written["records"] == rebuilt["records"]
    assert written["fts"] == rebuilt["fts"]
    assert written["problems"] == rebuilt["problems"]
    assert written["fold"] == rebuilt["fold"]


def test_an_import_is_indexed_without_reading_its_blobs_back(
    git_repo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from git_memory.store import record_format
    from git_memory.write.append import NewEntry, write_entries

    parsed: list[str] = []
    real = record_format.parse_record

    def counting(data: bytes, path: str):  # type: ignore[no-untyped-def]
        parsed.append(path)
        return real(data, path)

    monkeypatch.setattr(record_format, "parse_record", counting)
    dirs = discover(git_repo)
    items = [NewEntry(content=f"fact number {i} about the deploy", type="learned") for i in range(600)]
    outcome = write_entries(dirs, items, "memory: import 600", strict=False)
    assert len(outcome.added) == 600
    entries = [p for p in parsed if p.startswith("entries/")]
    assert entries == []  # none of the 600 was read back and parsed
    conn = sqlite3.connect(git_repo / INDEX)
    assert conn.execute("SELECT count(*) FROM fts WHERE fts MATCH 'deploy'").fetchone()[0] == 600
    stamp = conn.execute("SELECT v FROM meta WHERE k = 'stamp'").fetchone()[0]
    conn.close()
    assert stamp == outcome.commit

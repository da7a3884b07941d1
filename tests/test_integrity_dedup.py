"""Dedup under concurrency (issue #12): the duplicate check holds against the tip the
compare-and-swap commits on, so concurrent writers of the same text or key store one."""

from __future__ import annotations

import json
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from conftest import out


def _entries(gm) -> list[dict]:
    result = gm("list", "--json", "--all", "--limit", "100000")
    assert result.returncode == 0
    return json.loads(out(result))


def _at_once(calls: list[list[str]], gm) -> list:
    """Each call in its own thread, so the `git memory` processes run at the same time (forked
    from the warm interpreter: they start within milliseconds of each other)."""
    with ThreadPoolExecutor(len(calls)) as pool:
        return list(pool.map(lambda args: gm(*args), calls))


def _same_text(gm, processes: int, times: int) -> None:
    def writer(_: int) -> None:
        for _ in range(times):
            result = gm("add", "LEARNED: the same text from everyone")
            assert result.returncode == 0, result.stderr.decode()

    with ThreadPoolExecutor(processes) as pool:
        list(pool.map(writer, range(processes)))


def test_4_processes_adding_the_same_text_at_once_store_one_entry(git_repo: Path, gm) -> None:
    assert gm("init").returncode == 0
    _same_text(gm, 4, 3)
    assert [e["content"] for e in _entries(gm)] == ["the same text from everyone"]


@pytest.mark.slow
def test_8_processes_adding_the_same_text_20_times_store_one_entry(git_repo: Path, gm) -> None:
    assert gm("init").returncode == 0
    _same_text(gm, 8, 20)
    entries = _entries(gm)
    assert [e["content"] for e in entries] == ["the same text from everyone"]


def test_two_concurrent_imports_sharing_keys_store_no_duplicate_key(git_repo: Path, gm) -> None:
    assert gm("init").returncode == 0
    shared = [{"type": "fact", "key": f"shared-{i}", "content": f"shared fact {i} from {{who}}"}
              for i in range(600)]
    files = []
    for who in ("left", "right"):
        lines = [json.dumps({**item, "content": item["content"].format(who=who)}) for item in shared]
        lines += [json.dumps({"type": "fact", "content": f"{who} only fact {i}"}) for i in range(50)]
        path = git_repo.parent / f"{who}.jsonl"
        path.write_text("\n".join(lines) + "\n", encoding="utf-8")
        files.append(path)
    for result in _at_once([["import", str(p)] for p in files], gm):
        assert result.returncode == 0, result.stderr.decode()
    entries = _entries(gm)
    keys = Counter(e.get("key") for e in entries if e.get("key"))
    assert len(keys) == 600 and max(keys.values()) == 1
    assert len(entries) == 600 + 100

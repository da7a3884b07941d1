"""Semantic recall (the [semantic] extra): off by default, vectors at index time when on."""

from __future__ import annotations

import json
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import err, git, out

pytest.importorskip("numpy")
pytest.importorskip("tokenizers")
pytest.importorskip("safetensors")
from git_memory.index import semantic  # noqa: E402

if semantic._model_dir() is None:
    pytest.skip("the [semantic] extra (wordllama's model files) is not installed",
                allow_module_level=True)

INDEX = Path(".git") / "git-memory" / "index.sqlite"
CAR = "the car would not start in cold weather until the battery was replaced"


def _vectors(repo: Path) -> int:
    conn = sqlite3.connect(repo / INDEX)
    try:
        return conn.execute("SELECT count(*) FROM vectors").fetchone()[0]
    finally:
        conn.close()


def _add_three(gm) -> None:
    for text in (f"LEARNED: {CAR}", "DECISION: deploy on Thursdays",
                 "FACT: the office coffee machine needs descaling monthly"):
        assert gm("add", text).returncode == 0


def test_off_by_default_no_vectors_and_no_numpy(git_repo: Path, gm) -> None:
    _add_three(gm)
    assert json.loads(out(gm("recall", "--json", "vehicle freezing"))) == []
    assert _vectors(git_repo) == 0
    code = ("import sys\nfrom git_memory.entry import main\nrc = main(['recall', 'coffee'])\n"
            "sys.stderr.write('NUMPY=' + str('numpy' in sys.modules))\nsys.exit(rc)\n")
    result = subprocess.run([sys.executable, "-c", code], cwd=git_repo, capture_output=True, text=True)
    assert result.returncode == 0 and result.stderr.endswith("NUMPY=False")


def test_on_vectors_at_index_time_and_paraphrases_found(git_repo: Path, gm) -> None:
    git("config", "memory.semantic", "true", cwd=git_repo)
    _add_three(gm)
    hits = json.loads(out(gm("recall", "--json", "vehicle won't start when it's freezing")))
    assert _vectors(git_repo) == 3  # computed as each add was indexed
    assert [h["content"] for h in hits] == [CAR]  # the others are not close enough to show
    assert json.loads(out(gm("recall", "--json", "coffee")))[0]["content"].startswith("the office")


def test_switched_on_later_reindex_fills_the_vectors(git_repo: Path, gm) -> None:
    _add_three(gm)
    assert gm("recall", "coffee").returncode == 0
    git("config", "memory.semantic", "true", cwd=git_repo)
    result = gm("reindex")
    assert result.returncode == 0, err(result)
    assert _vectors(git_repo) == 3
    hits = json.loads(out(gm("recall", "--json", "automobile battery trouble in winter")))
    assert hits[0]["content"] == CAR

"""Semantic ranking (the [semantic] extra): on by default when installed, off by git config,
no numpy on the read path, vectors caught up at recall, re-embedded when the model changes."""

from __future__ import annotations

import json
import random
import sqlite3
import sys
from pathlib import Path

import pytest

from arch_rules import fenced
from conftest import err, git, out

from git_memory.index.rank import semantic

# The [semantic] extra is in [test]: a suite without it fails here instead of skipping.
assert semantic.model_dir() is not None, "the [semantic] extra (wordllama's model files) is missing"

INDEX = Path(".git") / "git-memory" / "index.sqlite"
CAR = "the car would not start in cold weather until the battery was replaced"
CI = "the CI job would not start"
PARAPHRASE = "vehicle won't start when it's freezing"  # text alone ranks the CI note first
DATA = Path(__file__).resolve().parent / "data"


def _db(repo: Path) -> sqlite3.Connection:
    return sqlite3.connect(repo / INDEX)


def _vectors(repo: Path) -> int:
    with _db(repo) as conn:
        return conn.execute("SELECT count(*) FROM vectors").fetchone()[0]


def _add(gm) -> None:
    for text in (f"LEARNED: {CAR}", f"LEARNED: {CI}",
                 "FACT: the office coffee machine needs descaling monthly"):
        assert gm("add", text).returncode == 0


def _recall_fenced(repo: Path, query: str) -> tuple[list[str], list[str]]:
    """Contents recalled by a fresh process, and what it loaded beyond the hot path's fence
    (tests/arch_rules.py: numpy, tokenizers, typing... are heavy)."""
    result, problems = fenced(f"from git_memory.entry import main\nrc = main(['recall', '--json', {query!r}])",
                              repo)
    assert result.returncode == 0, result.stderr
    return [h["content"] for h in json.loads(result.stdout)], problems


def test_on_by_default_without_numpy_and_paraphrase_ranked_first(git_repo: Path, gm) -> None:
    _add(gm)
    contents, problems = _recall_fenced(git_repo, PARAPHRASE)
    assert contents[:2] == [CAR, CI]
    assert problems == []  # no numpy, tokenizers, safetensors, wordllama or typing
    assert _vectors(git_repo) == 3  # the adds' entries, embedded by that recall


def test_off_by_git_config(git_repo: Path, gm) -> None:
    git("config", "memory.semantic", "false", cwd=git_repo)
    _add(gm)
    contents, problems = _recall_fenced(git_repo, PARAPHRASE)
    assert contents[:2] == [CI, CAR]  # the text score alone: the shorter note wins
    assert problems == []
    assert _vectors(git_repo) == 0


def test_added_while_off_found_after_turning_on_without_reindex(git_repo: Path, gm) -> None:
    git("config", "memory.semantic", "false", cwd=git_repo)
    _add(gm)
    assert json.loads(out(gm("recall", "--json", PARAPHRASE)))[0]["content"] == CI
    git("config", "--unset", "memory.semantic", cwd=git_repo)
    hits = json.loads(out(gm("recall", "--json", PARAPHRASE)))
    assert hits[0]["content"] == CAR
    assert _vectors(git_repo) == 3


def test_reindex_embeds_and_model_change_re_embeds(git_repo: Path, gm) -> None:
    _add(gm)
    result = gm("reindex")
    assert result.returncode == 0, err(result)
    with _db(git_repo) as conn:
        meta = dict(conn.execute("SELECT k, v FROM meta WHERE k LIKE 'semantic_%'"))
        assert meta["semantic_model"] == semantic.MODEL_ID
        assert meta["semantic_hash"] == semantic.files_hash(semantic.model_dir() or "")
        assert conn.execute("SELECT count(*) FROM vectors").fetchone()[0] == 3
        # Another model was recorded: a vector made by it must not survive.
        conn.execute("UPDATE meta SET v = ? WHERE k = 'semantic_hash'", ("0" * 64,))
        conn.execute("UPDATE meta SET v = 'other' WHERE k = 'semantic_files'")
        conn.execute("UPDATE vectors SET v = zeroblob(512)")
    hits = json.loads(out(gm("recall", "--json", PARAPHRASE)))
    assert hits[0]["content"] == CAR
    with _db(git_repo) as conn:
        meta = dict(conn.execute("SELECT k, v FROM meta WHERE k LIKE 'semantic_%'"))
        assert meta["semantic_hash"] == semantic.files_hash(semantic.model_dir() or "")
        blobs = [v for (v,) in conn.execute("SELECT v FROM vectors")]
    assert len(blobs) == 3 and all(v != bytes(512) for v in blobs)


def test_tokenizer_table_gives_the_real_tokenizers_ids() -> None:
    from tokenizers import Tokenizer

    folder = semantic.model_dir() or ""
    real = Tokenizer.from_file(str(Path(folder, *semantic.TOKENIZER)))
    real.no_truncation()
    vocab = {token: (tid, rank) for token, tid, rank in semantic.vocab_rows(folder)}

    def lookup(strings: set[str]) -> dict[str, tuple[int, int]]:
        return {s: vocab[s] for s in strings if s in vocab}

    faq = [json.loads(line) for line in (DATA / "faq-public" / "faq.jsonl").open(encoding="utf-8")]
    texts = [item["query"] for item in faq] + [item["doc"] for item in random.Random(3).sample(faq, 60)]
    texts += ["日本語のテキスト", "naïve café 🚀", "tabs\tand\nnew lines  two  spaces ", ""]
    wrong = [t for t in texts if semantic.tokenize(t, lookup)
             != real.encode(t, add_special_tokens=False).ids]
    assert wrong == []


def test_redacted_entry_leaves_the_vectors_and_the_df(git_repo: Path, gm) -> None:
    _add(gm)
    assert gm("add", "LEARNED: the zqxjvkw frobnicator restarts itself").returncode == 0
    assert gm("recall", "frobnicator").returncode == 0  # embeds all four
    entries = json.loads(out(gm("list", "--json")))
    secret = next(e["id"] for e in entries if "frobnicator" in e["content"])
    with _db(git_repo) as conn:
        before = dict(conn.execute("SELECT id, df FROM sem_df"))
        assert conn.execute("SELECT v FROM meta WHERE k = 'semantic_docs'").fetchone()[0] == "4"
    assert gm("redact", secret, "--reason", "test").returncode == 0
    assert gm("recall", "frobnicator").returncode == 0
    with _db(git_repo) as conn:
        after = dict(conn.execute("SELECT id, df FROM sem_df"))
        assert conn.execute("SELECT v FROM meta WHERE k = 'semantic_docs'").fetchone()[0] == "3"
        assert conn.execute("SELECT count(*) FROM vectors").fetchone()[0] == 3
    gone = [tid for tid, n in before.items() if n == 1 and after.get(tid) == 0]
    assert len(gone) >= 3  # the rare word's tokens are counted nowhere any more
    assert all(after[tid] <= n for tid, n in before.items())


def test_bulk_and_pure_python_vectors_agree(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "bench"))
    try:
        import rank_eval
    finally:
        sys.path.pop(0)
    faq = [json.loads(line) for line in (DATA / "faq-public" / "faq.jsonl").open(encoding="utf-8")]
    items = faq[:40]
    blobs = []
    for name, bulk in (("bulk", 0), ("pure", 10**9)):
        monkeypatch.setattr(semantic, "BULK", bulk)
        (tmp_path / name).mkdir()
        index = rank_eval.build(items, tmp_path / name, semantic=True)
        blobs.append(dict(index.conn.execute("SELECT rowid, v FROM vectors")))
        df = dict(index.conn.execute("SELECT id, df FROM sem_df"))
        blobs.append(df)
        index.close()
    bulk_v, bulk_df, pure_v, pure_df = blobs
    assert bulk_df == pure_df and len(bulk_v) == len(pure_v) == 40
    import struct

    half = struct.Struct("<256e")
    for rowid, blob in bulk_v.items():
        a, b = half.unpack(blob), half.unpack(pure_v[rowid])
        assert sum(x * y for x, y in zip(a, b)) > 0.999


def test_model_files_are_read_once_per_process_and_again_when_they_change(tmp_path: Path) -> None:
    # The tokenizer table and the files' hash every new index needs are kept per process
    # (the MCP server and the test suite's fork server make many indexes), keyed by the
    # files' size and modification time: a changed model is read again.
    import os
    import shutil

    source = semantic.model_dir() or ""
    folder = tmp_path / "wordllama"
    for part in (semantic.WEIGHTS, semantic.TOKENIZER):
        folder.joinpath(part[0]).mkdir(parents=True, exist_ok=True)
        shutil.copy2(Path(source, *part), folder.joinpath(*part))
    first, digest = semantic.vocab_rows(str(folder)), semantic.files_hash(str(folder))
    assert semantic.vocab_rows(str(folder)) is first and semantic.files_hash(str(folder)) == digest
    assert first == semantic.vocab_rows(source)

    tokenizer = folder.joinpath(*semantic.TOKENIZER)
    model = json.loads(tokenizer.read_text(encoding="utf-8"))
    model["model"]["vocab"]["zzq-new-token"] = 999_999
    tokenizer.write_text(json.dumps(model), encoding="utf-8")
    os.utime(tokenizer, ns=(1, 1))  # a stamp of its own even where mtimes are coarse
    again = semantic.vocab_rows(str(folder))
    assert ("zzq-new-token", 999_999, len(model["model"]["merges"])) in again
    assert ("zzq-new-token", 999_999, len(model["model"]["merges"])) not in first
    assert semantic.files_hash(str(folder)) != digest

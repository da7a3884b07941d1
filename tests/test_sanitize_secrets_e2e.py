"""The whole fake-secrets corpus through `git memory import`, then a search of everything
stored for the secrets that were caught.

One JSON-lines import of all 1,195 corpus texts (as `fact` entries), once refusing and
once with `--redact-secrets`, each in a fresh repository. At least 95% of the
`expect: true` texts must be refused (or redacted), and no git object
(`git cat-file --batch-all-objects --batch`), index row or file under
`<git common dir>/git-memory/` (index, audit log) may hold the value of any secret the
scanner found in them. A value that also stands in a text that was stored (the corpus
reuses some values in near misses: `abcd1234abcd1234...`, `value with quotes and
spaces`) cannot be checked this way and is set aside; at most 25 distinct values are.
"""

from __future__ import annotations

import json
import sqlite3
import subprocess
import unicodedata
from pathlib import Path

import pytest

from conftest import Run, git, out
from git_memory.sanitize.secrets import scan
from git_memory.sanitize.chars import strip_invisible

CORPUS = Path(__file__).resolve().parent / "data" / "secrets" / "corpus.jsonl"
MIN_VALUE = 8  # shorter values ("abc") stand in ordinary text by chance


def _rows() -> list[dict]:
    return [json.loads(line) for line in CORPUS.open(encoding="utf-8")]


def _cleaned(text: str) -> str:
    stripped, _ = strip_invisible(text)
    return unicodedata.normalize("NFKC", stripped)


def _import(repo: Path, gm: Run, tmp_path: Path, *flags: str) -> dict:
    source = tmp_path / "corpus-import.jsonl"
    with source.open("w", encoding="utf-8") as handle:
        for number, row in enumerate(_rows()):
            entry = {"type": "fact", "content": row["text"], "key": f"corpus-{number}"}
            handle.write(json.dumps(entry) + "\n")
    result = gm("import", str(source), "--json", *flags, cwd=repo)
    assert result.returncode == 0, result.stderr.decode()
    return json.loads(out(result))


def _stored(repo: Path) -> tuple[str, str]:
    """Everything the repository keeps of the memory: (as stored, lower-cased)."""
    objects = subprocess.run(
        ["git", "cat-file", "--batch-all-objects", "--batch"], cwd=repo, capture_output=True,
        check=True).stdout
    parts = [objects.decode("utf-8", "replace")]
    common = Path(git("rev-parse", "--git-common-dir", cwd=repo).strip())
    base = (repo / common if not common.is_absolute() else common) / "git-memory"
    for path in sorted(base.rglob("*")):
        if path.is_file():
            parts.append(path.read_bytes().decode("utf-8", "replace"))
    index = base / "index.sqlite"
    assert index.exists()
    with sqlite3.connect(index) as db:  # every row of every table, FTS content included
        parts.extend(str(line) for line in db.iterdump())
    whole = "\n".join(parts)
    return whole, whole.lower()


def _lines(summary: dict, *, secret_only: bool = True) -> set[int]:
    return {int(r["where"].split()[-1]) for r in summary["rejects"]
            if not secret_only or "secret" in r["reason"]}


def _check_nothing_leaked(repo: Path, caught: list[int], stored_lines: set[int]) -> int:
    rows = _rows()
    stored_texts = [_cleaned(rows[n - 1]["text"]).lower() for n in stored_lines]
    whole, low = _stored(repo)
    leaks: list[str] = []
    set_aside: set[str] = set()
    for n in caught:
        text = _cleaned(rows[n - 1]["text"])
        for found in scan(text):
            value = text[found.start:found.end]
            if len(value) < MIN_VALUE:
                continue
            if any(value.lower() in other for other in stored_texts):
                set_aside.add(value.lower())
                continue
            if value in whole or value.lower() in low:
                leaks.append(f"line {n} ({found.rule}): {value[:6]}...")
    assert not leaks, "secret values found in storage:\n" + "\n".join(leaks)
    return len(set_aside)


@pytest.mark.slow  # the whole corpus of 1,195 texts through a real import: a scale test
def test_importing_the_corpus_refuses_95_percent_and_stores_no_caught_secret(
    git_repo: Path, gm: Run, tmp_path: Path,
) -> None:
    rows = _rows()
    positives = {n for n, row in enumerate(rows, 1) if row["expect"]}
    summary = _import(git_repo, gm, tmp_path, "--skip-secrets")
    refused = _lines(summary)
    assert len(refused & positives) / len(positives) >= 0.95, len(refused & positives)
    stored = set(range(1, len(rows) + 1)) - _lines(summary, secret_only=False)
    set_aside = _check_nothing_leaked(git_repo, sorted(refused & positives), stored)
    assert set_aside <= 25, set_aside  # distinct values the corpus reuses in a near miss
    audit = (git_repo / ".git" / "git-memory" / "audit.jsonl").read_text(encoding="utf-8")
    assert audit.count('"refused"') >= len(refused)


@pytest.mark.slow  # ~15 s under load: the redaction pass rescans every text
def test_importing_the_corpus_with_redaction_keeps_no_caught_secret(
    git_repo: Path, gm: Run, tmp_path: Path,
) -> None:
    rows = _rows()
    positives = {n for n, row in enumerate(rows, 1) if row["expect"]}
    summary = _import(git_repo, gm, tmp_path, "--redact-secrets")
    redacted = {int(where.split()[-1]) for where in summary["redacted"]}
    refused = _lines(summary)  # "nothing but a secret" or what redaction could not cut
    assert len(redacted) >= 400
    # Duplicates (texts equal once redacted) are neither listed as redacted nor refused.
    caught = (redacted | refused) & positives
    assert (len(caught) + summary["duplicates"]) / len(positives) >= 0.95
    stored = set(range(1, len(rows) + 1)) - _lines(summary, secret_only=False) - redacted
    _check_nothing_leaked(git_repo, sorted(caught), stored)
    whole, _ = _stored(git_repo)
    assert "[REDACTED:" in whole


@pytest.mark.parametrize("number", [0, 100, 250, 400, 560, 700])
def test_add_refuses_a_sample_of_the_corpus(git_repo: Path, gm: Run, number: int) -> None:
    """`git memory add` on a sample of caught texts: refused, exit 1, nothing written."""
    caught = [row for row in _rows() if row["expect"] and scan(_cleaned(row["text"]))]
    text = caught[number]["text"]
    result = gm("add", f"LEARNED: {text}", cwd=git_repo)
    assert result.returncode == 1, result.stderr.decode()
    assert "contains a secret" in result.stderr.decode()
    assert git("for-each-ref", "refs/heads/git-memory", cwd=git_repo) == ""

"""The secrets corpus in every field: a field catches what the entry text catches.

Every `expect: true` text of tests/data/secrets/corpus.jsonl goes into the entry text,
the key, a tag and a type field (one `import` of all of them), and a sample of ~50 into
a branch name (real commits captured by the post-commit hook) and a curation `--reason`.
Each field's catch rate must equal the text's, measured in the same run on the same
texts, within one point; and no stored git object, index row, audit line or log of ours
may hold the value of anything caught. The rates follow the detectors: today's rules
catch about a quarter of the corpus, the secrets-scanner's rules most of it; the test
holds for both.
"""

from __future__ import annotations

import json
import re
import subprocess
from pathlib import Path

import pytest

from conftest import err, git, out
from secrets_support import local_files_holding, objects_holding
from git_memory.sanitize.scan import cleaned
from git_memory.sanitize.secrets import redact_secrets

CORPUS = Path(__file__).parent / "data" / "secrets" / "corpus.jsonl"
FIELDS = ("content", "key", "tags", "field")
SAMPLE = 50


def _texts() -> list[str]:
    rows = [json.loads(line) for line in CORPUS.read_text(encoding="utf-8").splitlines()]
    return [r["text"] for r in rows if r["expect"]]


def _values(text: str) -> list[str]:
    """What a caught text must not leave anywhere: the spans redaction cuts out (the
    whole text when it cannot tell them apart), at least 8 characters long."""
    form = cleaned(text)
    redacted, _ = redact_secrets(form)
    parts = re.split(r"\[REDACTED:[a-z0-9-]+\]", redacted)
    if len(parts) > 1:
        match = re.match("^" + "(.+?)".join(re.escape(p) for p in parts) + "$", form, re.DOTALL)
        if match:
            return [v for v in match.groups() if len(v.strip()) >= 8]
    return [form]


def _line(number: int, text: str, where: str) -> dict:
    entry: dict = {"type": "fact", "content": f"clean entry {where} {number}"}
    if where == "content":
        entry["content"] = text
    elif where == "key":
        entry["key"] = text
    elif where == "tags":
        entry["tags"] = [text]
    else:
        entry["notes"] = {"why": ["context", text]}
    return entry


def _rate(caught: int, total: int) -> float:
    return 100.0 * caught / total


def _check_nothing_stored(repo: Path, caught_texts: list[str], missed_texts: list[str]) -> None:
    """No value of a caught text in any object or local file. A value that a missed text
    also holds (the same token in another wording) is stored through that text and is
    not this test's business."""
    missed = "\n".join(missed_texts + [cleaned(t) for t in missed_texts])
    values = {v for text in caught_texts for v in _values(text) if v not in missed}
    blob = subprocess.run(["git", "cat-file", "--batch-all-objects", "--batch"], cwd=repo,
                          capture_output=True, check=True).stdout
    leaked = [v for v in values if v.encode("utf-8") in blob]
    assert leaked == [], f"{len(leaked)} values stored in git objects"
    files = [v for v in values if local_files_holding(repo, v)]
    assert files == [], f"{len(files)} values in files under the git-memory dir"


@pytest.mark.slow  # the whole corpus through key, tags and type fields: a scale test
def test_corpus_in_key_tags_and_type_fields_is_caught_like_the_text(git_repo, gm, tmp_path):
    texts = _texts()
    lines = [_line(n, text, where) for n, text in enumerate(texts) for where in FIELDS]
    path = tmp_path / "corpus.jsonl"
    path.write_text("".join(json.dumps(x) + "\n" for x in lines), encoding="utf-8")
    result = gm("import", "--json", "--skip-secrets", str(path))
    assert result.returncode == 0, err(result)
    summary = json.loads(out(result))
    refused = {int(r["where"].split()[-1]) - 1 for r in summary["rejects"]
               if "contains a secret" in r["reason"]}
    caught = {where: {n for n in range(len(texts)) if n * len(FIELDS) + i in refused}
              for i, where in enumerate(FIELDS)}
    rates = {where: _rate(len(caught[where]), len(texts)) for where in FIELDS}
    print("catch rates:", {k: f"{v:.1f}%" for k, v in rates.items()})
    for where in ("key", "tags", "field"):
        assert abs(rates[where] - rates["content"]) <= 1.0, (where, rates)
    everywhere = set.intersection(*caught.values())
    _check_nothing_stored(git_repo, [texts[n] for n in everywhere],
                          [texts[n] for n in range(len(texts)) if n not in everywhere])
    audit = (git_repo / ".git" / "git-memory" / "audit.jsonl").read_text(encoding="utf-8")
    assert audit.count('"refused"') >= len(refused)


def _branch_tokens(texts: list[str]) -> list[str]:
    """~50 texts (or their longest word) that git accepts as a branch name (and a file
    system as a file name: refs are files)."""
    found: list[str] = []
    for text in texts[::5]:
        words = sorted(re.findall(r"[^\s\"'`,;=()<>{}\[\]]+", text), key=len, reverse=True)
        for candidate in [text] + words[:1]:
            if candidate not in found and len(candidate) <= 200 and subprocess.run(
                    ["git", "check-ref-format", "--branch", candidate],
                    capture_output=True).returncode == 0:
                found.append(candidate)
                break
        if len(found) == SAMPLE:
            break
    return found


@pytest.mark.slow
def test_corpus_sample_in_branch_names_and_curation_reasons(git_repo, gm, tmp_path):
    texts = _texts()
    tokens = _branch_tokens(texts)
    reasons = texts[::len(texts) // SAMPLE][:SAMPLE]
    # The text rate of the very same strings, through the same import as any entry.
    path = tmp_path / "same.jsonl"
    path.write_text("".join(json.dumps({"type": "fact", "content": t}) + "\n"
                            for t in tokens + reasons), encoding="utf-8")
    summary = json.loads(out(gm("import", "--json", "--skip-secrets", str(path))))
    refused = {int(r["where"].split()[-1]) - 1 for r in summary["rejects"]
               if "contains a secret" in r["reason"]}
    text_branch = _rate(len([n for n in range(len(tokens)) if n in refused]), len(tokens))
    text_reason = _rate(len([n for n in range(len(reasons)) if n + len(tokens) in refused]),
                        len(reasons))
    # Branch names: a real commit on a branch named after each token, captured by the hook.
    assert gm("install", "--hooks", "post-commit").returncode == 0
    caught_branches = []
    for number, token in enumerate(tokens):
        git("checkout", "-q", "-b", token, "main", cwd=git_repo)
        git("commit", "-q", "--allow-empty", "-m", f"work\n\nFACT: branch sample {number}",
            cwd=git_repo)
    branches = {e["content"]: e["origin"].get("branch", "")
                for e in json.loads(out(gm("list", "--json")))}
    for number, token in enumerate(tokens):
        stored = branches[f"branch sample {number}"]
        if "[REDACTED:" in stored:
            caught_branches.append(number)
    # Curation reasons: each one refused, or written.
    target = out(gm("add", "FACT: the entry the reasons are about")).strip()
    caught_reasons = []
    for number, reason in enumerate(reasons):
        result = gm("contradict", target, "--reason", reason)
        if result.returncode == 1 and "contains a secret" in err(result):
            caught_reasons.append(number)
        else:
            assert result.returncode == 0, err(result)
    branch_rate = _rate(len(caught_branches), len(tokens))
    reason_rate = _rate(len(caught_reasons), len(reasons))
    print(f"branch {branch_rate:.1f}% (text {text_branch:.1f}%),"
          f" reason {reason_rate:.1f}% (text {text_reason:.1f}%) of {len(tokens)}/{len(reasons)}")
    assert len(tokens) >= 40
    assert abs(branch_rate - text_branch) <= 1.0
    assert abs(reason_rate - text_reason) <= 1.0
    missed = ([t for n, t in enumerate(tokens) if n not in caught_branches]
              + [r for n, r in enumerate(reasons) if n not in caught_reasons])
    _check_nothing_stored(git_repo, [tokens[n] for n in caught_branches]
                          + [reasons[n] for n in caught_reasons], missed)
    assert objects_holding(git_repo, "[REDACTED:") >= len(caught_branches)

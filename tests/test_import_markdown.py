"""`import --format markdown`: a CLAUDE.md-style notes file becomes entries, nothing lost."""

from __future__ import annotations

import json
from pathlib import Path

from conftest import err, out, tip

ROOT = Path(__file__).resolve().parents[1]

CLAUDE_MD = """---
description: project memory
---
# Project memory

@docs/style.md

## Build and test

- Use `pnpm`, never `npm`: the lockfile is pnpm's.
- Run tests with `pnpm test -- --runInBand`; parallel runs
  share one database and flake.
- LEARNED: the e2e suite needs `PLAYWRIGHT_BROWSERS_PATH=0`
  - nested detail stays with its parent
- DECISION: releases are cut on Tuesdays

<!-- a comment
that spans lines -->

## Architecture

The API lives in `services/api`; the worker in `services/worker`.
It talks to Redis over a Unix socket.

```sh
make worker
```

---

1. Migrations run before deploys.
2. Never edit a migration that shipped.

   Write a new one instead.
"""

EXPECTED = [  # (line, type, tag, content)
    (10, "fact", "build-and-test", "Use `pnpm`, never `npm`: the lockfile is pnpm's."),
    (11, "fact", "build-and-test",
     "Run tests with `pnpm test -- --runInBand`; parallel runs\nshare one database and flake."),
    (13, "learned", "build-and-test",
     "the e2e suite needs `PLAYWRIGHT_BROWSERS_PATH=0`\n- nested detail stays with its parent"),
    (15, "decision", "build-and-test", "releases are cut on Tuesdays"),
    (22, "fact", "architecture", "The API lives in `services/api`; the worker in "
     "`services/worker`.\nIt talks to Redis over a Unix socket.\n\n```sh\nmake worker\n```"),
    (31, "fact", "architecture", "Migrations run before deploys."),
    (32, "fact", "architecture", "Never edit a migration that shipped.\n\nWrite a new one instead."),
]


def _entries(gm) -> list[tuple[int, str, str, str]]:
    listed = json.loads(out(gm("list", "--json")))
    return sorted((e["origin"]["line"], e["type"], (e["tags"] or [""])[0], e["content"])
                  for e in listed)


def _write(tmp: Path, text: str, name: str = "CLAUDE.md", newline: str = "\n") -> Path:
    path = tmp / name
    path.write_bytes(text.replace("\n", newline).encode("utf-8"))
    return path


def test_claude_md_bullets_and_paragraphs_become_entries(git_repo: Path, gm, tmp_path: Path) -> None:
    result = gm("import", "--format", "markdown", str(_write(tmp_path, CLAUDE_MD)))
    assert result.returncode == 0, err(result)
    assert out(result).startswith("imported 7, skipped 0 duplicates, rejected 0")
    assert _entries(gm) == EXPECTED
    listed = json.loads(out(gm("list", "--json")))
    assert {e["origin"]["file"] for e in listed} == {"CLAUDE.md"}
    assert {e["source"] for e in listed} == {"import"}
    # Found by recall, filtered by the heading's tag.
    hits = json.loads(out(gm("recall", "--json", "--tag", "architecture", "redis worker")))
    assert hits[0]["content"].startswith("The API lives in")
    # The same file again adds nothing.
    again = gm("import", "--format", "markdown", str(_write(tmp_path, CLAUDE_MD)))
    assert out(again).startswith("imported 0, skipped 7 duplicates")


def test_windows_line_endings_and_default_type(git_repo: Path, gm, tmp_path: Path) -> None:
    path = _write(tmp_path, CLAUDE_MD, newline="\r\n")
    result = gm("import", "--format", "markdown", "--type", "pattern", str(path))
    assert result.returncode == 0, err(result)
    got = _entries(gm)
    assert [(line, tag, content) for line, _, tag, content in got] == [
        (line, tag, content) for line, _, tag, content in EXPECTED]
    assert [kind for _, kind, _, _ in got] == [
        "pattern", "pattern", "learned", "decision", "pattern", "pattern", "pattern"]


def test_bad_markdown_input_is_one_error_line_and_writes_nothing(
    git_repo: Path, gm, tmp_path: Path
) -> None:
    cases = {
        "binary.md": b"\xff\xfe\x00\x01 not text",
        "nul.md": b"- a fact\x00 with a NUL\n",
        "empty.md": b"",
        "only-headings.md": b"# Title\n\n## Section\n\n---\n<!-- nothing -->\n",
    }
    for name, data in cases.items():
        path = tmp_path / name
        path.write_bytes(data)
        result = gm("import", "--format", "markdown", str(path))
        assert result.returncode == 1, (name, err(result))
        lines = err(result).strip().splitlines()
        assert len(lines) == 1 and lines[0].startswith("error:"), (name, lines)
        assert tip(git_repo) is None, name
    bogus = gm("import", "--format", "markdown", "--type", "bogus", str(_write(tmp_path, CLAUDE_MD)))
    assert bogus.returncode == 1 and "unknown type" in err(bogus)
    hint = gm("import", str(_write(tmp_path, CLAUDE_MD)))  # forgot --format
    assert hint.returncode == 1
    assert err(hint).strip() == ("error: line 1: not valid JSON (Expecting value);"
                                 " for a Markdown file use --format markdown")
    wrong = gm("import", "--type", "fact", str(_write(tmp_path, CLAUDE_MD)))
    assert wrong.returncode == 2 and "--format markdown" in err(wrong)
    assert tip(git_repo) is None


def test_a_secret_in_a_bullet_is_rejected_or_redacted(git_repo: Path, gm, tmp_path: Path) -> None:
    text = ("## Ops\n\n- Staging DB: postgres://ops:Qm7vT2xx9Lp0@10.1.2.3/app\n"
            "- Backups run nightly\n")
    path = _write(tmp_path, text)
    refused = gm("import", "--format", "markdown", "--skip-secrets", "--json", str(path))
    summary = json.loads(out(refused))
    assert summary["imported"] == 1
    assert summary["rejects"][0]["where"] == "line 3"
    assert "credentials-in-url" in summary["rejects"][0]["reason"]
    kept = json.loads(out(gm("import", "--format", "markdown", "--json", str(path))))
    assert kept["imported"] == 1 and kept["redacted"] == ["line 3"]
    assert "Qm7vT2xx9Lp0" not in out(gm("list", "--json"))


def test_an_unclosed_fence_and_a_real_docs_page_import_whole(
    git_repo: Path, gm, tmp_path: Path
) -> None:
    open_fence = _write(tmp_path, "- run this:\n\n```sh\nmake all\n- not an item\n", "open.md")
    result = gm("import", "--format", "markdown", "--json", str(open_fence))
    assert json.loads(out(result))["imported"] == 1
    assert _entries(gm)[0][3] == "run this:\n\n```sh\nmake all\n- not an item"
    # A long real page with tables, code and links: every block an entry, no heading inside.
    page = ROOT / "docs" / "recall.md"
    summary = json.loads(out(gm("import", "--format", "markdown", "--json", str(page))))
    assert summary["imported"] > 20 and summary["rejected"] == 0
    contents = [e["content"] for e in json.loads(out(gm("list", "--json", "--limit", "1000")))]
    assert all(c.strip() and not c.startswith("#") for c in contents)


def test_setext_headings_and_indented_top_level_bullets(git_repo: Path, gm, tmp_path: Path) -> None:
    text = ("Deploying\n=========\n\n  - Deploys go out from `main` only\n"
            "    - staging first, then production\n  - Rollbacks use the previous image\n\n"
            "Local setup\n-----------\n\nRun `make dev` once.\n")
    result = gm("import", "--format", "markdown", str(_write(tmp_path, text, "notes.md")))
    assert result.returncode == 0, err(result)
    assert _entries(gm) == [
        (4, "fact", "deploying",
         "Deploys go out from `main` only\n- staging first, then production"),
        (6, "fact", "deploying", "Rollbacks use the previous image"),
        (11, "fact", "local-setup", "Run `make dev` once."),
    ]

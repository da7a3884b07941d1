"""Everyday polish: unquoted words, -n, plurals, a pager, colour and width on a terminal."""

from __future__ import annotations

import json
from pathlib import Path

from conftest import err, out
from ptyread import drain


def test_add_takes_unquoted_words(git_repo: Path, gm) -> None:
    result = gm("add", "LEARNED:", "pip", "caches", "wheels", "--tag", "pip")
    assert result.returncode == 0, err(result)
    (entry,) = json.loads(out(gm("list", "--json")))
    assert entry["type"] == "learned" and entry["content"] == "pip caches wheels"
    assert entry["tags"] == ["pip"]
    again = gm("add", "LEARNED: pip caches wheels")  # quoted: the same entry
    assert "already known" in err(again)
    assert gm("add").returncode == 2  # no words at all is a usage error


def test_list_and_log_take_n(git_repo: Path, gm) -> None:
    for word in ("one", "two", "three"):
        assert gm("add", "FACT:", word).returncode == 0
    for flag in ("-n", "--limit"):
        listed = out(gm("list", flag, "2")).splitlines()
        assert len(listed) == 2 and "three" in listed[0] and "two" in listed[1]
        assert len(out(gm("log", flag, "2")).splitlines()) == 2


def test_counts_agree_with_their_nouns(git_repo: Path, gm, tmp_path: Path) -> None:
    assert gm("add", "FACT: the only one").returncode == 0
    assert "(+1 record)" in out(gm("log"))
    assert "indexed 1 entry (1 record)" in out(gm("reindex"))
    doctor = out(gm("doctor"))
    assert "(1 entry," in doctor
    rows = tmp_path / "rows.jsonl"
    rows.write_text(json.dumps({"type": "fact", "content": "the only one"}) + "\n")
    assert "skipped 1 duplicate," in out(gm("import", str(rows)))
    assert "1 entry" in out(gm("recall", "--stats"))


def _on_terminal(gm_args: list[str], cwd: Path, env: dict[str, str] | None = None) -> str:
    """Run `git memory ARGS` with a pseudo-terminal as stdin, stdout and stderr."""
    import os
    import pty
    import subprocess

    master, slave = pty.openpty()
    full = {**os.environ, "TERM": "xterm", **(env or {})}
    if "COLUMNS" not in (env or {}):
        full.pop("COLUMNS", None)
    proc = subprocess.Popen(["git", "memory", *gm_args], cwd=cwd, env=full, stdin=slave,
                            stdout=slave, stderr=slave)
    os.close(slave)
    shown = drain(master)
    proc.wait(timeout=30)
    os.close(master)
    return shown.decode("utf-8", "replace").replace("\r\n", "\n")


def _pager(tmp_path: Path, name: str) -> tuple[str, Path]:
    log = tmp_path / f"{name}.log"
    script = tmp_path / f"{name}.sh"
    script.write_text(f'#!/bin/sh\necho "{name} LESS=$LESS" >> "{log}"\ncat\n')
    script.chmod(0o755)
    return str(script), log


def test_long_output_goes_through_the_pager_git_would_use(git_repo: Path, gm,
                                                          tmp_path: Path) -> None:
    from conftest import git

    added = gm("add", "FACT: paged output")
    assert added.returncode == 0
    first, first_log = _pager(tmp_path, "gitpager")
    second, second_log = _pager(tmp_path, "corepager")
    third, third_log = _pager(tmp_path, "pager")
    shown = _on_terminal(["list"], git_repo, {"GIT_PAGER": first, "PAGER": third})
    assert "paged output" in shown
    assert first_log.read_text() == "gitpager LESS=FRX\n"  # as git sets it up
    git("config", "core.pager", second, cwd=git_repo)
    _on_terminal(["log"], git_repo, {"PAGER": third})
    assert second_log.read_text() == "corepager LESS=FRX\n"  # core.pager before PAGER
    git("config", "--unset", "core.pager", cwd=git_repo)
    _on_terminal(["show", out(added).strip()], git_repo, {"PAGER": third, "LESS": "R"})
    assert third_log.read_text() == "pager LESS=R\n"  # PAGER last; the user's LESS kept
    for args, env in ((["--no-pager", "list"], {"GIT_PAGER": first}),
                      (["list"], {"GIT_PAGER": "cat", "PAGER": third})):
        assert "paged output" in _on_terminal(args, git_repo, env)
    assert first_log.read_text().count("\n") == 1 and third_log.read_text().count("\n") == 1
    piped = gm("list", env={"GIT_PAGER": first})  # not a terminal: no pager
    assert "paged output" in out(piped) and first_log.read_text().count("\n") == 1


def test_colour_follows_color_ui_and_no_color(git_repo: Path, gm) -> None:
    from conftest import git

    assert gm("add", "FACT: coloured output").returncode == 0
    yellow = "\x1b[33m"
    assert yellow in _on_terminal(["list"], git_repo, {"GIT_PAGER": "cat"})  # auto, a terminal
    assert yellow not in _on_terminal(["list"], git_repo, {"GIT_PAGER": "cat", "NO_COLOR": "1"})
    assert yellow not in out(gm("list"))  # auto, not a terminal
    git("config", "color.ui", "never", cwd=git_repo)
    assert yellow not in _on_terminal(["list"], git_repo, {"GIT_PAGER": "cat"})
    git("config", "color.ui", "always", cwd=git_repo)
    assert yellow in out(gm("list")) and yellow in out(gm("log"))
    git("config", "color.memory", "false", cwd=git_repo)  # our own switch wins over color.ui
    assert yellow not in out(gm("list"))


def test_lines_fit_the_terminal_width_counting_wide_characters(git_repo: Path, gm) -> None:
    import unicodedata

    def columns(line: str) -> int:
        return sum(2 if unicodedata.east_asian_width(c) in "WF" else 1 for c in line)

    assert gm("add", "DECISION: 設定ファイルは config/app.toml に置き、環境ごとの差分は環境変数で上書きする"
              "ことにした。理由は運用チームの手順書と合わせるためである").returncode == 0
    assert gm("add", "FACT: " + "plain words " * 20).returncode == 0
    for width in (40, 60, 100):
        shown = _on_terminal(["list"], git_repo, {"GIT_PAGER": "cat", "COLUMNS": str(width),
                                                  "NO_COLOR": "1"})
        lines = [line for line in shown.splitlines() if line.strip()]
        assert len(lines) == 2
        for line in lines:
            assert columns(line) <= width, (width, line)
        assert all("…" in line for line in lines)  # both had to be cut
    wide = _on_terminal(["list"], git_repo, {"GIT_PAGER": "cat", "COLUMNS": "400"})
    assert "…" not in wide and "理由は運用チームの手順書と合わせるためである" in wide

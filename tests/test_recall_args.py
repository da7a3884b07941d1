"""The click-free argument parser of recall, and --since parsing (pure functions)."""

from __future__ import annotations

import pytest

from git_memory.commands.recall import parse_argv
from git_memory.isotime import parse_since
from git_memory.errors import UsageProblem


def test_parse_argv_reads_every_option() -> None:
    args = parse_argv(["redirect", "uri", "--type", "learned", "--tag=auth", "--tag", "oauth",
                       "--path", "src", "--since", "7d", "-n", "3", "--all", "--recent", "20",
                       "--json"])
    assert args is not None
    assert args.query == "redirect uri" and args.types == ["learned"]
    assert args.tags == ["auth", "oauth"] and args.paths == ["src"] and args.since == "7d"
    assert (args.limit, args.include_all, args.recent, args.as_json, args.stats) == (
        3, True, 20, True, False)


@pytest.mark.parametrize("argv", [["-h"], ["--help"], ["x", "--limit", "0"], ["x", "--limit"],
                                  ["--bogus"], ["x", "--recent", "many"], ["-x"], ["--all=1"]])
def test_parse_argv_hands_over_to_click(argv: list[str]) -> None:
    assert parse_argv(argv) is None


def test_parse_argv_double_dash_and_dash() -> None:
    args = parse_argv(["--", "-x", "--json"])
    assert args is not None and args.query == "-x --json" and not args.as_json
    assert parse_argv(["-"]).query == "-"  # type: ignore[union-attr]


def test_parse_since() -> None:
    now = 1_800_000_000.0  # 2027-01-15T08:00:00Z
    assert parse_since("1d", now) == "2027-01-14T08:00:00Z"
    assert parse_since("2w", now) == "2027-01-01T08:00:00Z"
    assert parse_since("12h", now) == "2027-01-14T20:00:00Z"
    assert parse_since("2026-01-31") == "2026-01-31T00:00:00Z"
    assert parse_since("2026-01-31T12:30") == "2026-01-31T12:30:00Z"
    assert parse_since("2026-01-31T12:30:05Z") == "2026-01-31T12:30:05Z"
    for bad in ("yesterday", "2026-13-45", "7", "-3d", ""):
        with pytest.raises(UsageProblem):
            parse_since(bad)

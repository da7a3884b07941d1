"""The one ISO timestamp reader: what records carry, read as UTC."""

from __future__ import annotations

import pytest

from git_memory import isotime, ui


def test_epoch_reads_record_stamps_as_utc() -> None:
    assert isotime.epoch("1970-01-02T00:00:00Z") == 86400.0
    assert isotime.seconds("2026-11-26T03:40:12Z") == 1795664412
    assert isotime.seconds("2026-11-26T03:40:12.123+05:00") == 1795664412  # first 19 characters


@pytest.mark.parametrize("bad", ["", "yesterday", "2026-13-01T00:00:00Z", None])
def test_unreadable_stamps(bad: object) -> None:
    assert isotime.seconds(bad) is None  # type: ignore[arg-type]
    assert ui.age(bad) == ""  # type: ignore[arg-type]


def test_age_uses_it() -> None:
    assert ui.age("2026-11-26T00:00:00Z", now=isotime.epoch("2026-11-29T01:00:00Z")) == "3d ago"

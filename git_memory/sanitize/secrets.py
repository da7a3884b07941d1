"""Secret detectors: high-precision patterns, each with a rule name.

A match refuses the text; the rule's name is reported, never the matched value.
"""

from __future__ import annotations

import re
from dataclasses import dataclass


@dataclass(frozen=True)
class Detector:
    rule: str
    pattern: re.Pattern[str]


DETECTORS: tuple[Detector, ...] = (
    Detector("aws-access-key-id", re.compile(r"\b(?:AKIA|ASIA|ABIA|ACCA)[0-9A-Z]{16}\b")),
    Detector("github-token", re.compile(r"\bgh[pousr]_[A-Za-z0-9]{36,255}\b")),
    Detector("github-fine-grained-token", re.compile(r"\bgithub_pat_[A-Za-z0-9_]{60,255}\b")),
    Detector(
        "private-key-block",
        re.compile(r"-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----"),
    ),
)


def find_secret(text: str) -> str | None:
    """The name of the first rule that matches, or None."""
    for detector in DETECTORS:
        if detector.pattern.search(text):
            return detector.rule
    return None

"""Finding what to curate (docs/curation.md, "curate"), from the index only: each visible
entry in at most one candidate, in an order that depends on the index content alone."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from functools import lru_cache

from git_memory.curation.near import MEMO_LIMIT, MIN_SHARED, NEAR_THRESHOLD, NearSearch, Search
from git_memory.curation.near import term_hash as _term
from git_memory.index.db import Index
from git_memory.index.curating import (
    duplicate_groups, ids_of_rowids, max_rowid, text_of_rowid, visible_states, visible_texts,
)
from git_memory.index.flags import local_flags

__all__ = ["Candidate", "MIN_SHARED", "NEAR_THRESHOLD", "Search", "search", "stems"]
LOW_CONFIDENCE = 0.35
_WORD = re.compile(r"\w+", re.UNICODE)
STOPWORDS = frozenset(
    "the and for are but not you all any can had has her was one our out his how its may "
    "who did get use this that with from have will when what which there their they them "
    "then than into only also just been were some such more most very should would could "
    "about after before other over each does doing".split()
)


@dataclass
class Candidate:
    """One thing curate proposes to change, and why."""

    action: str  # duplicate | near_duplicate | stale | contradicted | low_confidence
    ids: list[str]  # entries concerned, oldest first
    why: str
    score: float | None = None
    shared: list[str] = field(default_factory=list)


@lru_cache(maxsize=MEMO_LIMIT)
def _stem_of(word: str) -> str | None:
    """A word's light stem; None when it is no content word."""
    if len(word) < 3 or word in STOPWORDS or word.isdigit():
        return None
    for suffix in ("ing", "ed", "es", "s"):
        if word.endswith(suffix) and len(word) - len(suffix) >= 4:
            return word[: -len(suffix)]
    return word


def stems(text: str) -> dict[str, str]:
    """Content words, lightly stemmed so 'included' and 'including' meet: {stem: word}."""
    out: dict[str, str] = {}
    for word in _WORD.findall(text.casefold()):
        stem = _stem_of(word)
        if stem is not None and stem not in out:
            out[stem] = word
    return out


def terms(text: str) -> set[str]:
    return set(stems(text))


def search(index: Index) -> tuple[list[Candidate], Search]:
    """Every candidate, and what the near-duplicate search examined. The index is read
    through cursors: what stays in memory is one byte per record and near.py's compact
    sets, so curating a large memory stays small."""
    used = bytearray(max_rowid(index) + 1)  # by rowid: already in a candidate
    found = _duplicates(index, used)
    near, report = _near_duplicates(index, used)
    found += near
    found += _stale_and_doubtful(index, used)
    return found, report


def _duplicates(index: Index, used: bytearray) -> list[Candidate]:
    found = []
    for group in duplicate_groups(index):
        for rowid, _ in group:
            used[rowid] = 1
        found.append(Candidate("duplicate", [rid for _, rid in group], "the same text once"
                               " case, spacing and final punctuation are set aside", 1.0))
    return found


def _stem_of_bytes(word: bytes) -> str | None:
    return _stem_of(word.decode("utf-8", "replace"))


def _near_duplicates(index: Index, used: bytearray) -> tuple[list[Candidate], Search]:
    """Groups of entries whose term sets overlap by NEAR_THRESHOLD (Jaccard) or more."""
    finder = NearSearch(stem=_stem_of_bytes)
    finder.read((rowid, text) for rowid, text in visible_texts(index) if not used[rowid])
    found = []
    for group in finder.groups():
        ids = ids_of_rowids(index, group.rowids)
        words = stems(text_of_rowid(index, group.rowids[0]))
        shown = sorted(word for stem, word in words.items() if _term(stem) in group.common)[:8]
        score = round(group.score, 2)
        for rowid in group.rowids:
            used[rowid] = 1
        found.append(Candidate(
            "near_duplicate", [ids[rowid] for rowid in group.rowids],
            f"near duplicates (similarity {score:.2f}; shared terms: {', '.join(shown)})",
            score, shown,
        ))
    return found, finder.report


def _stale_and_doubtful(index: Index, used: bytearray) -> list[Candidate]:
    """Stale anchors first, then contradicted or low-confidence entries, each in entry
    order: one pass over the visible entries."""
    flags = local_flags(index)
    stale: list[Candidate] = []
    doubtful: list[Candidate] = []
    for row in visible_states(index):
        if used[row["rowid"]] or row["status"] == "needs_review":
            continue
        flag = flags.get(row["id"])
        if flag is not None:
            used[row["rowid"]] = 1
            stale.append(Candidate("stale", [row["id"]], f"anchor check: {flag[1] or flag[0]}"))
            continue
        state = json.loads(row["state"]) if row["state"] else {}
        against, support = state.get("contradictions", 0), state.get("reinforcements", 0)
        if against > support:
            used[row["rowid"]] = 1
            doubtful.append(Candidate("contradicted", [row["id"]],
                                      f"contradicted {against}x, reinforced {support}x"))
        elif row["confidence"] < LOW_CONFIDENCE:
            used[row["rowid"]] = 1
            doubtful.append(Candidate("low_confidence", [row["id"]],
                                      f"confidence {row['confidence']:.2f} is below"
                                      f" {LOW_CONFIDENCE}"))
    return stale + doubtful

"""Finding what to curate: duplicates, near duplicates, stale anchors, doubtful entries.

Reads the index only. Each visible entry ends up in at most one candidate, in
this order of precedence: exact or normalised duplicate, near duplicate, stale
anchor (from the local checkout checks in `local_flags`), contradicted, low
confidence. The order of everything returned depends only on the index
content, so the same memory always gives the same proposal.
"""

from __future__ import annotations

import json
import math
import re
from dataclasses import dataclass, field

from git_memory.index.db import Index
from git_memory.index.entries import visible
from git_memory.index.flags import local_flags
from git_memory.index.schema import Row

NEAR_THRESHOLD = 0.6  # Jaccard similarity of the term sets
MIN_SHARED = 3  # fewer shared terms than this is chance, whatever the ratio
MAX_POSTING = 64  # a prefix term this common says nothing about duplicates
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


_STEMS: dict[str, str | None] = {}  # word -> stem (None: not a content word), memoised


def _stem(word: str) -> str | None:
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
        stem = _STEMS.get(word, "")
        if stem == "":
            stem = _STEMS[word] = _stem(word)
        if stem is not None and stem not in out:
            out[stem] = word
    return out


def terms(text: str) -> set[str]:
    return set(stems(text))


def find(index: Index) -> list[Candidate]:
    rows = visible(index)
    used: set[str] = set()
    found: list[Candidate] = []
    found += _duplicates(rows, used)
    found += _near_duplicates(rows, used)
    found += _stale(index, rows, used)
    found += _doubtful(rows, used)
    return found


def _duplicates(rows: list[Row], used: set[str]) -> list[Candidate]:
    groups: dict[str, list[Row]] = {}
    for row in rows:
        groups.setdefault(row["hash"], []).append(row)
    found = []
    for group in groups.values():
        if len(group) < 2:
            continue
        ids = [r["id"] for r in group]
        used.update(ids)
        found.append(Candidate("duplicate", ids, "the same text once case, spacing and"
                               " final punctuation are set aside", 1.0))
    return found


def _near_duplicates(rows: list[Row], used: set[str]) -> list[Candidate]:
    """Groups of entries whose term sets overlap by NEAR_THRESHOLD (Jaccard) or more.

    Prefix filtering keeps this far from quadratic: with every set's terms in one
    global order (rarest first), two sets that reach the threshold must share a term
    among the first |A| - ceil(t * |A|) + 1 of either. Only entries sharing such a
    term are compared, and a pair already in one group is not compared again.
    """
    pool = [r for r in rows if r["id"] not in used]
    sets = [terms(r["content"]) for r in pool]
    freq: dict[str, int] = {}
    for words in sets:
        for word in words:
            freq[word] = freq.get(word, 0) + 1
    postings: dict[str, list[int]] = {}
    for number, words in enumerate(sets):
        ordered = sorted(words, key=lambda w: (freq[w], w))
        keep = len(ordered) - math.ceil(NEAR_THRESHOLD * len(ordered)) + 1
        for word in ordered[:keep]:
            postings.setdefault(word, []).append(number)
    sizes = [len(words) for words in sets]
    parent = list(range(len(pool)))
    best: dict[int, float] = {}

    def root(n: int) -> int:
        while parent[n] != n:
            parent[n] = parent[parent[n]]  # path halving keeps later look-ups short
            n = parent[n]
        return n

    for word in sorted(postings):
        members = postings[word]
        if len(members) > MAX_POSTING:
            continue
        for i, a in enumerate(members):
            low, high = NEAR_THRESHOLD * sizes[a], sizes[a] / NEAR_THRESHOLD
            for b in members[i + 1 :]:
                if not low <= sizes[b] <= high:
                    continue  # sizes this far apart cannot reach the threshold
                ra, rb = root(a), root(b)
                if ra == rb:
                    continue
                shared = len(sets[a] & sets[b])
                score = shared / len(sets[a] | sets[b])
                if shared >= MIN_SHARED and score >= NEAR_THRESHOLD:
                    top = min(ra, rb)
                    parent[max(ra, rb)] = top
                    best[top] = max(best.pop(ra, 0.0), best.pop(rb, 0.0), score)
    groups: dict[int, list[int]] = {}
    for n in range(len(pool)):
        top = root(n)
        if top in best:
            groups.setdefault(top, []).append(n)
    return _as_candidates(pool, sets, groups, best, used)


def _as_candidates(
    pool: list[Row], sets: list[set[str]], groups: dict[int, list[int]],
    best: dict[int, float], used: set[str],
) -> list[Candidate]:
    found = []
    for top, members in sorted(groups.items()):
        common = set.intersection(*(sets[m] for m in members))
        words = stems(pool[members[0]]["content"])
        shown = sorted(words[stem] for stem in common)[:8]
        score = round(best[top], 2)
        ids = [pool[m]["id"] for m in members]
        used.update(ids)
        found.append(Candidate(
            "near_duplicate", ids,
            f"near duplicates (similarity {score:.2f}; shared terms: {', '.join(shown)})",
            score, shown,
        ))
    return found


def _stale(index: Index, rows: list[Row], used: set[str]) -> list[Candidate]:
    flags = local_flags(index)
    found = []
    for row in rows:
        flag = flags.get(row["id"])
        if flag is None or row["id"] in used or row["status"] == "needs_review":
            continue
        used.add(row["id"])
        detail = flag[1] or flag[0]
        found.append(Candidate("stale", [row["id"]], f"anchor check: {detail}"))
    return found


def _doubtful(rows: list[Row], used: set[str]) -> list[Candidate]:
    found = []
    for row in rows:
        if row["id"] in used or row["status"] == "needs_review":
            continue
        state = json.loads(row["state"]) if row["state"] else {}
        against, support = state.get("contradictions", 0), state.get("reinforcements", 0)
        if against > support:
            used.add(row["id"])
            found.append(Candidate("contradicted", [row["id"]],
                                   f"contradicted {against}x, reinforced {support}x"))
        elif row["confidence"] < LOW_CONFIDENCE:
            used.add(row["id"])
            found.append(Candidate("low_confidence", [row["id"]],
                                   f"confidence {row['confidence']:.2f} is below"
                                   f" {LOW_CONFIDENCE}"))
    return found

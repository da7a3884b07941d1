"""Near-duplicate search at any size: exact term-set groups, MinHash with LSH banding, exact
Jaccard checks of the sets sharing a bucket, joined by union-find. docs/curation.md ("Near
duplicates at any size") gives the probabilities, the bounds and why the order is stable.
Pure Python: `candidates` streams the index rows and passes its word rules in."""

from __future__ import annotations

import hashlib
import itertools
from array import array
from dataclasses import dataclass, field
from typing import Callable, Iterable

NEAR_THRESHOLD = 0.6  # Jaccard similarity of the term sets
MIN_SHARED = 3  # fewer shared terms than this is chance, whatever the ratio
BANDS, ROWS = 16, 3  # LSH: 16 bands of 3 minima (48 hash functions)
MAX_SETS = 200_000  # distinct term sets kept (about 40 MB at most)
MAX_PEERS = 16  # exact checks of one set against earlier sets of one bucket
MAX_CHECKS = 300_000  # exact Jaccard checks in one search
MEMO_LIMIT = 500_000  # words whose term hash is remembered; cleared when full

StemFn = Callable[[bytes], "str | None"]  # a word -> its stem, None for no content word

# Bytes that end a word become spaces, ASCII letters lower case: one `translate` and one
# `split` (both C) cut a UTF-8 text into words about twice as fast as the `\w+` regex
# with casefold. Bytes of non-ASCII characters stay inside words.
_WORD_BYTES = frozenset(b"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_")
_SPLIT_TABLE = bytes(b if b in _WORD_BYTES or b >= 0x80 else 0x20 for b in range(256)).lower()

_PRIME = (1 << 61) - 1  # a Mersenne prime: (a*x + b) mod p is a universal family


def _coefficients(count: int) -> list[tuple[int, int]]:
    """Fixed (a, b) pairs for the hash family, derived from their number (no RNG state)."""
    out = []
    for n in range(count):
        raw = hashlib.blake2b(f"git-memory minhash {n}".encode(), digest_size=16).digest()
        a = int.from_bytes(raw[:8], "little") % (_PRIME - 1) + 1
        b = int.from_bytes(raw[8:], "little") % _PRIME
        out.append((a, b))
    return out


_COEFFS = _coefficients(BANDS * ROWS)


@dataclass
class Search:
    """What the search examined, and whether a bound stopped it early."""

    entries: int = 0  # visible entries read (those already in an exact duplicate excepted)
    term_sets: int = 0  # distinct term sets among them (with at least MIN_SHARED terms)
    pairs_checked: int = 0  # exact Jaccard checks of two different term sets
    crowded: int = 0  # times a set was not checked against every earlier set of a bucket
    unexamined: int = 0  # entries not compared at all (a new term set past MAX_SETS)
    stopped_early: list[str] = field(default_factory=list)

    def as_dict(self) -> dict[str, object]:
        return {
            "method": f"term-set groups + MinHash LSH ({BANDS} bands x {ROWS} rows),"
                      f" Jaccard >= {NEAR_THRESHOLD}",
            "entries_examined": self.entries, "distinct_term_sets": self.term_sets,
            "pairs_checked": self.pairs_checked, "crowded_buckets_skipped": self.crowded,
            "entries_not_compared": self.unexamined, "stopped_early": self.stopped_early,
        }


@dataclass
class Group:
    """Entries found to be near duplicates: their rowids oldest first, the best pair
    similarity, and the term hashes all of them share."""

    rowids: array[int]
    score: float
    common: set[int]


def term_hash(stem: str) -> int:
    """A stem's stable 32-bit hash (never 0: 0 marks a word that is no term)."""
    return int.from_bytes(hashlib.blake2b(stem.encode(), digest_size=4).digest(), "little") or 1


class _Words:
    """Word -> hash of its stem (0: not a content word), remembered up to MEMO_LIMIT."""

    def __init__(self, stem: StemFn) -> None:
        self.stem = stem
        self.memo: dict[bytes, int] = {}

    def terms(self, words: Iterable[bytes]) -> set[int | None]:
        """The term hashes of these words (0 among them when some word is no term)."""
        memo = self.memo
        if len(memo) > MEMO_LIMIT:
            memo.clear()
        for word in words:
            if word not in memo:
                stem = self.stem(word)
                memo[word] = 0 if stem is None else term_hash(stem)
        return set(map(memo.get, words))


def _bands(terms: set[int]) -> list[int]:
    """The LSH band keys of a term set: each band a hash of ROWS MinHash minima."""
    values = list(terms)
    mins = [min([(a * x + b) % _PRIME for x in values]) for a, b in _COEFFS]
    return [hash(tuple(mins[n:n + ROWS])) for n in range(0, BANDS * ROWS, ROWS)]


class _Clusters:
    """Union-find over term-set numbers; the root is always the cluster's oldest set."""

    def __init__(self) -> None:
        self.parent = array("i")
        self.best: dict[int, float] = {}

    def add(self) -> None:
        self.parent.append(len(self.parent))

    def root(self, n: int) -> int:
        parent = self.parent
        while parent[n] != n:
            parent[n] = parent[parent[n]]  # path halving keeps later look-ups short
            n = parent[n]
        return n

    def join(self, a: int, b: int, score: float) -> None:
        ra, rb = self.root(a), self.root(b)
        top, low = min(ra, rb), max(ra, rb)
        self.parent[low] = top
        self.best[top] = max(self.best.pop(ra, 0.0), self.best.pop(rb, 0.0), score)


class NearSearch:
    """One search over a stream of (rowid, text); `groups()` once the stream is read."""

    def __init__(self, *, stem: StemFn) -> None:
        self.words = _Words(stem)
        self.report = Search()
        self.seen: dict[int, int] = {}  # hash of the term set -> set number
        self.sets: list[bytes] = []
        self.counts = array("I")  # entries per set
        self.bands = [array("q") for _ in range(BANDS)]
        self.entry_rowid = array("q")
        self.entry_set = array("i")
        self.clusters = _Clusters()

    def read(self, rows: Iterable[tuple[int, bytes]]) -> None:
        # The hot loop of a large curate (every entry passes here): local names only,
        # and splitting, look-ups and the set's hash all done by C calls.
        report, seen, sets, counts = self.report, self.seen, self.sets, self.counts
        memo_get, table, count = self.words.memo.get, _SPLIT_TABLE, 0
        add_rowid, add_set = self.entry_rowid.append, self.entry_set.append
        for count, (rowid, text) in enumerate(rows, 1):  # noqa: B007 (count is read after)
            words = text.translate(table).split()
            terms = set(map(memo_get, words))
            if None in terms:  # words met for the first time
                terms = self.words.terms(words)
            terms.discard(0)
            if len(terms) < MIN_SHARED:
                continue  # too few words to share MIN_SHARED with anything
            # The frozenset's hash (C, stable: it mixes the ints' own hashes) keys the
            # exact groups; two different sets meeting on all 64 bits is not a real risk,
            # and the size must agree too.
            key = hash(frozenset(terms))
            number = seen.get(key)
            if number is None or len(sets[number]) != 4 * len(terms):
                if len(sets) >= MAX_SETS:
                    report.unexamined += 1
                    continue
                number = seen[key] = len(sets)
                self._new_set(terms)  # type: ignore[arg-type]  # None and 0 are gone
            counts[number] += 1
            add_rowid(rowid)
            add_set(number)
        report.entries = count
        if report.unexamined:
            report.stopped_early.append(
                f"kept the first {MAX_SETS:,} distinct term sets; {report.unexamined:,} later"
                " entries were not compared")
        report.term_sets = len(self.sets)
        self.seen = {}  # no longer needed: free it before the buckets are built

    def _new_set(self, terms: set[int]) -> None:
        self.sets.append(array("I", sorted(terms)).tobytes())
        self.counts.append(0)
        self.clusters.add()
        for band, key in zip(self.bands, _bands(terms)):
            band.append(key)

    def _similar(self, a: int, b: int) -> float:
        """Jaccard of two stored sets when they are near duplicates, else 0."""
        size_a, size_b = len(self.sets[a]) // 4, len(self.sets[b]) // 4
        if not NEAR_THRESHOLD * size_a <= size_b <= size_a / NEAR_THRESHOLD:
            return 0.0  # sizes this far apart cannot reach the threshold
        set_a = set(array("I", self.sets[a]))
        shared = len(set_a.intersection(array("I", self.sets[b])))
        score = shared / (size_a + size_b - shared)
        return score if shared >= MIN_SHARED and score >= NEAR_THRESHOLD else 0.0

    def _link(self) -> None:
        """Check the sets that share an LSH bucket, band by band, within the bounds."""
        report = self.report
        checked: set[tuple[int, int]] = set()
        for band in self.bands:
            order = sorted(range(len(band)), key=band.__getitem__)
            for _, bucket in itertools.groupby(order, key=band.__getitem__):
                members = list(bucket)
                if len(members) > 1:
                    self._bucket(sorted(members), checked)
                if report.pairs_checked >= MAX_CHECKS:
                    report.stopped_early.append(
                        f"stopped after {MAX_CHECKS:,} exact pair checks")
                    return
            del order
        if report.crowded:
            report.stopped_early.append(
                f"{report.crowded:,} time(s) a set in a crowded bucket was checked against"
                f" only {MAX_PEERS} of the earlier sets there")

    def _bucket(self, members: list[int], checked: set[tuple[int, int]]) -> None:
        """Each set against the earlier sets of its bucket: those of another cluster get an
        exact check, at most MAX_PEERS of them (and a look at no more than 4 x MAX_PEERS
        earlier sets), so a crowded bucket costs linear work, not quadratic."""
        clusters, report = self.clusters, self.report
        for place in range(1, len(members)):
            member, tries = members[place], 0
            earlier = members[max(0, place - 4 * MAX_PEERS):place]
            for other in earlier:
                if report.pairs_checked >= MAX_CHECKS:
                    return
                if tries >= MAX_PEERS:
                    report.crowded += 1
                    break
                if (other, member) in checked or clusters.root(other) == clusters.root(member):
                    continue
                checked.add((other, member))
                tries += 1
                report.pairs_checked += 1
                score = self._similar(other, member)
                if score:
                    clusters.join(other, member, score)
            if place > 4 * MAX_PEERS and tries < MAX_PEERS:
                report.crowded += 1  # sets further back in this bucket were not looked at

    def groups(self) -> list[Group]:
        """The clusters holding two entries or more, in the order of their oldest entry."""
        self._link()
        clusters, counts = self.clusters, self.counts
        size: dict[int, int] = {}
        for number in range(len(self.sets)):
            top = clusters.root(number)
            size[top] = size.get(top, 0) + counts[number]
        members: dict[int, array[int]] = {}
        sets: dict[int, set[int]] = {}
        for rowid, number in zip(self.entry_rowid, self.entry_set):
            top = clusters.root(number)
            if size[top] < 2:
                continue
            members.setdefault(top, array("q")).append(rowid)
            sets.setdefault(top, set()).add(number)
        found = []
        for top in sorted(members):
            common = set(array("I", self.sets[top]))
            for number in sets[top]:
                common.intersection_update(array("I", self.sets[number]))
            identical = any(counts[number] > 1 for number in sets[top])
            score = max(clusters.best.get(top, 0.0), 1.0 if identical else 0.0)
            found.append(Group(members[top], score, common))
        return found


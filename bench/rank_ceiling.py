#!/usr/bin/env python3
"""How far can a reranker of our candidates go? A learned upper bound for the ranking.

    python bench/rank_ceiling.py til [--semantic] [--folds 5]

Needs numpy, scikit-learn and lightgbm, which the product does not: run it from a
scratch virtual environment (`pip install -e . lightgbm scikit-learn`; `--semantic`
also needs the `[semantic]` extra). Nothing here ships.

For every query it takes stage one's best 100 entries (`index.search._candidates`; the
product keeps 50, a wider net shows more of what a reranker could reach),
computes the three features the shipped rescoring uses (`rerank.features`) and
about twenty more that describe the same query and entry in other ways (TF-IDF
cosine of the whole entry and of its lead, how much of the lead the query
covers, the densest window holding the query words, stop-word bigrams, a
Dirichlet language model, stage one's own BM25, length, where the first match
is, words found only in code or links, the words that set an entry apart from
the other candidates, and with `--semantic` WordLlama's cosine). Then it learns
to rank with them, LambdaMART (lightgbm) and a logistic regression, and scores
each fold of queries with a model trained on the other folds.

If a learner that sees all of this, fitted to `til` itself, cannot rank much
better than the shipped formula, the information is not in these signals and
more tuning will not find it. Figures in docs/recall.md.
"""

from __future__ import annotations

import argparse
import math
import sys
import tempfile
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

import rank_eval  # noqa: E402
from git_memory.index.rank import hits, rerank, search  # noqa: E402
from git_memory.index.entries import filters  # noqa: E402
from git_memory.index.rank.tokens import STOP_WORDS, query_words  # noqa: E402

CANDIDATES = 100
LEAD = 20  # words of the body counted as the lead, as in rerank.LEAD_WORDS
MU = 300.0  # Dirichlet prior of the language-model feature
Token = tuple[str, str, int]  # (term, column, offset)


def tokenize_all(conn) -> dict[int, list[Token]]:  # type: ignore[no-untyped-def]
    """Every entry split the way the rescoring splits it (rerank._parts), by the index's tokenizer."""
    hits.make_scratch(conn)
    conn.execute("BEGIN")
    conn.execute("INSERT INTO temp.gm_c(gm_c) VALUES ('delete-all')")
    for rowid, content, tags, kind, anchors in conn.execute(
        "SELECT rowid, content, tags, type, anchors FROM fts"
    ).fetchall():
        head, body, code, link = rerank._parts(content)
        conn.execute("INSERT INTO temp.gm_c(rowid, head, body, meta, code, link) VALUES (?,?,?,?,?,?)",
                     (rowid, head, body, f"{tags} {kind} {anchors}", code, link))
    conn.execute("COMMIT")
    out: dict[int, list[Token]] = defaultdict(list)
    for term, doc, col, offset in conn.execute("SELECT term, doc, col, offset FROM temp.gm_cv"):
        out[doc].append((term, col, offset))
    return out


class Corpus:
    """Per-entry token statistics the extra features need."""

    def __init__(self, conn, tokens: dict[int, list[Token]]) -> None:  # type: ignore[no-untyped-def]
        self.tokens = tokens
        self.df = dict(conn.execute("SELECT term, doc FROM temp.gm_mv"))
        self.total = conn.execute("SELECT max(rowid) FROM records").fetchone()[0] or 1
        self.stop = {self.stem(conn, w) for w in STOP_WORDS}
        self.cf: dict[str, float] = defaultdict(float)
        for toks in tokens.values():
            for term, _, _ in toks:
                self.cf[term] += 1
        self.size = sum(self.cf.values())
        self.stream = {d: self._stream(t) for d, t in tokens.items()}
        self.vec = {d: self._vector(t, None) for d, t in tokens.items()}
        self.lead = {d: self._vector(t, LEAD) for d, t in tokens.items()}

    @staticmethod
    def stem(conn, word: str) -> str:  # type: ignore[no-untyped-def]
        conn.execute("DELETE FROM temp.gm_q")
        conn.execute("INSERT INTO temp.gm_q(rowid, x) VALUES (1, ?)", (word,))
        row = conn.execute("SELECT term FROM temp.gm_qv").fetchone()
        return row[0] if row else word

    def idf(self, term: str) -> float:
        n = self.df.get(term, 0)
        return math.log(1 + (self.total - n + 0.5) / (n + 0.5)) if n else 0.0

    @staticmethod
    def _stream(toks: list[Token]) -> list[str]:
        head = sorted((o, t) for t, c, o in toks if c == "head")
        body = sorted((o, t) for t, c, o in toks if c == "body")
        return [t for _, t in head] + [t for _, t in body]

    def _vector(self, toks: list[Token], lead: int | None) -> dict[str, float]:
        tf: dict[str, float] = defaultdict(float)
        for term, col, offset in toks:
            if lead is not None and not (col == "head" or (col == "body" and offset < lead)):
                continue
            if term not in self.stop and self.df.get(term):
                tf[term] += 1.0
        return {t: (1 + math.log(v)) * self.idf(t) for t, v in tf.items()}


def _norm(vector: dict[str, float]) -> float:
    return math.sqrt(sum(x * x for x in vector.values())) or 1.0


def _densest(stream: list[str], need: set[str]) -> float:
    """Words wanted / length of the shortest window of the entry that holds all it has of them."""
    need = need & set(stream)
    if not need:
        return 0.0
    counts: dict[str, int] = defaultdict(int)
    have = left = 0
    best = len(stream) + 1
    for right, term in enumerate(stream):
        if term in need:
            counts[term] += 1
            have += counts[term] == 1
        while have == len(need):
            best = min(best, right - left + 1)
            gone = stream[left]
            if gone in need:
                counts[gone] -= 1
                have -= counts[gone] == 0
            left += 1
    return len(need) / best


NAMES = ["bm25", "coverage", "proximity", "stage1", "cos_entry", "cos_lead", "lead_covered",
         "log_length", "head_share", "lead_share", "first_match", "code_only", "link_only",
         "densest", "bigrams", "stop_share", "matched", "query_words", "dirichlet", "apart"]


def query_rows(conn, corpus: Corpus, query: str, right: str) -> list[tuple[int, list[float]]]:  # type: ignore[no-untyped-def]
    """(label, features) for each candidate of one query."""
    where, params = filters([], [], False, None)
    rows, bm25 = search._candidates(conn, query_words(query), where, params, False, CANDIDATES)
    if not rows:
        return []
    every = query_words(query, keep_stop_words=True)
    shipped = rerank.features(conn, every, rows, STOP_WORDS)
    stems, stop = rerank._query_stems(conn, every, STOP_WORDS)
    words = {s: corpus.idf(s) for s in stems if s not in stop and corpus.idf(s)}
    qnorm = _norm(words)
    weight = sum(words.values()) or 1.0
    pairs = list(zip(stems, stems[1:]))
    stops = [s for s in stems if s in stop]
    best1 = max(bm25.values()) or 1.0
    docs = [row["rowid"] for row in rows]
    apart = _apart(corpus, docs, set(words))
    out = []
    for (row, (b, cov, prox)), doc in zip(shipped, docs):
        toks = corpus.tokens.get(doc, [])
        places: dict[str, list[tuple[str, int]]] = defaultdict(list)
        for term, col, offset in toks:
            places[term].append((col, offset))
        stream = corpus.stream.get(doc, [])
        vec, lead = corpus.vec.get(doc, {}), corpus.lead.get(doc, {})
        length = len(toks) or 1
        share = _sharer(words, places, weight)
        first = next((i for i, t in enumerate(stream) if t in words), len(stream))
        bigrams = set(zip(stream, stream[1:]))
        dirichlet = sum(
            math.log((len(places.get(s, [])) + MU * corpus.cf[s] / corpus.size) / (length + MU))
            for s in words
        )
        features = [
            b, cov, prox, bm25.get(doc, 0.0) / best1,
            sum(w * vec.get(s, 0.0) for s, w in words.items()) / (qnorm * _norm(vec)),
            sum(w * lead.get(s, 0.0) for s, w in words.items()) / (qnorm * _norm(lead)),
            sum(v for t, v in lead.items() if t in words) / (sum(lead.values()) or 1.0),
            math.log(1 + length),
            share(lambda p: any(c == "head" for c, _ in p)),
            share(lambda p: any(c == "head" or (c == "body" and o < LEAD) for c, o in p)),
            math.log(1 + first),
            share(lambda p: all(c == "code" for c, _ in p)),
            share(lambda p: all(c == "link" for c, _ in p)),
            _densest(stream, set(words)),
            sum(1 for p in pairs if p in bigrams) / (len(pairs) or 1),
            sum(1 for s in stops if s in places) / (len(stops) or 1),
            len([s for s in words if s in places]) / (len(words) or 1),
            float(len(words)),
            dirichlet,
            apart.get(doc, 0.0),
        ]
        out.append((int(row["key"] == right), features))
    return out


def _sharer(words: dict[str, float], places: dict[str, list[tuple[str, int]]], weight: float):  # type: ignore[no-untyped-def]
    """share(test): the IDF-weighted share of query words whose places pass `test`."""
    def share(test) -> float:  # type: ignore[no-untyped-def]
        return sum(w for s, w in words.items() if places.get(s) and test(places[s])) / weight
    return share


def _apart(corpus: Corpus, docs: list[int], words: set[str]) -> dict[int, float]:
    """Share of each candidate's eight most distinctive words (against the other candidates) in the query."""
    df: dict[str, int] = defaultdict(int)
    for doc in docs:
        for term in corpus.vec.get(doc, {}):
            df[term] += 1
    out = {}
    for doc in docs:
        vec = corpus.vec.get(doc, {})
        top = sorted(((v * math.log(1 + len(docs) / df[t]), t) for t, v in vec.items()), reverse=True)[:8]
        out[doc] = sum(v for v, t in top if t in words) / (sum(v for v, _ in top) or 1.0)
    return out


def _mrr(groups: list[tuple[list[int], list[float]]]) -> float:
    total = 0.0
    for labels, scores in groups:
        order = sorted(range(len(scores)), key=lambda i: -scores[i])  # stable: stage-one order on ties
        for rank, i in enumerate(order[:10], 1):
            if labels[i]:
                total += 1 / rank
                break
    return total / len(groups)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("dataset")
    ap.add_argument("--semantic", action="store_true", help="add WordLlama's cosine as a feature")
    ap.add_argument("--folds", type=int, default=5)
    args = ap.parse_args()
    import numpy as np
    from lightgbm import LGBMRanker
    from sklearn.linear_model import LogisticRegression

    items = rank_eval.load(args.dataset)
    queries = [item for item in items if item["query"]]
    names = NAMES + (["semantic"] if args.semantic else [])
    with tempfile.TemporaryDirectory() as tmp:
        index = rank_eval.build(items, Path(tmp))
        conn = index.conn
        corpus = Corpus(conn, tokenize_all(conn))
        data = [query_rows(conn, corpus, q["query"], q["id"]) for q in queries]
        if args.semantic:
            _add_semantic(conn, items, queries, data)
    # A query whose entry is not among the candidates scores 0 whatever the model does.
    groups = [(np.array([lab for lab, _ in d]), np.array([f for _, f in d])) for d in data]
    shipped = _mrr([(list(y), [rerank.combine((x[0], x[1], x[2])) for x in X]) for y, X in groups])
    order = np.random.RandomState(0).permutation(len(groups))
    folds = np.array_split(order, args.folds)
    lambdamart = logistic = 0.0
    for k, test in enumerate(folds):
        train = [i for j, f in enumerate(folds) if j != k for i in f if len(groups[i][0])]
        X = np.vstack([groups[i][1] for i in train])
        y = np.concatenate([groups[i][0] for i in train])
        ranker = LGBMRanker(n_estimators=300, learning_rate=0.05, num_leaves=15, verbose=-1)
        ranker.fit(X, y, group=[len(groups[i][0]) for i in train])
        mean, spread = X.mean(0), X.std(0) + 1e-9
        linear = LogisticRegression(max_iter=2000, class_weight="balanced").fit((X - mean) / spread, y)
        part = [groups[i] for i in test]
        lambdamart += _mrr([(list(y), list(ranker.predict(X)) if len(y) else []) for y, X in part]) * len(part)
        logistic += _mrr([(list(y), list(linear.decision_function((X - mean) / spread)) if len(y) else [])
                          for y, X in part]) * len(part)
    n = len(groups)
    print(f"features: {', '.join(names)}")
    found = sum(1 for y, _ in groups if len(y) and y.max())
    print(f"right entry among the {CANDIDATES} candidates: {found} of {n} (a perfect reranker: {found / n:.3f})")
    print(f"shipped formula       MRR@10 {shipped:.3f}")
    print(f"logistic regression   MRR@10 {logistic / n:.3f} ({args.folds}-fold, trained on the other folds)")
    print(f"LambdaMART (lightgbm) MRR@10 {lambdamart / n:.3f} ({args.folds}-fold, trained on the other folds)")
    return 0


def _add_semantic(conn, items, queries, data) -> None:  # type: ignore[no-untyped-def]
    from git_memory.index.rank import semantic

    vectors = semantic.embed([item["doc"] for item in items])  # rowid = position + 1 (rank_eval.build)
    asked = semantic.embed([q["query"] for q in queries])
    where, params = filters([], [], False, None)
    for qi, q in enumerate(queries):
        rows, _ = search._candidates(conn, query_words(q["query"]), where, params, False, CANDIDATES)
        for (_, features), row in zip(data[qi], rows):
            features.append(float(vectors[row["rowid"] - 1] @ asked[qi]))


if __name__ == "__main__":
    sys.exit(main())

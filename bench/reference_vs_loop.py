"""Benchmark: filterproof's reference search against a pure-Python per-document TF-IDF loop, at 10k documents.

The loop restates the retriever of the authorized-recall seed package
(``TfIdfIndex.rank``): for every query it walks every document, recomputes that
document's TF-IDF weights from its term counts and sums the products with the
query's weights. Our reference search uses the same cosine (``TfidfSpace``
reproduces that index's weighting exactly, see ``filterproof.embedding.spaces``), held
as one float32 matrix, so a query is one matrix-vector product and a partial sort.

Both sides answer the same queries in one run; the script checks that their
top-K lists agree, then reports the per-query time of each (mean and median; our
side is timed over ``--repeat`` passes, the loop once) and their ratio. Index
construction, including the reference adapter's lazily built search matrix, is
timed separately and not part of the ratio.

    .venv/bin/python bench/reference_vs_loop.py --docs 10000 --json bench/results/reference_vs_loop.json
"""

from __future__ import annotations

import argparse
import json
import math
import os
import platform
import re
import statistics
import time
from collections import Counter
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from filterproof.adapters import open_backend
from filterproof.adapters.base import records_of
from filterproof.embedding.spaces import SvdSpace, TfidfSpace
from filterproof.scale.generator import GeneratorConfig, generate

TOKEN = re.compile(r"[a-z0-9]+")


class PerDocumentLoop:
    """The baseline: term counts per document, weights rebuilt for every document on every query."""

    def __init__(self, texts: Mapping[str, str]) -> None:
        self.counts = {doc: Counter(TOKEN.findall(text.lower())) for doc, text in texts.items()}
        frequency: Counter[str] = Counter()
        for counts in self.counts.values():
            frequency.update(counts.keys())
        total = len(self.counts) or 1
        self.idf = {term: math.log((total + 1) / (df + 1)) + 1.0 for term, df in frequency.items()}

    def weights(self, counts: Mapping[str, int]) -> dict[str, float]:
        raw = {term: (1 + math.log(c)) * self.idf.get(term, 1.0) for term, c in counts.items()}
        length = math.sqrt(sum(v * v for v in raw.values())) or 1.0
        return {term: v / length for term, v in raw.items()}

    def rank(self, query: str, k: int) -> list[tuple[str, float]]:
        q = self.weights(Counter(TOKEN.findall(query.lower())))
        scored = []
        for doc, counts in self.counts.items():
            d = self.weights(counts)
            score = sum(w * d.get(term, 0.0) for term, w in q.items())
            if score > 0:
                scored.append((doc, score))
        scored.sort(key=lambda pair: (-pair[1], pair[0]))
        return scored[:k]


def reference_index(space: TfidfSpace | SvdSpace, ids: list[str], metadata: list[dict]) -> object:
    """The reference adapter over the space's vectors, with its search matrix built (one warm-up query).

    The adapter builds its matrix lazily on the first search; that is index
    construction, so it is paid here and not charged to the first timed query.
    """
    adapter = open_backend("reference")
    vectors = space.documents()
    adapter.reset(vectors.shape[1])
    adapter.upsert(records_of(ids, vectors, metadata))
    adapter.search(vectors[0], 1, None)
    return adapter


def timed_queries(search: Callable[[Any, int], Any], queries: list, k: int,
                  repeat: int = 1) -> tuple[list, dict[str, float]]:
    """Results, and per-query milliseconds (mean and median over every timed call)."""
    times, results = [], []
    for _ in range(repeat):
        results = []
        for q in queries:
            start = time.perf_counter()
            results.append(search(q, k))
            times.append(1000 * (time.perf_counter() - start))
    return results, {"mean_ms": statistics.fmean(times), "median_ms": statistics.median(times)}


def agreement(loop: list[list[tuple[str, float]]], ours: list[list], k: int) -> dict[str, float]:
    """Share of queries whose top-K agree: same scores within 1e-5 (float32 vs float64), and same ids."""
    scores = ids = 0
    for a, b in zip(loop, ours, strict=True):
        scores += len(a[:k]) == len(b[:k]) and all(abs(x - h.score) < 1e-5 for (_, x), h in zip(a, b, strict=False))
        ids += [d for d, _ in a[:k]] == [h.id for h in b[:k]]
    return {"scores": scores / len(loop), "ids": ids / len(loop)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--docs", type=int, default=10_000)
    parser.add_argument("--queries", type=int, default=90, help="queries timed on each side")
    parser.add_argument("--k", type=int, default=10)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--repeat", type=int, default=5, help="timed passes over the queries on our side")
    parser.add_argument("--json", type=Path)
    args = parser.parse_args()

    corpus = generate(GeneratorConfig(documents=args.docs, seed=args.seed, cases_per_level=10))
    fx = corpus.fixture
    texts = {d.id: d.text for d in fx.documents}
    queries = [c.query for c in fx.cases][: args.queries]
    ids, metadata = [d.id for d in fx.documents], [dict(d.metadata) for d in fx.documents]

    start = time.perf_counter()
    loop = PerDocumentLoop(texts)
    loop_build = time.perf_counter() - start
    loop_results, loop_ms = timed_queries(loop.rank, queries, args.k)

    start = time.perf_counter()
    space = TfidfSpace(list(texts.values()))
    adapter = reference_index(space, ids, metadata)
    ref_build = time.perf_counter() - start
    qv = list(space.queries(queries))
    ref_results, ref_ms = timed_queries(lambda v, k: adapter.search(v, k, None), qv, args.k, args.repeat)

    start = time.perf_counter()
    dense = SvdSpace(list(texts.values()), dim=128, seed=0)
    dense_adapter = reference_index(dense, ids, metadata)
    dense_build = time.perf_counter() - start
    dv = list(dense.queries(queries))
    _, dense_ms = timed_queries(lambda v, k: dense_adapter.search(v, k, None), dv, args.k, args.repeat)

    result = {
        "documents": args.docs, "queries": len(queries), "k": args.k, "tfidf_dim": space.dim,
        "loop": {**loop_ms, "build_s": loop_build},
        "reference_tfidf": {**ref_ms, "build_s": ref_build, "repeat": args.repeat},
        "reference_svd128": {**dense_ms, "build_s": dense_build, "repeat": args.repeat},
        "ratio_tfidf": loop_ms["mean_ms"] / ref_ms["mean_ms"],
        "ratio_tfidf_median": loop_ms["median_ms"] / ref_ms["median_ms"],
        "ratio_svd128": loop_ms["mean_ms"] / dense_ms["mean_ms"],
        "ratio_svd128_median": loop_ms["median_ms"] / dense_ms["median_ms"],
        "top_k_agreement_tfidf": agreement(loop_results, ref_results, args.k),
        "target_ratio": 100, "cpus": os.cpu_count(), "python": platform.python_version(),
        "load_average": os.getloadavg(),
    }
    print(json.dumps(result, indent=1))
    if args.json:
        args.json.write_text(json.dumps(result, indent=1) + "\n")


if __name__ == "__main__":
    main()

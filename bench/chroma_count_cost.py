"""What counting the collection on every query costs the Chroma adapter: ``count()`` against a whole filtered search.

    .venv/bin/python bench/chroma_count_cost.py > bench/results/chroma_count_cost.txt

The adapter clamped ``n_results`` to the collection's count, cached until its own next write; a count cached by
one client cut its answers once another client published (the two-clients check). Counting on every query would
fix that; this measured what it costs: at 1,000 and 5,000 documents of the scale tier's corpus, embedded Chroma,
the median of ``REPEATS`` calls of ``count()`` and of the adapter's filtered ``search`` at K=10 (measured with the
count in each search). Chroma 1.5 takes an ``n_results`` past what it holds, so the adapter now asks k and counts
nothing.
"""

from __future__ import annotations

import functools

import numpy as np
from timing import median_ms

from filterproof.adapters import open_backend
from filterproof.adapters.base import Record
from filterproof.conformance.worlds import scale_corpus

REPEATS = 200


def main() -> None:
    import chromadb

    print(f"# chromadb {chromadb.__version__}; median of {REPEATS} calls each")
    print("documents  count() ms  search ms  count's share")
    for n in (1_000, 5_000):
        corpus = scale_corpus.build(n)
        store = open_backend("chroma")
        try:
            store.reset(corpus.vectors.shape[1])
            store.upsert([Record(i, v, m) for i, v, m in zip(corpus.ids, corpus.vectors, corpus.metadata,
                                                              strict=True)])
            where, query = corpus.wheres[0], np.asarray(corpus.queries[0], dtype=np.float32)
            count = median_ms(store._open().count, REPEATS)  # type: ignore[attr-defined]
            search = median_ms(functools.partial(store.search, query, 10, where), REPEATS)
            print(f"{n:>9,}  {count:>9.3f}  {search:>9.3f}  {count / search:>12.1%}")
        finally:
            store.close()


if __name__ == "__main__":
    main()

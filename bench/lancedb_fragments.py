"""What LanceDB's commit per call costs later searches: the scale tier's changes applied one ``update_metadata``
at a time against one ``update_metadata_batch``, and a filtered search timed before and after each.

    .venv/bin/python bench/lancedb_fragments.py > bench/results/lancedb_fragments.txt

The corpus, the changes and the filter are the conformance suite's scale tier's (5,000 documents, the grants and
revokes near every query); the search is its first query at K=10, timed as the median of 20.
"""

from __future__ import annotations

import functools
import time

from timing import median_ms

from filterproof.adapters.base import update_many
from filterproof.adapters.lancedb.store import LanceDBAdapter
from filterproof.conformance.checks.scale_tier import index_corpus
from filterproof.conformance.worlds import scale_changes, scale_corpus

REPEATS = 20


def main() -> None:
    import lancedb

    corpus = scale_corpus.build(5_000)
    after = scale_changes.changed(corpus)
    print(f"# lancedb {lancedb.__version__}; {len(corpus.ids)} documents, {len(after.updates)} updates "
          f"(the scale tier's grants and revokes); median of {REPEATS} filtered searches at K=10")
    for label, batched in (("one update_metadata per document", False), ("one update_metadata_batch", True)):
        store = LanceDBAdapter({})
        index_corpus(store, corpus)
        search = functools.partial(store.search, after.corpus.queries[0], 10, after.corpus.wheres[0])
        before = median_ms(search, REPEATS)
        start = time.perf_counter()
        updates = {corpus.ids[row]: meta for row, meta in after.updates.items()}
        if batched:
            update_many(store, updates)
        else:
            for doc, meta in updates.items():
                store.update_metadata(doc, meta)
        writing = time.perf_counter() - start
        fragments = len(store.table.to_lance().get_fragments())
        print(f"{label:34s} writes {writing:6.2f} s   search before {before:6.1f} ms   "
              f"after {median_ms(search, REPEATS):6.1f} ms   fragments after {fragments}")
        store.close()


if __name__ == "__main__":
    main()

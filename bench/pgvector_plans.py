"""Which plan PostgreSQL picks per selectivity level for ``pgvector:index=hnsw`` (the planner decides), from EXPLAIN.

    .venv/bin/python bench/pgvector_plans.py [DOCUMENTS]     # default 20000: the sweep's corpus (seed 0)

Per level: how many of its cases are answered through the HNSW index (filtered after
the scan: may come back short), through the ``tenant`` btree index or a sequential scan
(exact). The short results of ``iterative_scan=off`` are exactly the HNSW plans.
"""

from __future__ import annotations

import collections
import sys

from filterproof.adapters import open_backend, records_of
from filterproof.evaluation.truth import prepare
from filterproof.scale.generator import GeneratorConfig, case_level, generate

BATCH = 2048


def plan_kind(plan: str) -> str:
    if "_embedding" in plan:
        return "hnsw"
    return "tenant btree" if "_tenant" in plan else "seq scan"


def main(documents: int) -> None:
    data = prepare(generate(GeneratorConfig(documents=documents, seed=0)).fixture, depth=10, embedding="svd")
    store = open_backend("pgvector:index=hnsw")
    try:
        store.reset(data.dim)
        docs = data.fixture.documents
        for start in range(0, len(docs), BATCH):
            part = docs[start:start + BATCH]
            store.upsert(records_of([d.id for d in part], data.doc_vectors[start:start + BATCH],
                                    [d.metadata for d in part]))
        store.optimize()  # type: ignore[attr-defined]
        plans: dict[float | None, collections.Counter[str]] = collections.defaultdict(collections.Counter)
        for case, query, where in zip(data.fixture.cases, data.query_vectors, data.filters, strict=True):
            plans[case_level(case.id)][plan_kind(store.explain(query, 10, where).detail)] += 1  # type: ignore[attr-defined]
    finally:
        store.close()
    print(f"{documents} documents, pgvector:index=hnsw, plans per selectivity level (cases):")
    for level, kinds in sorted(plans.items(), key=lambda item: item[0] or 0.0):
        print(f"  {level:.2%}: " + ", ".join(f"{kind} {count}" for kind, count in sorted(kinds.items())))


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 20_000)

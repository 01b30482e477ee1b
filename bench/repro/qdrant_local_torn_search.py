"""Reproducer: qdrant-client's local mode answers a search from no single state of the collection.

Two revisions of one document (points 1 and 2); the writer moves the current one back and forth in two writes,
in the order that fails closed: first both lose the flag (``set_payload`` by filter), then the new one gets it.
Three threads of the same client search meanwhile for the current revision. Every state the writes leave holds
at most one current revision; a search that reads point 1 before the first write and point 2 after the second
returns both. Exit 1 while it reproduces (``both``: answers holding both revisions), 0 otherwise.

    python bench/repro/qdrant_local_torn_search.py
"""

from __future__ import annotations

import sys
import threading
from importlib.metadata import version

from qdrant_client import QdrantClient, models

WRITES = 400


def main() -> int:
    sys.setswitchinterval(1e-6)
    client = QdrantClient(":memory:")
    client.create_collection("docs", vectors_config=models.VectorParams(size=4, distance=models.Distance.COSINE))
    client.upsert("docs", [models.PointStruct(id=n, vector=[1.0, 0.5, 0.25, float(n)],
                                              payload={"doc": "p", "revision": n, "current": n == 1})
                           for n in (1, 2)])
    current = models.Filter(must=[models.FieldCondition(key="current", match=models.MatchValue(value=True))])
    both, answers, stop = [], [0], threading.Event()

    def search() -> None:
        while not stop.is_set():
            hits = client.query_points("docs", query=[1.0, 0.5, 0.25, 1.5], query_filter=current, limit=5).points
            answers[0] += 1
            if len(hits) > 1:
                both.append(sorted(p.id for p in hits))

    readers = [threading.Thread(target=search) for _ in range(3)]
    for reader in readers:
        reader.start()
    for n in range(WRITES):
        new = 2 if n % 2 == 0 else 1
        document = models.Filter(must=[models.FieldCondition(key="doc", match=models.MatchValue(value="p"))])
        client.set_payload("docs", {"current": False}, points=models.FilterSelector(filter=document))
        revision = models.Filter(must=[models.FieldCondition(key="revision", match=models.MatchValue(value=new))])
        client.set_payload("docs", {"current": True}, points=models.FilterSelector(filter=revision))
    stop.set()
    for reader in readers:
        reader.join()
    print(f"qdrant-client {version('qdrant-client')} local mode: {len(both)} of {answers[0]} answers during "
          f"{WRITES} moves held both revisions as current (no state held both): {both[:1]}")
    return 1 if both else 0


if __name__ == "__main__":
    sys.exit(main())

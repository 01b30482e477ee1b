"""Chroma in one process: queries in threads while the main thread writes; count the queries that raise.

Standalone (chromadb and numpy only). One EphemeralClient collection of 1,000 documents;
4 threads query continuously with a metadata filter while the main thread adds,
updates and deletes documents, 4 writes a second for 10 s, as filterproof freshness does.
Run: python bench/repro/chroma_concurrent_query.py
"""

from __future__ import annotations

import collections
import threading
import time

import chromadb
import numpy as np
from chromadb.config import Settings

rng = np.random.default_rng(0)
client = chromadb.EphemeralClient(settings=Settings(anonymized_telemetry=False))
collection = client.create_collection("docs", embedding_function=None, configuration={"hnsw": {"space": "cosine"}})
collection.add(ids=[f"d{n}" for n in range(1000)], embeddings=rng.standard_normal((1000, 32)).tolist(),
               metadatas=[{"group": f"g{n % 10}"} for n in range(1000)])
errors: collections.Counter[str] = collections.Counter()
queries = [0]
stop = threading.Event()


def read(seed: int) -> None:
    local = np.random.default_rng(seed)
    while not stop.is_set():
        try:
            collection.query(query_embeddings=local.standard_normal((1, 32)).tolist(), n_results=101,
                             where={"group": f"g{local.integers(10)}"})
        except Exception as error:
            errors[f"{type(error).__name__}: {error}"] += 1
        queries[0] += 1


threads = [threading.Thread(target=read, args=(n,)) for n in range(4)]
for t in threads:
    t.start()
for n in range(40):
    kind = n % 4
    if kind == 0:
        collection.update(ids=[f"d{n}"], metadatas=[{"group": "revoked"}])
    elif kind == 1:
        collection.add(ids=[f"new{n}"], embeddings=rng.standard_normal((1, 32)).tolist(), metadatas=[{"group": "g1"}])
    elif kind == 2:
        collection.delete(ids=[f"d{n}"])
    else:
        collection.upsert(ids=[f"d{n}"], embeddings=rng.standard_normal((1, 32)).tolist(),
                          metadatas=[{"group": "g2"}])
    time.sleep(0.25)
stop.set()
for t in threads:
    t.join()
print(f"chromadb {chromadb.__version__}: {queries[0]} queries in 4 threads during 40 writes; raised: "
      f"{sum(errors.values())}")
for message, count in errors.most_common():
    print(f"  {count} x {message}")

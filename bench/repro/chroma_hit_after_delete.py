"""Reproducer: chromadb returns a hit deleted while the query ran, with no metadata and no document, or fails.

Six documents of one tenant; the writer deletes one and adds it back, over and over, while three threads of the
same client query with a filter on the tenant and ask for metadata. A hit without its metadata is a document the
query found and the delete removed before the query read its record: LlamaIndex's and Haystack's Chroma stores
hand it on as a node or a document with empty metadata (filterproof's bridges then cannot say which document it
was). Or the query raises ``InternalError: Error finding id``. Exit 1 while either reproduces, 0 otherwise.

    python bench/repro/chroma_hit_after_delete.py
"""

from __future__ import annotations

import sys
import threading

import chromadb
import chromadb.errors
import numpy as np

ROUNDS = 300


def main() -> int:
    sys.setswitchinterval(1e-6)
    rng = np.random.default_rng(0)
    collection = chromadb.EphemeralClient().create_collection("race", metadata={"hnsw:space": "cosine"})
    vectors = {f"d{n}": rng.random(8).tolist() for n in range(6)}
    collection.add(ids=list(vectors), embeddings=list(vectors.values()),
                   metadatas=[{"fp_id": i, "tenant": "acme"} for i in vectors])
    bare, failed, answers, stop = [], [], [0], threading.Event()

    def query() -> None:
        asked = rng.random(8).tolist()
        while not stop.is_set():
            try:
                found = collection.query(query_embeddings=[asked], n_results=7, where={"tenant": "acme"},
                                         include=["metadatas", "distances"])
            except chromadb.errors.InternalError as error:
                failed.append(str(error))
                continue
            answers[0] += 1
            bare.extend((i, m) for i, m in zip(found["ids"][0], found["metadatas"][0], strict=True) if not m)

    readers = [threading.Thread(target=query) for _ in range(3)]
    for reader in readers:
        reader.start()
    for n in range(ROUNDS):
        if n % 2:
            collection.add(ids=["d5"], embeddings=[vectors["d5"]], metadatas=[{"fp_id": "d5", "tenant": "acme"}])
        else:
            collection.delete(ids=["d5"])
    stop.set()
    for reader in readers:
        reader.join()
    print(f"chromadb {chromadb.__version__}: while d5 was deleted and added {ROUNDS} times, {len(bare)} hits of "
          f"{answers[0]} answers came back without metadata ({bare[:1]}), and {len(failed)} queries raised "
          f"({failed[:1]})")
    return 1 if bare or failed else 0


if __name__ == "__main__":
    sys.exit(main())

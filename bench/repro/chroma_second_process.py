"""Chroma PersistentClient: what a second process reading the same path sees of a live writer's changes.

Standalone (chromadb only). The writer (this process) keeps its client open, as a
permissions job does; a reader process opened the same path before the changes and
queries after each one. Run: python bench/repro/chroma_second_process.py
"""

from __future__ import annotations

import multiprocessing as mp
import sys
import tempfile

import chromadb
from chromadb.config import Settings

SETTINGS = Settings(anonymized_telemetry=False)


def reader(path: str, asks: mp.Queue, answers: mp.Queue) -> None:
    collection = chromadb.PersistentClient(path=path, settings=SETTINGS).get_collection("docs")
    while (step := asks.get()) is not None:
        try:
            unfiltered = collection.query(query_embeddings=[[1.0, 0.0]], n_results=10)["ids"][0]
            filtered = collection.query(query_embeddings=[[1.0, 0.0]], n_results=10, where={"group": "eng"})["ids"][0]
            answers.put((step, sorted(unfiltered), sorted(filtered), collection.count()))
        except Exception as error:
            answers.put((step, f"{type(error).__name__}: {error}", "", collection.count()))


def main() -> None:
    path = tempfile.mkdtemp(prefix="chroma-two-processes-")
    collection = chromadb.PersistentClient(path=path, settings=SETTINGS).create_collection(
        "docs", embedding_function=None, configuration={"hnsw": {"space": "cosine"}})
    collection.add(ids=["a", "b"], embeddings=[[1.0, 0.0], [0.9, 0.1]], metadatas=[{"group": "eng"}] * 2)
    ctx = mp.get_context("spawn")
    asks, answers = ctx.Queue(), ctx.Queue()
    process = ctx.Process(target=reader, args=(path, asks, answers))
    process.start()
    steps = [("as written", lambda: None),
             ("revoke a (group eng -> sec)", lambda: collection.update(ids=["a"], metadatas=[{"group": "sec"}])),
             ("delete b", lambda: collection.delete(ids=["b"])),
             ("add c (group eng)", lambda: collection.add(ids=["c"], embeddings=[[0.8, 0.2]],
                                                           metadatas=[{"group": "eng"}]))]
    print(f"chromadb {chromadb.__version__}, python {sys.version.split()[0]}; the writer's view, then the reader's")
    for label, change in steps:
        change()
        asks.put(label)
        _, unfiltered, filtered, count = answers.get(timeout=60)
        mine = sorted(collection.query(query_embeddings=[[1.0, 0.0]], n_results=10)["ids"][0])
        print(f"{label:28} writer unfiltered {mine} | reader unfiltered {unfiltered}, filtered {filtered}, "
              f"count {count}")
    asks.put(None)
    process.join(30)


if __name__ == "__main__":
    main()

"""Chroma alone (no filterproof): a filter over a principal's groups, and a document holding many groups.

    python bench/repro/chroma_many_groups.py principal 500 990 5000     # an $or of N $contains clauses
    python bench/repro/chroma_many_groups.py principal 10000            # Chroma 1.5.9: segmentation fault
    python bench/repro/chroma_many_groups.py document 10000             # one document with N list values

``principal N`` asks with ``$or`` over N ``$contains`` clauses, as an access filter for a user in N groups would.
``document N`` adds one document whose list metadata holds N values, then tries count, query and get, also after
deleting that document and reopening the PersistentClient. Each case runs in a fresh temporary directory.
"""

from __future__ import annotations

import sys
import tempfile

import chromadb


def attempt(what: str, call) -> None:  # type: ignore[no-untyped-def]
    try:
        call()
        print(f"  {what}: ok")
    except Exception as error:  # the point is to see which error each call gives
        print(f"  {what}: {type(error).__name__}: {str(error)[:160]}")


def principal(n: int, path: str) -> None:
    collection = chromadb.PersistentClient(path).create_collection("many-groups")
    collection.add(ids=["doc"], embeddings=[[1.0, 0.0]], metadatas=[{"groups": ["g-last"], "tenant": "acme"}])
    clauses = [{"groups": {"$contains": f"g-{i}"}} for i in range(n - 1)] + [{"groups": {"$contains": "g-last"}}]
    where = {"$and": [{"tenant": {"$eq": "acme"}}, {"$or": clauses}]}
    print(f"principal in {n} groups (chromadb {chromadb.__version__}):", flush=True)
    attempt("query", lambda: print("    ids:", collection.query(query_embeddings=[[1.0, 0.0]], n_results=1,
                                                                 where=where)["ids"]))


def document(n: int, path: str) -> None:
    collection = chromadb.PersistentClient(path).create_collection("many-groups")
    collection.add(ids=["small"], embeddings=[[1.0, 0.0]], metadatas=[{"groups": ["a"]}])
    print(f"a document in {n} groups (chromadb {chromadb.__version__}):", flush=True)
    attempt("add the big document", lambda: collection.add(ids=["big"], embeddings=[[0.0, 1.0]],
                                                           metadatas=[{"groups": [f"g-{i}" for i in range(n)]}]))
    attempt("count", collection.count)
    attempt("query", lambda: collection.query(query_embeddings=[[1.0, 0.0]], n_results=1))
    attempt("add another small one", lambda: collection.add(ids=["later"], embeddings=[[1.0, 1.0]],
                                                            metadatas=[{"groups": ["b"]}]))
    attempt("delete the big document", lambda: collection.delete(ids=["big"]))
    reopened = chromadb.PersistentClient(path).get_collection("many-groups")
    attempt("get after reopening", lambda: reopened.get(ids=["small"]))


if __name__ == "__main__":
    kind, sizes = sys.argv[1], [int(a) for a in sys.argv[2:]]
    for size in sizes:
        with tempfile.TemporaryDirectory() as directory:
            {"principal": principal, "document": document}[kind](size, directory)

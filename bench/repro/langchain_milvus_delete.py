"""langchain-milvus: ``delete(ids=...)`` does not delete an id that ``repr`` escapes, and says so only in a log.

Standalone (langchain-core, langchain-milvus, pymilvus and milvus-lite; a model-free fake
embedding). ``Milvus.delete(ids)`` sends ``pk in <repr of the list>``. Quotes and
backslashes survive (``repr`` escapes them the way Milvus reads them), but ``repr``
writes a no-break space, a zero-width space, a NUL or any other non-printable
character as ``\\xNN``/``\\uNNNN``, which Milvus Lite refuses: ``delete`` catches the
error, logs it and returns False, and the document is still returned by every search
(a revoked document stays visible to an application that does not check the return
value; LangChain's ``VectorStore.delete`` documents False as "not successful", not an
exception). ``max_marginal_relevance_search`` builds the same ``repr`` to fetch its
candidates' vectors and raises for such an id. Deleting with an expression whose
literals the application escapes itself (``delete(expr=...)``) works.

First, with pymilvus >= 2.6.10, the first ``add_texts`` raises
``ConnectionNotExistException`` (``Milvus.col`` opens an ORM ``Collection`` under an alias
``MilvusClient`` no longer registers: langchain-milvus #128, #130, open PR #132); the
script registers the alias, as an application must.

    python bench/repro/langchain_milvus_delete.py
"""

from __future__ import annotations

import logging
import os
import tempfile
from importlib.metadata import version

from langchain_core.embeddings import DeterministicFakeEmbedding
from langchain_milvus import Milvus
from pymilvus import connections
from pymilvus.exceptions import ConnectionNotExistException

logging.disable(logging.CRITICAL)
IDS = ["plain", "o'brien", 'say "hi"', "back\\slash", "both'\"\\", "no\u00a0break", "zero\u200bwidth", "nul\x00x"]


def escaped(value: str) -> str:
    """A Milvus string literal: ``\\`` and ``"`` escaped (these ids hold no newline, which has to be ``\\n``)."""
    return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'


def main() -> None:
    print(f"langchain-milvus {version('langchain-milvus')}, pymilvus {version('pymilvus')}, "
          f"milvus-lite {version('milvus-lite')}")
    uri = os.path.join(tempfile.mkdtemp(), "delete.db")

    def open_store() -> Milvus:
        return Milvus(DeterministicFakeEmbedding(size=4), collection_name="docs", connection_args={"uri": uri},
                      index_params={"index_type": "FLAT", "metric_type": "COSINE"}, auto_id=False, drop_old=True)

    store = open_store()
    try:
        store.add_texts(IDS, metadatas=[{"n": n} for n in range(len(IDS))], ids=IDS)
        print("add_texts: ok")
    except ConnectionNotExistException as error:
        print(f"add_texts raised {type(error).__name__}: {error.message}; registering the alias")
        store = open_store()  # the failed add left a collection behind, and the store without its fields
        connections.connect(alias=store.alias, uri=uri)
        store.add_texts(IDS, metadatas=[{"n": n} for n in range(len(IDS))], ids=IDS)

    def present() -> set[str]:
        return {doc.metadata["pk"] for doc in store.similarity_search("query", k=len(IDS))}

    for doc_id in IDS:
        returned = store.delete(ids=[doc_id])
        print(f"delete(ids=[{doc_id!r}]) returned {returned}; the document is "
              f"{'STILL RETURNED by searches' if doc_id in present() else 'gone'}")
    left = sorted(present())
    try:
        store.max_marginal_relevance_search("query", k=2, fetch_k=len(IDS))
        print("max_marginal_relevance_search: ok")
    except Exception as error:
        print(f"max_marginal_relevance_search raised {type(error).__name__}: {' '.join(str(error).split())[:80]}")
    store.delete(expr=f"pk in [{', '.join(escaped(i) for i in left)}]")
    print(f"delete(expr=...) of {left}, each literal escaped: left afterwards {sorted(present()) or 'none'}")
    store.client.close()


if __name__ == "__main__":
    main()

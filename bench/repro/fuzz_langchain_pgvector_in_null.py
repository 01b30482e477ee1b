"""langchain-postgres: ``$in``/``$nin`` are NULL on a missing field, ``$eq``/``$ne`` FALSE: NOT of the two differ.

Standalone (langchain-postgres, langchain-core and a PostgreSQL server with pgvector at $PGVECTOR_URL, a
SQLAlchemy URL). Found by ``filterproof fuzz --seed 4`` (target ``langchain-pgvector``, case 90, the
``spelling`` oracle: ``x IN (a)`` is ``x = a`` by SQL's definition), shrunk from 8 documents and 8 filter nodes.
Seen with langchain-postgres 0.0.19, langchain-core 1.8.3, SQLAlchemy 2.0.58, psycopg 3.3.9, PostgreSQL 18.3,
pgvector 0.8.2.

``cmetadata->>'n' IN ('7')`` is NULL on a document without ``n`` (and on ``{"n": null}``), and SQL's NOT keeps it
NULL; the SQL/JSON path ``$.n == 7`` is FALSE there (no item), so its NOT is TRUE. On ``{}``,
``{"$not": {"n": {"$in": [7]}}}`` selects nothing and ``{"$not": {"n": {"$eq": 7}}}`` selects the document; and on
``{"s": null}``, ``{"s": {"$ne": "a"}}`` selects it (``null != "a"`` holds in SQL/JSON) where
``{"s": {"$nin": ["a"]}}`` does not. A deny-list written with ``$in`` under ``$not`` and one written with ``$eq``
disagree on every document that lacks the field. Exit status 1 while it reproduces.

    PGVECTOR_URL=postgresql+psycopg://postgres@/postgres?host=/tmp/pg python bench/repro/fuzz_langchain_pgvector_in_null.py
"""
# ruff: noqa: E501  (the world and the filters, as found, one per line)
import atexit
import os
import sys
import uuid

from langchain_core.embeddings import FakeEmbeddings
from langchain_postgres import PGVector

DOCS = {'d3': {}}
ALL = set(DOCS)
EXPECTED = set()
DEFINED = set()


# PGVector on $PGVECTOR_URL, a SQLAlchemy URL ("postgresql+psycopg://postgres@/postgres?host=/tmp/..."),
# in a collection of its own, deleted at exit.
if not os.environ.get("PGVECTOR_URL"):
    print("set PGVECTOR_URL to a SQLAlchemy URL of a PostgreSQL server with pgvector", file=sys.stderr)
    sys.exit(2)
lc_store = PGVector(FakeEmbeddings(size=2), connection=os.environ["PGVECTOR_URL"],
                    collection_name="repro_" + uuid.uuid4().hex[:12], use_jsonb=True)
atexit.register(lc_store.delete_collection)
lc_ids = list(DOCS)
if lc_ids:
    lc_store.add_embeddings(texts=lc_ids, embeddings=[[1.0, 0.01 * (i + 1)] for i in range(len(lc_ids))],
                            metadatas=[dict(d) for d in DOCS.values()], ids=lc_ids)


def ask_langchain(native, via, indexed):
    if not lc_ids:
        return set()
    if via == "mmr":
        found = lc_store.max_marginal_relevance_search_by_vector([1.0, 0.0], k=len(lc_ids), fetch_k=len(lc_ids),
                                                                 filter=native)
    else:
        found = lc_store.similarity_search_by_vector([1.0, 0.0], k=len(lc_ids), filter=native)
    return {doc.id for doc in found}


answers = {
    'P': ask_langchain({'$not': {'n': {'$in': [7]}}}, 'search', False),
    'P spelled 1': ask_langchain({'$not': {'n': {'$in': [7]}}}, 'search', False),
    'P spelled 2': ask_langchain({'$not': {'n': {'$eq': 7}}}, 'search', False),
}
for label, ids in answers.items():
    print(f'{label}: {sorted(ids)}')
holds = answers['P'] == answers['P spelled 1'] and answers['P'] == answers['P spelled 2']
print('holds' if holds else 'VIOLATED: spelling')
sys.exit(0 if holds else 1)

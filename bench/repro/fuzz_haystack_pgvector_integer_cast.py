"""pgvector-haystack: comparing a field with an integer casts every row's text to int4.

Standalone (haystack-ai, pgvector-haystack and a PostgreSQL server with pgvector at $PGVECTOR_DSN, a libpq
connection string or URI; a table of its own, dropped at exit). Found by ``filterproof fuzz --seed 1`` (target
``haystack-pgvector``, case 3, the ``partition`` oracle), shrunk from 8 documents. Seen with haystack-ai 3.4.1,
pgvector-haystack 8.1.2, psycopg 3.3.9, PostgreSQL 18.3.

pgvector-haystack reads a meta key as text (``meta->>'n'``) and casts it by the Python type of the compared value:
for an int, ``(meta->>'n')::integer`` (PostgreSQL's 4-byte integer). The cast runs on every row, so one document
whose ``n`` is an integer past 2^31 (here 2^63 - 1; a millisecond timestamp is one), a float (``2.5``) or a text
fails the query for every caller ("value ... is out of range for type integer", "invalid input syntax for type
integer"): ``n != 7`` and ``n == 7`` both raise where Haystack's InMemoryDocumentStore answers ``['d2']`` and ``[]``.

Exit status 1 (a traceback, DocumentStoreError) while it reproduces; 0 once the relation holds.

    PGVECTOR_DSN=... python bench/repro/fuzz_haystack_pgvector_integer_cast.py
"""
import atexit
import os
import sys
import uuid

DOCS = {'d2': {'n': 9223372036854775807}}
ALL = set(DOCS)
EXPECTED = set()
DEFINED = set()


# haystack-pgvector: PostgreSQL with pgvector at $PGVECTOR_DSN (a libpq connection string or URI), a table of its own,
# dropped at exit.
if not os.environ.get("PGVECTOR_DSN"):
    print("set PGVECTOR_DSN to a PostgreSQL server with pgvector", file=sys.stderr)
    sys.exit(2)
os.environ.setdefault("HAYSTACK_TELEMETRY_ENABLED", "False")  # no network: read when haystack is first imported
from haystack import Document  # noqa: E402
from haystack.utils import Secret  # noqa: E402
from haystack_integrations.components.retrievers.pgvector import PgvectorEmbeddingRetriever  # noqa: E402
from haystack_integrations.document_stores.pgvector import PgvectorDocumentStore  # noqa: E402

hs_pgvector = PgvectorDocumentStore(connection_string=Secret.from_token(os.environ["PGVECTOR_DSN"]),
                                    table_name="repro_" + uuid.uuid4().hex[:12], embedding_dimension=2,
                                    vector_function="cosine_similarity", search_strategy="exact_nearest_neighbor")
hs_documents = [Document(id=d, content=d, embedding=[1.0, 0.01 * (i + 1)], meta=dict(DOCS[d]))
                for i, d in enumerate(DOCS)]
hs_pgvector.write_documents(hs_documents)
atexit.register(hs_pgvector.delete_table)
hs_pgvector_retriever = PgvectorEmbeddingRetriever(document_store=hs_pgvector)


def ask_haystack_pgvector(native, via, indexed):
    if not DOCS:
        return set()
    if via == "count":
        return {f"#{i}" for i in range(hs_pgvector.count_documents_by_filter(native))}
    if via == "filter":
        return {d.id for d in hs_pgvector.filter_documents(native)}
    found = hs_pgvector_retriever.run(query_embedding=[1.0, 0.0], filters=native, top_k=len(DOCS))["documents"]
    return {d.id for d in found}


answers = {
    'P': ask_haystack_pgvector({'field': 'meta.n', 'operator': '!=', 'value': 7}, 'search', False),
    'NOT P': ask_haystack_pgvector({'field': 'meta.n', 'operator': '==', 'value': 7}, 'search', False),
}
for label, ids in answers.items():
    print(f'{label}: {sorted(ids)}')
holds = not (answers['P'] & answers['NOT P']) and answers['P'] | answers['NOT P'] == ALL
print('holds' if holds else 'VIOLATED: partition')
sys.exit(0 if holds else 1)

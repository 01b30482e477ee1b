"""pgvector-haystack: one PgvectorDocumentStore shared by threads hands one caller's rows to another.

Standalone (haystack-ai, pgvector-haystack and a PostgreSQL server with pgvector at $PGVECTOR_DSN, a libpq
connection string or URI; a table of its own, dropped at exit). Found by the conformance suite's
``test_one_client_searched_from_several_threads_answers_each_caller`` on the ``haystack-pgvector`` bridge. Seen with
haystack-ai 3.4.1, pgvector-haystack 8.1.2, psycopg 3.3.9, PostgreSQL 18.3.

The store opens one connection and one cursor (``_dict_cursor``), and ``_embedding_retrieval`` runs
``cursor.execute(query)`` then ``cursor.fetchall()``. A web application shares one store, and one retriever,
between the threads that serve requests: when two retrievals overlap, the first to fetch reads the rows of the
second's query (another tenant's documents, under its filter), or none ("no result available"). Four threads
each ask as one of four tenants, 250 times, beside a thread of Python work (a busy server's); each answer must hold
its own tenant's documents only. A race: up to five such rounds, until one meets it.

Exit status 1 while it reproduces (a caller got another's rows, or its query raised); 0 once every answer is its own.

    PGVECTOR_DSN=... python bench/repro/haystack_pgvector_shared_store.py
"""
import atexit
import os
import sys
import threading
import uuid
from collections import Counter

if not os.environ.get("PGVECTOR_DSN"):
    print("set PGVECTOR_DSN to a PostgreSQL server with pgvector", file=sys.stderr)
    sys.exit(2)
os.environ.setdefault("HAYSTACK_TELEMETRY_ENABLED", "False")  # no network: read when haystack is first imported
from haystack import Document
from haystack.utils import Secret
from haystack_integrations.components.retrievers.pgvector import PgvectorEmbeddingRetriever
from haystack_integrations.document_stores.pgvector import PgvectorDocumentStore

TENANTS = ("acme", "beta", "gamma", "delta")
ROUNDS = 5
store = PgvectorDocumentStore(connection_string=Secret.from_token(os.environ["PGVECTOR_DSN"]),
                              table_name=f"repro_{uuid.uuid4().hex[:8]}", embedding_dimension=2,
                              vector_function="cosine_similarity", search_strategy="exact_nearest_neighbor",
                              recreate_table=True)
atexit.register(store.delete_table)
store.write_documents([Document(id=f"{t}-{n}", content=f"{t} {n}", embedding=[1.0, n / 10], meta={"tenant": t})
                       for t in TENANTS for n in range(3)])
retriever = PgvectorEmbeddingRetriever(document_store=store, top_k=10)  # one, as an application's pipeline holds
outcomes: Counter[str] = Counter()
start, done = threading.Barrier(len(TENANTS)), threading.Event()


def ask(tenant: str) -> None:
    start.wait()
    for _ in range(250):
        try:
            docs = retriever.run(query_embedding=[1.0, 0.1],
                                 filters={"field": "meta.tenant", "operator": "==", "value": tenant})["documents"]
        except Exception as error:  # counted, as a caller's failed request
            outcomes[f"raised {type(error).__name__}"] += 1
            continue
        others = sorted({d.meta["tenant"] for d in docs} - {tenant})
        outcomes[f"got {others} rows" if others else "own rows only"] += 1


def busy() -> None:
    while not done.is_set():
        sum(range(100))


def one_round() -> None:
    """The four callers at once, beside the busy thread."""
    spinner = threading.Thread(target=busy, daemon=True)
    spinner.start()
    threads = [threading.Thread(target=ask, args=(t,)) for t in TENANTS]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    done.set()
    spinner.join()
    done.clear()


sys.setswitchinterval(1e-6)  # threads switch at almost every call, as many requests at once make them
for _ in range(ROUNDS):  # a race: one round of 1,000 answers met it 7 times in 8 here; stop at the first that does
    one_round()
    if outcomes.total() > outcomes["own rows only"]:
        break
print(f"pgvector-haystack, one store and retriever shared by {len(TENANTS)} threads: {dict(outcomes)}")
wrong = outcomes.total() - outcomes["own rows only"]
if wrong:
    print(f"VIOLATED: {wrong} of {outcomes.total()} answers were not the caller's own")
    sys.exit(1)
sys.exit(0)

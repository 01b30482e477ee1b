"""PGVectorTranslator admits the comparator contain, which PGVector refuses.

Standalone (langchain-classic, langchain-postgres and a PostgreSQL server with pgvector at $PGVECTOR_URL, a
SQLAlchemy URL; no model: the model's answer is written out).
Found by ``filterproof fuzz --seed 2`` (target ``selfquery-pgvector``, case 4, the ``double_negation``
oracle), shrunk from 8 documents. Seen with langchain-classic 1.0.8, langchain-postgres 0.0.19 and lark 1.3.1.

langchain-postgres's PGVectorTranslator lists Comparator.CONTAIN among its allowed comparators, so
SelfQueryRetriever.from_llm tells the model it may write contain("tags", "a"); the translator writes
{"tags": {"$contain": "a"}}, and PGVector raises ValueError (Invalid operator: $contain): every such answer fails.

Exit status 1: the bug reproduces (a violated relation, or the query fails); 0: it holds.
"""
# ruff: noqa: E501  (the world and the filters, as found, one per line)
import atexit
import os
import sys
import uuid

from langchain_classic.chains.query_constructor.base import StructuredQueryOutputParser
from langchain_classic.retrievers.self_query.base import SelfQueryRetriever
from langchain_core import structured_query as sq
from langchain_core.embeddings import Embeddings
from langchain_core.runnables import RunnableLambda
from langchain_postgres import PGVector, PGVectorTranslator

DOCS = {'d0': {}}
ALL = set(DOCS)
EXPECTED = set()
DEFINED = set()


# The parser SelfQueryRetriever.from_llm builds for this store's translator (its allowed comparators and operators).
parser = StructuredQueryOutputParser.from_components(
    allowed_comparators=[sq.Comparator.CONTAIN, sq.Comparator.EQ, sq.Comparator.GT, sq.Comparator.IN, sq.Comparator.LIKE, sq.Comparator.LT, sq.Comparator.NE, sq.Comparator.NIN], allowed_operators=[sq.Operator.AND, sq.Operator.OR])
VECTORS = {**{d: [1.0, 0.01 * (i + 1)] for i, d in enumerate(DOCS)}, "q": [1.0, 0.0]}


class TableEmbeddings(Embeddings):  # our vectors, no model
    def embed_documents(self, texts):
        return [VECTORS.get(t, [1.0, 0.0]) for t in texts]

    def embed_query(self, text):
        return VECTORS.get(text, [1.0, 0.0])


def ask_selfquery(query, via, indexed):
    """What SelfQueryRetriever returns when the model's answer is `query`, with k = every document."""
    if not DOCS:
        return set()
    k = len(DOCS)
    retriever = SelfQueryRetriever(query_constructor=RunnableLambda(lambda _: query), vectorstore=store,
                                   structured_query_translator=TRANSLATOR,
                                   search_type="mmr" if via == "mmr" else "similarity",
                                   search_kwargs={"k": k, "fetch_k": k} if via == "mmr" else {"k": k})
    return {doc.page_content for doc in retriever.invoke("q")}

# PGVector on $PGVECTOR_URL, a SQLAlchemy URL ("postgresql+psycopg://postgres@/postgres?host=/tmp/..."),
# in a collection of its own, deleted at exit.
if not os.environ.get("PGVECTOR_URL"):
    print("set PGVECTOR_URL to a SQLAlchemy URL of a PostgreSQL server with pgvector", file=sys.stderr)
    sys.exit(2)
store = PGVector(TableEmbeddings(), connection=os.environ["PGVECTOR_URL"],
                    collection_name="repro_" + uuid.uuid4().hex[:12], use_jsonb=True)
atexit.register(store.delete_collection)
lc_ids = list(DOCS)
if lc_ids:
    store.add_embeddings(texts=lc_ids, embeddings=[[1.0, 0.01 * (i + 1)] for i in range(len(lc_ids))],
                            metadatas=[dict(d) for d in DOCS.values()], ids=lc_ids)
TRANSLATOR = PGVectorTranslator()  # as SelfQueryRetriever would pick it


answers = {
    'P': ask_selfquery(parser.parse('{"query": "q", "filter": "contain(\\"nums\\", 0)"}'), 'search', False),
    'NOT NOT P': ask_selfquery(parser.parse('{"query": "q", "filter": "contain(\\"nums\\", 0)"}'), 'search', False),
}
for label, ids in answers.items():
    print(f'{label}: {sorted(ids)}')
holds = answers['P'] == answers['NOT NOT P']
print('holds' if holds else 'VIOLATED: double_negation')
sys.exit(0 if holds else 1)

"""QdrantTranslator passes the structured query's date to Qdrant unchanged.

Standalone (langchain-classic, langchain-community, langchain-qdrant and qdrant-client (local mode, in memory); no model: the model's answer is written out).
Found by ``filterproof fuzz --seed 1`` (target ``selfquery-qdrant``, case 134, the ``partition``
oracle), shrunk from 8 documents. Seen with langchain-classic 1.0.8, langchain-community 0.4.2, langchain-qdrant 1.1.0, lark 1.3.1 and qdrant-client 1.20.0.

The query constructor's prompt asks the model for dates as "YYYY-MM-DD", which the grammar reads as
{'date': ..., 'type': 'date'}; QdrantTranslator writes it into models.Range (numbers only), so every range on a
date fails (ChromaTranslator does the same, and Chroma refuses it too).

Exit status 1: the bug reproduces (a violated relation, or the query fails); 0: it holds.
"""
# ruff: noqa: E501  (the world and the filters, as found, one per line)
import sys
import uuid

from langchain_classic.chains.query_constructor.base import StructuredQueryOutputParser
from langchain_classic.retrievers.self_query.base import SelfQueryRetriever
from langchain_community.query_constructors.qdrant import QdrantTranslator
from langchain_core import structured_query as sq
from langchain_core.embeddings import Embeddings
from langchain_core.runnables import RunnableLambda
from langchain_qdrant import QdrantVectorStore
from qdrant_client import QdrantClient, models

DOCS = {'d0': {}}
ALL = set(DOCS)
EXPECTED = set()
DEFINED = set()


# The parser SelfQueryRetriever.from_llm builds for this store's translator (its allowed comparators and operators).
parser = StructuredQueryOutputParser.from_components(
    allowed_comparators=[sq.Comparator.EQ, sq.Comparator.GT, sq.Comparator.GTE, sq.Comparator.LIKE, sq.Comparator.LT, sq.Comparator.LTE], allowed_operators=[sq.Operator.AND, sq.Operator.NOT, sq.Operator.OR])
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

client = QdrantClient(":memory:")
client.create_collection("fuzz", vectors_config=models.VectorParams(size=2, distance=models.Distance.COSINE))
store = QdrantVectorStore(client, "fuzz", TableEmbeddings())
TRANSLATOR = QdrantTranslator(metadata_key=store.metadata_payload_key)  # as SelfQueryRetriever would pick it
if DOCS:
    store.add_texts(list(DOCS), [dict(d) for d in DOCS.values()],
                    ids=[str(uuid.uuid5(uuid.NAMESPACE_URL, d)) for d in DOCS])


answers = {
    'P': ask_selfquery(parser.parse('{"query": "q", "filter": "gt(\\"d\\", \\"1969-12-31\\")"}'), 'search', False),
    'NOT P': ask_selfquery(parser.parse('{"query": "q", "filter": "not(gt(\\"d\\", \\"1969-12-31\\"))"}'), 'search', False),
}
for label, ids in answers.items():
    print(f'{label}: {sorted(ids)}')
holds = not (answers['P'] & answers['NOT P']) and answers['P'] | answers['NOT P'] == ALL
print('holds' if holds else 'VIOLATED: partition')
sys.exit(0 if holds else 1)

"""SelfQueryRetriever's parser keeps a string's escapes as written.

Standalone (langchain-classic, langchain-community, langchain-qdrant and qdrant-client (local mode, in memory); no model: the model's answer is written out).
Found by ``filterproof fuzz --seed 1`` (target ``selfquery-qdrant``, case 241, the ``spelling``
oracle), shrunk from 8 documents. Seen with langchain-classic 1.0.8, langchain-community 0.4.2, langchain-qdrant 1.1.0, lark 1.3.1 and qdrant-client 1.20.0.

The model writes the filter eq("s", "\tÁcme") (a tab, in JSON's escape); StructuredQueryOutputParser's
grammar keeps the string's text between its quotes as it is, so the value compared is a backslash, a t and
Ácme: the document whose s is a tab and Ácme is missed. The same for \", \\, \n and \u0000.

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

DOCS = {'d0': {'s': '\tÁcme'}}
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
    'P': ask_selfquery(sq.StructuredQuery(query='q', filter=sq.Comparison(comparator=sq.Comparator.EQ, attribute='s', value='\tÁcme'), limit=None), 'search', False),
    'P spelled 1': ask_selfquery(parser.parse('{"query": "q", "filter": "eq(\\"s\\", \\"\\\\tÁcme\\")"}'), 'search', False),
}
for label, ids in answers.items():
    print(f'{label}: {sorted(ids)}')
holds = answers['P'] == answers['P spelled 1']
print('holds' if holds else 'VIOLATED: spelling')
sys.exit(0 if holds else 1)

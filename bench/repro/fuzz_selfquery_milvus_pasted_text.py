r"""MilvusTranslator pastes a text into the Milvus expression unescaped.

Standalone (langchain-classic, langchain-community, langchain-milvus, pymilvus and milvus-lite, a Lite file of its
own; no model: the model's answer is written out).
Found by ``filterproof fuzz --seed 2`` (target ``selfquery-milvus``, case 320, the ``partition``
oracle), shrunk from 8 documents. Seen with langchain-classic 1.0.8, langchain-community 0.4.2, langchain-milvus
0.3.3, lark 1.3.1, pymilvus 2.6.17 and milvus-lite 3.2.2.

eq("s", '" OR "1"="1') becomes ( s == "" OR "1"="1" ): the value's quote ends the string, the rest is read as
expression, and here the query fails. A value written as expression selects what it says: x" or s != "x makes
( s == "x" or s != "x" ), every document with an s (test_fuzz_selfquery.py). A list is Python's repr, whose
\xNN and \uNNNN escapes Milvus does not read.

Exit status 1: the bug reproduces (a violated relation, or the query fails); 0: it holds.
"""
# ruff: noqa: E501  (the world and the filters, as found, one per line)
import sys
import tempfile

from langchain_classic.chains.query_constructor.base import StructuredQueryOutputParser
from langchain_classic.retrievers.self_query.base import SelfQueryRetriever
from langchain_community.query_constructors.milvus import MilvusTranslator
from langchain_core import structured_query as sq
from langchain_core.embeddings import Embeddings
from langchain_core.runnables import RunnableLambda
from langchain_milvus import Milvus
from pymilvus import connections

DOCS = {'d0': {}}
ALL = set(DOCS)
EXPECTED = set()
DEFINED = set()


# The parser SelfQueryRetriever.from_llm builds for this store's translator (its allowed comparators and operators).
parser = StructuredQueryOutputParser.from_components(
    allowed_comparators=[sq.Comparator.EQ, sq.Comparator.GT, sq.Comparator.GTE, sq.Comparator.IN, sq.Comparator.LIKE, sq.Comparator.LT, sq.Comparator.LTE], allowed_operators=[sq.Operator.AND, sq.Operator.NOT, sq.Operator.OR])
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


store = Milvus(TableEmbeddings(), collection_name="fuzz", connection_args={"uri": tempfile.mkdtemp() + "/fuzz.db"},
               auto_id=False, enable_dynamic_field=True, consistency_level="Strong",
               index_params={"index_type": "FLAT", "metric_type": "COSINE"})
connections.connect(alias=store.alias, uri=store._connection_args["uri"])  # langchain-milvus #130
TRANSLATOR = MilvusTranslator()  # as SelfQueryRetriever would pick it
if DOCS:
    store.add_texts(list(DOCS), [dict(d) for d in DOCS.values()], ids=list(DOCS))


answers = {
    'P': ask_selfquery(sq.StructuredQuery(query='q', filter=sq.Comparison(comparator=sq.Comparator.EQ, attribute='s', value='" OR "1"="1'), limit=None), 'search', False),
    'NOT P': ask_selfquery(sq.StructuredQuery(query='q', filter=sq.Operation(operator=sq.Operator.NOT, arguments=[sq.Comparison(comparator=sq.Comparator.EQ, attribute='s', value='" OR "1"="1')]), limit=None), 'search', False),
}
for label, ids in answers.items():
    print(f'{label}: {sorted(ids)}')
holds = not (answers['P'] & answers['NOT P']) and True
print('holds' if holds else 'VIOLATED: partition')
sys.exit(0 if holds else 1)

"""SelfQueryRetriever's parser reads a quoted text that looks like a date as a date.

Standalone (langchain-classic, langchain-community, langchain-chroma and chromadb (in process); no model: the model's answer is written out).
Found by ``filterproof fuzz --seed 2`` (target ``selfquery-chroma``, case 103, the ``partition``
oracle), shrunk from 8 documents. Seen with langchain-classic 1.0.8, langchain-community 0.4.2, langchain-chroma 1.1.0, lark 1.3.1 and chromadb 1.5.9.

The model writes eq("d", "1970-01-01"), a text; the grammar's DATE terminal (with optional quotes, ahead
of strings) turns it into {'date': '1970-01-01', 'type': 'date'}, which ChromaTranslator hands to Chroma as
the operand of $eq, and Chroma refuses it: the query fails.

Exit status 1: the bug reproduces (a violated relation, or the query fails); 0: it holds.
"""
# ruff: noqa: E501  (the world and the filters, as found, one per line)
import sys

import chromadb
from langchain_chroma import Chroma
from langchain_classic.chains.query_constructor.base import StructuredQueryOutputParser
from langchain_classic.retrievers.self_query.base import SelfQueryRetriever
from langchain_community.query_constructors.chroma import ChromaTranslator
from langchain_core import structured_query as sq
from langchain_core.embeddings import Embeddings
from langchain_core.runnables import RunnableLambda

DOCS = {'d0': {}}
ALL = set(DOCS)
EXPECTED = set()
DEFINED = set()


# The parser SelfQueryRetriever.from_llm builds for this store's translator (its allowed comparators and operators).
parser = StructuredQueryOutputParser.from_components(
    allowed_comparators=[sq.Comparator.EQ, sq.Comparator.GT, sq.Comparator.GTE, sq.Comparator.LT, sq.Comparator.LTE, sq.Comparator.NE], allowed_operators=[sq.Operator.AND, sq.Operator.OR])
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

store = Chroma("fuzz", TableEmbeddings(), client=chromadb.EphemeralClient())
TRANSLATOR = ChromaTranslator()  # as SelfQueryRetriever would pick it
if DOCS:
    store.add_texts(list(DOCS), [dict(d) for d in DOCS.values()], ids=list(DOCS))


answers = {
    'P': ask_selfquery(parser.parse('{"query": "q", "filter": "eq(\\"d\\", \\"1970-01-01\\")"}'), 'search', False),
    'NOT P': ask_selfquery(parser.parse('{"query": "q", "filter": "ne(\\"d\\", \\"1970-01-01\\")"}'), 'search', False),
}
for label, ids in answers.items():
    print(f'{label}: {sorted(ids)}')
holds = not (answers['P'] & answers['NOT P']) and True
print('holds' if holds else 'VIOLATED: partition')
sys.exit(0 if holds else 1)

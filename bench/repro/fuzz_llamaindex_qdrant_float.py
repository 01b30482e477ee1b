"""llama-index-vector-stores-qdrant: NE, IN and NIN with a float value raise a pydantic ValidationError.

Standalone (llama-index-core, llama-index-vector-stores-qdrant and qdrant-client only). Found by ``filterproof
fuzz`` (target ``llamaindex-qdrant``: under every oracle, as an error). Seen with llama-index-core 0.14.25,
llama-index-vector-stores-qdrant 0.10.4, qdrant-client 1.20.0.

``MetadataFilter`` takes a float value, and the store translates ``EQ`` with a float into
``Range(gte=v, lte=v)``; but it hands a float of ``NE`` to ``MatchExcept(except=[v])`` and of ``IN``/``NIN`` to
``MatchAny``/``MatchExcept``, which take text or integers: ``b != 0.5`` raises "2 validation errors for
MatchExcept" where a selection (every document, here: none holds 0.5) was expected. It fails loudly, so nothing
leaks, but a float filter that works with ``EQ`` cannot be negated. Exit status 1 (a traceback) while it
reproduces.

    python bench/repro/fuzz_llamaindex_qdrant_float.py
"""
# ruff: noqa: E501  (the world and the filters, as found, one per line)
import sys
import uuid

from llama_index.core.schema import TextNode
from llama_index.core.vector_stores import types as li
from llama_index.vector_stores.qdrant import QdrantVectorStore
from qdrant_client import QdrantClient

DOCS = {'d0': {}}
ALL = set(DOCS)
EXPECTED = set()
DEFINED = set()


li_ids = {str(uuid.UUID(int=i + 1)): d for i, d in enumerate(DOCS)}
li_store = QdrantVectorStore(collection_name="fuzz", client=QdrantClient(":memory:"))
li_store.add([TextNode(id_=n, text=d, embedding=[1.0, 0.01 * (i + 1)], metadata=dict(DOCS[d]))
              for i, (n, d) in enumerate(li_ids.items())])


def ask_llamaindex(native, via, indexed):
    query = li.VectorStoreQuery(query_embedding=[1.0, 0.0], similarity_top_k=len(li_ids), filters=native)
    return {li_ids[i] for i in li_store.query(query).ids or []}


answers = {
    'P': ask_llamaindex(li.MetadataFilters(filters=[li.MetadataFilter(key='b', operator=li.FilterOperator.NE, value=0.5)], condition=li.FilterCondition.AND), 'search', False),
    'NOT P': ask_llamaindex(li.MetadataFilters(filters=[li.MetadataFilter(key='b', operator=li.FilterOperator.NE, value=0.5)], condition=li.FilterCondition.NOT), 'search', False),
}
for label, ids in answers.items():
    print(f'{label}: {sorted(ids)}')
holds = not (answers['P'] & answers['NOT P']) and answers['P'] | answers['NOT P'] == ALL
print('holds' if holds else 'VIOLATED: partition')
sys.exit(0 if holds else 1)

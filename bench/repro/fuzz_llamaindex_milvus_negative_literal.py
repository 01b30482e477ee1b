"""Milvus Lite, through llama-index-vector-stores-milvus: ``array_contains(k, -1)`` does not parse.

Standalone (llama-index-core, llama-index-vector-stores-milvus, pymilvus and milvus-lite; a Lite file in a
temporary directory). Found by ``filterproof fuzz --seed 3`` (target ``llamaindex-milvus``, case 201, the
``double_negation`` oracle), shrunk from 8 documents. Seen with llama-index-core 0.14.25,
llama-index-vector-stores-milvus 1.2.0, pymilvus 2.6.17, milvus-lite 3.2.2.

CONTAINS with a negative number is written ``array_contains(nums, -1)``, which Lite refuses ("unexpected token
'-'"); ``(-1)`` parses. The ``milvus`` target's ``fuzz_milvus_negative_contains.py`` is the same on a typed field.

Exit status 1: the bug reproduces (a violated relation, or the query fails); 0: it holds.
"""
# ruff: noqa: E501  (the world and the filters, as found, one per line)
import logging
import sys
import tempfile

from llama_index.core.schema import TextNode
from llama_index.core.vector_stores import types as li
from llama_index.vector_stores.milvus import MilvusVectorStore

DOCS = {'d0': {}}
ALL = set(DOCS)
EXPECTED = set()
DEFINED = set()


for logger in ("pymilvus", "milvus_lite", "grpc._server"):
    logging.getLogger(logger).setLevel(logging.CRITICAL)
li_milvus_ids = list(DOCS)
li_milvus = MilvusVectorStore(uri=tempfile.mkdtemp(prefix="li-milvus-") + "/fuzz.db", collection_name="fuzz", dim=2,
                              overwrite=True, similarity_metric="COSINE", consistency_level="Strong")
if li_milvus_ids:
    li_milvus.add([TextNode(id_=d, text=d, embedding=[1.0, 0.01 * (i + 1)], metadata=dict(DOCS[d]))
                   for i, d in enumerate(li_milvus_ids)])


def ask_llamaindex_milvus(native, via, indexed):
    if not li_milvus_ids:
        return set()
    query = li.VectorStoreQuery(query_embedding=[1.0, 0.0], similarity_top_k=len(li_milvus_ids), filters=native)
    return set(li_milvus.query(query).ids or [])


answers = {
    'P': ask_llamaindex_milvus(li.MetadataFilters(filters=[li.MetadataFilter(key='nums', operator=li.FilterOperator.CONTAINS, value=-1)], condition=li.FilterCondition.AND), 'search', False),
    'NOT NOT P': ask_llamaindex_milvus(li.MetadataFilters(filters=[li.MetadataFilter(key='nums', operator=li.FilterOperator.CONTAINS, value=-1)], condition=li.FilterCondition.AND), 'search', False),
}
for label, ids in answers.items():
    print(f'{label}: {sorted(ids)}')
holds = answers['P'] == answers['NOT NOT P']
print('holds' if holds else 'VIOLATED: double_negation')
sys.exit(0 if holds else 1)

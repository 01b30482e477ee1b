"""llama-index-vector-stores-lancedb: a filter on a key the first node lacks fails the query.

Standalone (llama-index-core, llama-index-vector-stores-lancedb and lancedb; a LanceDB directory of its own).
Found by ``filterproof fuzz --seed 2`` (target ``llamaindex-lancedb``, case 55, the ``partition``
oracle), shrunk from 8 documents. Seen with llama-index-core 0.14.25, llama-index-vector-stores-lancedb
0.6.0, lancedb 0.40.0.

``_to_lance_filter`` prefixes a key with ``metadata.`` only when the first node added had it
(``_metadata_keys``), and the ``metadata`` struct holds only the keys some node had: a filter on any other key
raises ("No field named t") where it should select nothing, or, when a later node has the key, the documents
that have it (``tests/fuzz/test_fuzz_llamaindex_lancedb.py`` holds that second form too).

Exit status 1: the bug reproduces (a violated relation, or the query fails); 0: it holds.
"""
# ruff: noqa: E501  (the world and the filters, as found, one per line)
import sys
import tempfile

from llama_index.core.schema import TextNode
from llama_index.core.vector_stores import types as li
from llama_index.vector_stores.lancedb import LanceDBVectorStore

DOCS = {'d0': {}}
ALL = set(DOCS)
EXPECTED = set()
DEFINED = set()


li_lance_ids = list(DOCS)
li_lance = LanceDBVectorStore(uri=tempfile.mkdtemp(prefix="li-lance-"), table_name="fuzz", mode="overwrite")
if li_lance_ids:
    li_lance.add([TextNode(id_=d, text=d, embedding=[1.0, 0.01 * (i + 1)], metadata=dict(DOCS[d]))
                  for i, d in enumerate(li_lance_ids)])


def ask_llamaindex_lancedb(native, via, indexed):
    if not li_lance_ids:
        return set()
    query = li.VectorStoreQuery(query_embedding=[1.0, 0.0], similarity_top_k=len(li_lance_ids), filters=native)
    try:
        return set(li_lance.query(query).ids or [])
    except Warning as empty:  # LanceDBVectorStore raises this when nothing matched
        if str(empty) != "query results are empty..":
            raise
        return set()


answers = {
    'P': ask_llamaindex_lancedb(li.MetadataFilters(filters=[li.MetadataFilter(key='t', operator=li.FilterOperator.NE, value='b')], condition=li.FilterCondition.AND), 'search', False),
    'NOT P': ask_llamaindex_lancedb(li.MetadataFilters(filters=[li.MetadataFilter(key='t', operator=li.FilterOperator.EQ, value='b')], condition=li.FilterCondition.AND), 'search', False),
}
for label, ids in answers.items():
    print(f'{label}: {sorted(ids)}')
holds = not (answers['P'] & answers['NOT P']) and True
print('holds' if holds else 'VIOLATED: partition')
sys.exit(0 if holds else 1)

"""llama-index-vector-stores-lancedb: NE is written NOT LIKE '%v%'.

Standalone (llama-index-core, llama-index-vector-stores-lancedb and lancedb; a LanceDB directory of its own).
Found by ``filterproof fuzz --seed 2`` (target ``llamaindex-lancedb``, case 266, the ``reference``
oracle), shrunk from 8 documents. Seen with llama-index-core 0.14.25, llama-index-vector-stores-lancedb
0.6.0, lancedb 0.40.0.

``s != ''`` becomes ``metadata.s NOT LIKE '%%'``, false on every text (and ``s != 'a'`` drops ``'ab'``): NE
is "does not contain", not "is not equal".

Exit status 1: the bug reproduces (a violated relation, or the query fails); 0: it holds.
"""
# ruff: noqa: E501  (the world and the filters, as found, one per line)
import sys
import tempfile

from llama_index.core.schema import TextNode
from llama_index.core.vector_stores import types as li
from llama_index.vector_stores.lancedb import LanceDBVectorStore

DOCS = {'d3': {'s': 'Á\u200ccme'}}
ALL = set(DOCS)
EXPECTED = {'d3'}
DEFINED = {'d3'}


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
    'P': ask_llamaindex_lancedb(li.MetadataFilters(filters=[li.MetadataFilter(key='s', operator=li.FilterOperator.NE, value='')], condition=li.FilterCondition.AND), 'search', False),
}
for label, ids in answers.items():
    print(f'{label}: {sorted(ids)}')
holds = answers['P'] & DEFINED == EXPECTED
print('holds' if holds else 'VIOLATED: reference')
sys.exit(0 if holds else 1)

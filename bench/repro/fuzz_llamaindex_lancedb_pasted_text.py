"""llama-index-vector-stores-lancedb: the text of EQ, NE and the ranges is pasted unescaped.

Standalone (llama-index-core, llama-index-vector-stores-lancedb and lancedb; a LanceDB directory of its own).
Found by ``filterproof fuzz --seed 1`` (target ``llamaindex-lancedb``, case 388, the ``partition``
oracle), shrunk from 8 documents. Seen with llama-index-core 0.14.25, llama-index-vector-stores-lancedb
0.6.0, lancedb 0.40.0.

``metadata.s = '{value}'``: the value ``'`` ends the literal ("Unterminated string literal"); only IN doubles
the quotes of its values.

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
    'P': ask_llamaindex_lancedb(li.MetadataFilters(filters=[li.MetadataFilter(key='s', operator=li.FilterOperator.EQ, value="'")], condition=li.FilterCondition.AND), 'search', False),
    'NOT P': ask_llamaindex_lancedb(li.MetadataFilters(filters=[li.MetadataFilter(key='s', operator=li.FilterOperator.NE, value="'")], condition=li.FilterCondition.AND), 'search', False),
}
for label, ids in answers.items():
    print(f'{label}: {sorted(ids)}')
holds = not (answers['P'] & answers['NOT P']) and True
print('holds' if holds else 'VIOLATED: partition')
sys.exit(0 if holds else 1)

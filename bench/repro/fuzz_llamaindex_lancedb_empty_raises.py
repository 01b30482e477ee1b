"""llama-index-vector-stores-lancedb: a filter that selects nothing raises instead of returning no node.

Standalone (llama-index-core, llama-index-vector-stores-lancedb and lancedb; a LanceDB directory of its own). Seen
with llama-index-core 0.14.25, llama-index-vector-stores-lancedb 0.6.0, lancedb 0.40.0. ``LanceDBVectorStore.query``
ends ``if len(results) == 0: raise Warning("query results are empty..")``: a tenant with no document matching, or
a principal allowed nothing, is an exception to the application, not an empty answer (met by the
``llamaindex-lancedb`` fuzz target, which reads that exception as the empty answer to judge the filters).

Exit status 1: the bug reproduces (the query raises); 0: it returns no node.
"""
import sys
import tempfile

from llama_index.core.schema import TextNode
from llama_index.core.vector_stores import types as li
from llama_index.vector_stores.lancedb import LanceDBVectorStore

store = LanceDBVectorStore(uri=tempfile.mkdtemp(prefix="li-lance-"), table_name="repro", mode="overwrite")
store.add([TextNode(id_="acme", text="acme", embedding=[1.0, 0.0], metadata={"tenant": "acme"})])
only_globex = li.MetadataFilters(filters=[li.MetadataFilter(key="tenant", operator=li.FilterOperator.EQ,
                                                            value="globex")])
try:
    found = store.query(li.VectorStoreQuery(query_embedding=[1.0, 0.0], similarity_top_k=1, filters=only_globex))
except Warning as raised:
    print(f"VIOLATED: raised {type(raised).__name__}({str(raised)!r})")
    sys.exit(1)
print("holds: no node" if not found.ids else f"returned {found.ids}")
sys.exit(0 if not found.ids else 1)

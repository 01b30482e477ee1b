"""LanceDB through llama-index-vector-stores-lancedb: a key every node holds as null fails every comparison with it.

Standalone (llama-index-core, llama-index-vector-stores-lancedb and lancedb; a LanceDB directory of its own). Seen
with llama-index-core 0.14.25, llama-index-vector-stores-lancedb 0.6.0, lancedb 0.40.0. Met by the
``llamaindex-lancedb`` fuzz target (seed 4). The ``metadata`` struct's field types are inferred from the first batch:
a key that is null on every node added together becomes a field of Arrow type ``null``, and LanceDB refuses to
compare it with anything ("could not convert to literal of type 'Null'"). An open-ended validity window, ``expires``
null on every document of a batch, makes every ``expires > today`` filter fail instead of selecting nothing.

Exit status 1: the bug reproduces (the query raises); 0: it selects nothing, as SQL's NULL > x does.
"""
import sys
import tempfile

from llama_index.core.schema import TextNode
from llama_index.core.vector_stores import types as li
from llama_index.vector_stores.lancedb import LanceDBVectorStore

store = LanceDBVectorStore(uri=tempfile.mkdtemp(prefix="li-lance-"), table_name="repro", mode="overwrite")
store.add([TextNode(id_=i, text=i, embedding=[1.0, 0.1 * n], metadata={"tenant": "acme", "expires": None})
           for n, i in enumerate(("a", "b"))])
later = li.MetadataFilters(filters=[li.MetadataFilter(key="expires", operator=li.FilterOperator.GT, value=20260101)])
try:
    found = store.query(li.VectorStoreQuery(query_embedding=[1.0, 0.0], similarity_top_k=2, filters=later))
except Warning:  # the store's own "query results are empty..": nothing selected
    print("holds: nothing selected")
    sys.exit(0)
except ValueError as raised:
    print(f"VIOLATED: {str(raised)[:160]}")
    sys.exit(1)
print(f"selected {found.ids}")
sys.exit(1 if found.ids else 0)

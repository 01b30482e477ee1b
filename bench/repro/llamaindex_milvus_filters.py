"""llama-index-vector-stores-milvus: how ``MetadataFilters`` become a Milvus expression, and what Milvus Lite reads.

Standalone (llama-index-core, llama-index-vector-stores-milvus, pymilvus and milvus-lite).
``MilvusVectorStore`` renders a scalar string as ``'value'`` with only ``'`` escaped, a
list as Python's ``repr``, a key as given, ``IS_EMPTY`` as ``array_length(key) == 0``,
and drops a filter whose value is None. Milvus Lite reads ``\\\\ \\' \\" \\n \\r \\t`` in a
string literal, refuses every other escape, and refuses a raw newline. One store of
five documents (the tenant is the only metadata) shows each case:

* a backslash in a value is read as an escape: the tenant ``x\\ty`` (backslash, t) is
  asked as ``'x\\ty'``, which Milvus reads as x TAB y, so that principal gets the other
  tenant's document and not its own (a cross-tenant read); ``!=`` returns its own
  document too; ``back\\slash`` and a trailing backslash raise; a newline raises;
* ``"`` is harmless (inside single quotes); ``'`` is escaped;
* IN / ANY take ``repr`` of the list: right for quotes and backslashes, refused for a
  character ``repr`` writes as ``\\xNN``/``\\uNNNN`` (a no-break space);
* a key is pasted as it is: ``tenant != '' or tenant`` widens the filter to everyone;
* a filter whose value is None is dropped: no constraint;
* ``IS_EMPTY`` (the documented "missing or null") matches every string value too.

    python bench/repro/llamaindex_milvus_filters.py
"""

from __future__ import annotations

import logging
import os
import tempfile
from importlib.metadata import version

from llama_index.core.schema import TextNode
from llama_index.core.vector_stores.types import FilterOperator, MetadataFilter, MetadataFilters, VectorStoreQuery
from llama_index.vector_stores.milvus import MilvusVectorStore
from llama_index.vector_stores.milvus.utils import parse_standard_filters

logging.disable(logging.CRITICAL)
TENANTS = {"tab": "x\ty", "slash": "x\\ty", "back": "back\\slash", "nbsp": "no\u00a0break", "quote": 'say "hi"'}
CASES = [
    ("EQ 'x\\ty' (tenant of 'slash')", MetadataFilter(key="tenant", value="x\\ty"), {"slash"}),
    ("NE 'x\\ty'", MetadataFilter(key="tenant", value="x\\ty", operator=FilterOperator.NE), set(TENANTS) - {"slash"}),
    ("EQ 'back\\slash'", MetadataFilter(key="tenant", value="back\\slash"), {"back"}),
    ("EQ a trailing backslash", MetadataFilter(key="tenant", value="x\\"), set()),
    ("EQ a newline", MetadataFilter(key="tenant", value="x\ny"), set()),
    ("EQ 'say \"hi\"'", MetadataFilter(key="tenant", value='say "hi"'), {"quote"}),
    ("EQ no-break space", MetadataFilter(key="tenant", value="no\u00a0break"), {"nbsp"}),
    ("IN [no-break space]", MetadataFilter(key="tenant", value=["no\u00a0break"], operator=FilterOperator.IN),
     {"nbsp"}),
    ("IN ['x\\ty']", MetadataFilter(key="tenant", value=["x\\ty"], operator=FilterOperator.IN), {"slash"}),
    ("a key holding an expression", MetadataFilter(key="tenant != '' or tenant", value="nobody"), set()),
    ("EQ None (dropped: no constraint at all)", MetadataFilter(key="tenant", value=None), set()),
    ("IS_EMPTY tenant (every document has one)", MetadataFilter(key="tenant", value=None,
                                                               operator=FilterOperator.IS_EMPTY), set()),
]


def main() -> None:
    print(f"llama-index-vector-stores-milvus {version('llama-index-vector-stores-milvus')}, "
          f"pymilvus {version('pymilvus')}, milvus-lite {version('milvus-lite')}")
    store = MilvusVectorStore(uri=os.path.join(tempfile.mkdtemp(), "filters.db"), dim=2, collection_name="docs",
                              similarity_metric="COSINE", use_async_client=False)
    store.add([TextNode(id_=doc, text=doc, metadata={"tenant": tenant}, embedding=[1.0, 0.1 * n])
               for n, (doc, tenant) in enumerate(TENANTS.items())])
    for label, flt, want in CASES:
        filters = MetadataFilters(filters=[flt])
        rendered = parse_standard_filters(filters)[1]
        try:
            got = set(store.query(VectorStoreQuery(query_embedding=[1.0, 0.0], similarity_top_k=10,
                                                   filters=filters)).ids)
            outcome = "ok" if got == want else f"WRONG: returned {sorted(got)}, expected {sorted(want)}"
        except Exception as error:
            outcome = f"raised {type(error).__name__}: {' '.join(str(error).split())[:90]}"
        print(f"{label}: sent {rendered!r} -> {outcome}")
    store.client.close()


if __name__ == "__main__":
    main()

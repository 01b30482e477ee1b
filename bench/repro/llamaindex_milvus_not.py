"""llama-index-vector-stores-milvus: `FilterCondition.NOT` is used as a joiner, so NOT of one filter is no NOT at all.

Standalone (llama-index-core, llama-index-vector-stores-milvus, pymilvus and milvus-lite). Seen with
llama-index-vector-stores-milvus 1.2.0: `parse_standard_filters` joins a `MetadataFilters`' parts with
`f" {condition.value} "`, which is right for "and" and "or"; for NOT, one part is returned as it is
(`NOT [classified == 1]` is sent as `classified == 1`, the documents it was asked to exclude) and two parts
become `a not b`. LlamaIndex's in-memory evaluation (SimpleVectorStore) and its Qdrant store read NOT as a negation.

Exit status 1: the bug reproduces (NOT of one filter returns what it negates); 0: negated.

    python bench/repro/llamaindex_milvus_not.py
"""

from __future__ import annotations

import logging
import os
import sys
import tempfile
from importlib.metadata import version

from llama_index.core.schema import TextNode
from llama_index.core.vector_stores.types import FilterCondition, MetadataFilter, MetadataFilters, VectorStoreQuery
from llama_index.vector_stores.milvus import MilvusVectorStore
from llama_index.vector_stores.milvus.utils import parse_standard_filters

logging.disable(logging.CRITICAL)


def main() -> int:
    print(f"llama-index-vector-stores-milvus {version('llama-index-vector-stores-milvus')}, "
          f"pymilvus {version('pymilvus')}, milvus-lite {version('milvus-lite')}")
    store = MilvusVectorStore(uri=os.path.join(tempfile.mkdtemp(), "not.db"), dim=2, collection_name="docs",
                              similarity_metric="COSINE", use_async_client=False)
    store.add([TextNode(id_="public", text="public", metadata={"classified": 0}, embedding=[1.0, 0.1]),
               TextNode(id_="secret", text="secret", metadata={"classified": 1}, embedding=[1.0, 0.2])])
    not_classified = MetadataFilters(filters=[MetadataFilters(filters=[MetadataFilter(key="classified", value=1)])],
                                     condition=FilterCondition.NOT)
    sent = parse_standard_filters(not_classified)[1]
    got = store.query(VectorStoreQuery(query_embedding=[1.0, 0.0], similarity_top_k=10, filters=not_classified)).ids
    store.client.close()
    print(f"NOT (classified == 1): sent {sent!r}, returned {sorted(got)}, expected ['public']")
    if sorted(got) != ["public"]:
        print("VIOLATED: NOT was dropped; the filter returned the documents it was asked to exclude")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""LlamaIndex's filter objects (``MetadataFilters``) through llama-index-vector-stores-milvus's ``MilvusVectorStore``
over Milvus Lite: what an application built on LlamaIndex hands its Milvus store, turned into a boolean expression
by the integration's own ``parse_standard_filters``.

The store keeps its default schema: ``id`` (the node id), ``doc_id``, ``text``, ``embedding`` and Milvus's dynamic
field, so every metadata key is a key of the row's ``$meta`` JSON (missing keys stay missing; nulls, lists and mixed
types are kept). A finding here is the translation or Lite's JSON fields (the ``milvus`` target fuzzes typed fields).
What the integration does, read from llama-index-vector-stores-milvus 1.2.0 and written down once:

* a text value is written ``'v'`` with only ``'`` escaped (``\\'``); a list is Python's ``repr``; a number ``str()``;
* EQ NE GT GTE LT LTE IN are ``k == v``, ``k != v``, ``k > v``..., ``k in [..]``; NIN ``k not in [..]``; CONTAINS
  ``array_contains(k, v)``; ANY ``array_contains_any(k, [..])``; IS_EMPTY ``array_length(k) == 0`` ("returns 0 if
  the field does not exist or is not an array", says its comment; LlamaIndex documents IS_EMPTY as missing, null
  or an empty array);
* the conditions join the parts with `` and ``/`` or `` (NOT with `` not ``: two parts do not parse, and one part
  is sent without its NOT, integration finding 13; negation is pushed to the leaves, as for the other
  integrations); a nested filter is parenthesized; an empty one is ``()``
  (no faithful form); a condition whose value is None is dropped.

The renderer writes what LlamaIndex's operator comments admit (no bool value, no text range, a date as its ISO text,
ANY for text and an OR of CONTAINS for numbers, lists of one type, no empty list). Milvus is three-valued on a
missing key: ``two_valued = False``. Vias: ``search`` (k = the collection size).
"""

from __future__ import annotations

import logging
from typing import Any, ClassVar

from filterproof.adapters.filterlang import Expr
from filterproof.fuzz.generate import Allows
from filterproof.fuzz.target import Docs, Script, Target
from filterproof.fuzz.targets.metadata_filters import DOCUMENTED, LI_IMPORTS, documented_leaf, pushed_down, search_all

COLLECTION = "fuzz"
EVERYTHING = 'id != ""'


_condition = documented_leaf("llamaindex-milvus")


def milvus_metadata_filters(expr: Expr) -> str:
    """The filter as ``MetadataFilters(...)`` source, negation pushed to the leaves (a lone condition in an AND)."""
    return pushed_down(expr, _condition, "llamaindex-milvus")


class LlamaIndexMilvus(Target):
    """``MilvusVectorStore.query(VectorStoreQuery(filters=MetadataFilters(...)))`` over a Lite file of its own."""

    engine_errors: ClassVar[tuple[type[BaseException], ...]] = (Exception,)  # as every built-in (Target)
    name = "llamaindex-milvus"
    packages = ("llama-index-core", "llama-index-vector-stores-milvus", "pymilvus", "milvus-lite")
    allows = Allows(ops=tuple(DOCUMENTED))  # what LlamaIndex documents: no is_null, no exists
    two_valued = False
    vias: ClassVar[tuple[str, ...]] = ("search",)

    def __init__(self) -> None:
        self.store: Any = None
        self.lite: Any = None
        self.ids: list[str] = []

    def render(self, expr: Expr, spelling: int = 0) -> str:
        return milvus_metadata_filters(expr)

    def namespace(self) -> dict[str, Any]:
        from llama_index.core.vector_stores import types
        from llama_index.vector_stores.milvus import MilvusVectorStore  # noqa: F401  # installed() looks for it

        return {"li": types}

    def _open(self) -> None:
        from llama_index.vector_stores.milvus import MilvusVectorStore
        from llama_index.vector_stores.milvus.base import IndexManagement

        from filterproof.adapters.bridges.milvus import build_index
        from filterproof.adapters.bridges.options import MilvusBridgeOptions
        from filterproof.adapters.milvus.lite import LiteDirectory

        for logger in ("pymilvus", "milvus_lite", "grpc._server"):  # Lite logs unimplemented calls it answers
            logging.getLogger(logger).setLevel(logging.CRITICAL)
        self.lite = LiteDirectory(prefix="filterproof-fuzz-li-milvus-")
        self.store = MilvusVectorStore(uri=self.lite.path, collection_name=COLLECTION, dim=2, overwrite=True,
                                       similarity_metric="COSINE", consistency_level="Strong", use_async_client=False,
                                       index_management=IndexManagement.NO_VALIDATION)
        build_index(self.store.client, COLLECTION, self.store.embedding_field, MilvusBridgeOptions())

    def load(self, docs: Docs) -> None:
        from llama_index.core.schema import TextNode

        if self.store is None:
            self._open()
        elif self.ids:
            self.store.client.delete(COLLECTION, filter=EVERYTHING)
        self.ids = list(docs)
        nodes = [TextNode(id_=d, text=d, embedding=[1.0, 0.01 * (i + 1)], metadata=dict(docs[d]))
                 for i, d in enumerate(self.ids)]
        if nodes:
            self.store.add(nodes)

    def ask(self, source: str, via: str = "search", indexed: bool = False) -> set[str]:
        if via not in self.vias:
            raise ValueError(f"unknown via {via!r}")
        return search_all(self.store, self.ids, self.native(source))

    def script(self, docs: Docs) -> Script:
        return Script(f"{LI_IMPORTS}\nimport logging\nimport tempfile\nfrom llama_index.core.schema import TextNode\n"
                      "from llama_index.vector_stores.milvus import MilvusVectorStore", _SETUP, "ask_llamaindex_milvus")

    def close(self) -> None:
        if self.store is not None:
            self.store.client.close()
            self.store = None
        if self.lite is not None:
            self.lite.remove()
            self.lite = None
        self.ids = []


_SETUP = """
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
"""

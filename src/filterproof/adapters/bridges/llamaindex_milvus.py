"""``llamaindex-milvus``: the policy through LlamaIndex's ``MilvusVectorStore`` on Milvus Lite, as ``MetadataFilters``.

``MilvusVectorStore`` (llama-index-vector-stores-milvus 1.2) creates a collection of
``id`` (the node id, VARCHAR primary key), ``doc_id``, ``text`` and ``embedding``,
with Milvus's dynamic field on: every metadata key of a node is a key of the row's
``$meta`` JSON (and again inside ``_node_content``), which a filter names as a field.
The bridge keeps that default (``scalar_field_names`` cannot declare an ARRAY) and
stores the ``milvus`` backend's fields (``milvus.expr.stored_fields``: every string
escaped by ``expr.text``, a malformed document ``""``/``0``/``[]`` with its reason in
``problem``); the node id is ``expr.text`` of our id, read back from the node.

The policy is ``MetadataFilters`` over those keys, one function per clause, in the
engine compiler's order:

================== ==================================== ======================================
clause             MetadataFilter                       rendered by MilvusVectorStore
================== ==================================== ======================================
well-formed        ``problem == ""``                    ``problem == ''``
tenant, status     EQ                                   ``tenant == '<value>'``
valid_from/until   LTE / GT (integers YYYYMMDD)         ``valid_from <= 20260101``
groups             ANY                                  ``array_contains_any(groups, <repr>)``
active revision    IN                                   ``revision_key in <repr>``
nothing            ``fp_never == 1`` (no row has it)    (never an empty IN, never an empty group)
================== ==================================== ======================================

The integration renders a scalar string as ``'value'`` with only ``'`` escaped, and a
list as Python's ``repr``; Milvus Lite then reads the backslash escapes of both
(``bench/repro/llamaindex_milvus_filters.py``). ``expr.text`` stores every backslash and
control character of a name as a backslash escape, so such a name reaches a scalar clause
changed: an escape Milvus refuses (the query raises) or one it reads (the tenant
``x\\x0009y``, stored ``x\\\\x0009y``, is read as ``x\\x0009y``, the stored spelling of
x TAB y: a cross-tenant read). A list holding a character ``repr`` writes as ``\\xNN``/``\\uNNNN`` (a no-break
or zero-width space) is refused, in a filter and in ``delete_nodes(node_ids)``. The
bridge works around neither: ``renderable`` says which names it carries, and the tests
hold the rest as strict xfails (``tests/support/milvus_bridge_checks.py``,
``tests/adapters/test_milvus_bridges.py``).

Scores: COSINE, reported as the cosine itself. The store creates its collection without
an index (``IndexManagement.NO_VALIDATION``) and the bridge builds the vector index
(``shared.build_index``): the store's own creation waits 0.5 s in pymilvus, for nothing a
filter depends on. A reset to the same width empties the collection (``delete_nodes`` by
filter) instead of creating one.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import date
from typing import Any

import numpy as np
from llama_index.core.schema import TextNode
from llama_index.core.vector_stores.types import FilterCondition, FilterOperator, MetadataFilter, MetadataFilters
from llama_index.vector_stores.milvus import MilvusVectorStore
from llama_index.vector_stores.milvus.base import IndexManagement

from filterproof.adapters import textcodec
from filterproof.adapters.base import Record
from filterproof.adapters.bridges import milvus as shared
from filterproof.adapters.bridges.core import DOC_PREFIX
from filterproof.adapters.bridges.llamaindex_stores import _LlamaIndexBridge
from filterproof.adapters.bridges.options import MilvusBridgeOptions
from filterproof.adapters.chroma.where import NEVER
from filterproof.adapters.milvus import expr as mx
from filterproof.policy import ACTIVE_STATUS, PolicyFilter, Principal, matchable

NODE_ID = "id"
"""``MilvusVectorStore``'s primary field (``MILVUS_ID_FIELD``)."""

# -- the policy as MetadataFilters over the stored fields (one function per clause) --------------------


def renderable(value: str) -> bool:
    """Whether ``MilvusVectorStore`` carries this name to Milvus Lite unchanged, as a scalar and in a list: no
    backslash once stored (``expr.text`` writes every backslash and control character as one) and nothing
    Python's ``repr`` escapes (a no-break, zero-width or ideographic space, a BOM, a soft hyphen...)."""
    stored = mx.text(value)
    return "\\" not in stored and stored.isprintable()



def equals(key: str, value: str | int) -> MetadataFilter:
    return MetadataFilter(key=key, operator=FilterOperator.EQ, value=value)


def match_nothing() -> MetadataFilter:
    return equals(NEVER, 1)


def tenant_clause(principal: Principal) -> MetadataFilter:
    return equals(mx.TENANT, mx.text(principal.tenant)) if matchable(principal.tenant) else match_nothing()


def groups_clause(principal: Principal) -> MetadataFilter:
    distinct = [mx.text(g) for g in dict.fromkeys(principal.groups) if matchable(g)]
    if not distinct:
        return match_nothing()
    return MetadataFilter(key=mx.GROUPS, operator=FilterOperator.ANY, value=distinct)


def revision_clause(keys: Sequence[str]) -> MetadataFilter:
    """``keys`` as stored (``expr.text`` of ``active_keys``)."""
    return MetadataFilter(key=mx.KEY, operator=FilterOperator.IN, value=list(keys)) if keys else match_nothing()


def date_clauses(as_of: date) -> list[MetadataFilter]:
    day = mx.date_int(as_of)
    return [MetadataFilter(key=mx.VALID_FROM, operator=FilterOperator.LTE, value=day),
            MetadataFilter(key=mx.VALID_UNTIL, operator=FilterOperator.GT, value=day)]


def compile_filters(where: PolicyFilter, keys: Sequence[str]) -> MetadataFilters:
    if not isinstance(where, PolicyFilter):
        raise TypeError(f"expected a PolicyFilter, got {type(where).__name__}")
    return MetadataFilters(filters=[
        equals(mx.PROBLEM, ""), tenant_clause(where.principal), equals(mx.STATUS, ACTIVE_STATUS),
        *date_clauses(where.as_of), groups_clause(where.principal), revision_clause(keys),
    ], condition=FilterCondition.AND)


# -- the bridge ----------------------------------------------------------------------------------------


class LlamaIndexMilvusBridge(shared.LiteBridge, _LlamaIndexBridge):
    """LlamaIndex's ``MilvusVectorStore`` on Milvus Lite in a temporary directory (COSINE, FLAT by default)."""

    name = "llamaindex-milvus"
    Options = MilvusBridgeOptions
    options: MilvusBridgeOptions

    def __init__(self, options: MilvusBridgeOptions | Mapping[str, Any] | None = None) -> None:
        super().__init__(options)
        self._open_lite()
        self.store: MilvusVectorStore | None = None

    def _new_store(self, dim: int) -> MilvusVectorStore:
        """A new store, or (same width) the same one emptied: a new collection costs ~0.5 s of index waits."""
        if self.store is not None and dim == self._width:
            self.store.delete_nodes(filters=MetadataFilters(filters=[
                MetadataFilter(key=NODE_ID, operator=FilterOperator.NE, value="")]))
            return self.store
        self._release()
        self._width = dim
        # use_async_client=False: no async call is made, and its client would be one more channel to close.
        # NO_VALIDATION: the store creates the collection, the bridge its index (shared.build_index: 0.5 s less).
        store = MilvusVectorStore(uri=self._lite.path, collection_name=shared.COLLECTION, dim=dim, overwrite=True,
                                  similarity_metric="COSINE", consistency_level="Strong", use_async_client=False,
                                  index_management=IndexManagement.NO_VALIDATION)
        shared.build_index(store.client, shared.COLLECTION, store.embedding_field, self.options)
        return store

    def _metadata(self, record: Record) -> dict[str, Any]:
        return mx.stored_fields(record.metadata)

    def _node_id(self, doc_id: str) -> str:
        return shared.stored_id(doc_id)

    def _doc_id(self, node: Any) -> str:
        return textcodec.unescape(node.node_id)

    def _refusal(self, record: Record) -> str | None:
        return shared.row_refusal(NODE_ID, record.id, {})  # the metadata is JSON ($meta), which has no such limit

    def _add(self, records: Sequence[Record]) -> None:
        self.store.add([TextNode(id_=self._node_id(r.id), text=DOC_PREFIX + str(n), metadata=self._metadata(r),
                                 embedding=np.asarray(r.vector, dtype=np.float32).tolist())
                        for n, r in enumerate(records)])

    def _natives(self, where: PolicyFilter) -> list[Any]:
        return [compile_filters(where, self._keys_of(where.active, where.principal.tenant))]

    def _cosine(self, similarity: float) -> float:
        return similarity

    def _release(self) -> None:
        self._release_clients(self.store.client if self.store is not None else None)
        self.store = None

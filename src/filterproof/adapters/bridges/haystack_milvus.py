"""``haystack-milvus``: the policy through Haystack's Milvus integration (milvus-haystack), in Haystack's filters.

``MilvusDocumentStore`` creates a collection of ``id`` (VARCHAR primary key), ``text`` and ``vector`` with Milvus's
dynamic field on, so each meta key is a key of the row's ``$meta`` JSON, named by a filter as a field. Its filter
converter writes a string value between double quotes as it is, and ``delete_documents`` writes each id between
single quotes as it is (integration finding 14: a tenant named ``x" or fp_tenant != "`` reads every tenant, and
deleting the id ``x','y`` deletes ``y`` too). So every name the bridge stores or asks for is the hex of its UTF-8
bytes (``haystack_filters.hex_text``): the id, the tenant, the status, the revision key; groups are keys named so
(``hex``) and dates integers. Nothing a filter or a delete carries can then hold a quote or a backslash.

Milvus Lite in a temporary directory of its own (``milvus.LiteBridge``), removed on close; pymilvus >= 2.6.10 no
longer registers the ORM alias the store opens its collection under, so the bridge registers it first, as an
application must (the same as langchain-milvus). Scores: COSINE, which the store reports as ``(cosine + 1) / 2``.
A reset to the same width empties the collection; another width drops it and creates it as milvus-haystack would
(``_collection``), with the index built without pymilvus's ORM waits.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from filterproof.adapters.base import Record
from filterproof.adapters.bridges import milvus as shared
from filterproof.adapters.bridges.flat import Groups, node_metadata
from filterproof.adapters.bridges.haystack_filters import compile_filter, from_hex_text, hex_text
from filterproof.adapters.bridges.haystack_stores import HaystackBridge
from filterproof.adapters.bridges.options import HaystackMilvusOptions
from filterproof.adapters.chroma.where import RAW
from filterproof.adapters.milvus.limits import refusal
from filterproof.policy import PolicyFilter

COLLECTION = "filterproof_haystack"


class HaystackMilvusBridge(shared.LiteBridge, HaystackBridge):
    """Haystack's ``MilvusDocumentStore`` on Milvus Lite, searched by ``MilvusEmbeddingRetriever``."""

    name = "haystack-milvus"
    Options = HaystackMilvusOptions
    options: HaystackMilvusOptions
    groups: Groups = "hex"

    def __init__(self, options: HaystackMilvusOptions | Mapping[str, Any] | None = None) -> None:
        super().__init__(options)
        self._open_lite()

    def _document_store(self, dim: int) -> Any:
        from milvus_haystack import MilvusDocumentStore

        if self._client is None:
            self._connect()
        self._width = dim
        self._collection(dim)
        return MilvusDocumentStore(collection_name=COLLECTION, connection_args={"uri": self._lite.path},
                                   consistency_level="Strong", index_params=shared.index_params(self.options),  # type: ignore[arg-type]
                                   search_params={"metric_type": "COSINE", "params": {}})

    def _collection(self, dim: int) -> None:
        """The collection milvus-haystack creates at its first write (its ``_create_collection``: ``text``, ``id``,
        ``vector``, the dynamic field), created here with its index built by ``shared.build_index``: the store's
        own creation waits on the index in pymilvus's ORM (about 0.6 s a collection, for nothing a filter depends on);
        the store then opens it as an existing collection."""
        from pymilvus import DataType

        client = self._client
        if client.has_collection(COLLECTION):
            client.drop_collection(COLLECTION)
        schema = client.create_schema(auto_id=False, enable_dynamic_field=True)
        schema.add_field("text", DataType.VARCHAR, max_length=65_535)
        schema.add_field("id", DataType.VARCHAR, is_primary=True, max_length=65_535)
        schema.add_field("vector", DataType.FLOAT_VECTOR, dim=dim)
        client.create_collection(COLLECTION, schema=schema, consistency_level="Strong")
        shared.build_index(client, COLLECTION, "vector", self.options)  # type: ignore[arg-type]

    def _create(self, dim: int) -> None:
        if self.store is None or dim != self._width:
            super()._create(dim)  # _drop, then a new store, retriever and pipeline
        elif self.store.col is not None:  # the same collection, emptied; the retriever and pipeline stay
            self.store.col.delete('id != ""')

    def _drop(self) -> None:
        self.store = None  # the client, its alias and the Lite directory stay: close lets them go

    def _new_retriever(self, store: Any) -> Any:
        from milvus_haystack import MilvusEmbeddingRetriever

        return MilvusEmbeddingRetriever(document_store=store)

    def _metadata(self, record: Record) -> dict[str, Any]:
        stored = node_metadata(record.id, record.metadata, self.groups)
        stored.pop(RAW, None)  # the raw JSON filters nothing, and could hold what gRPC cannot carry
        return {key: hex_text(value) if isinstance(value, str) else value for key, value in stored.items()}

    def _add(self, records: Sequence[Record]) -> None:
        from haystack import Document

        self.store.write_documents([Document(id=hex_text(r.id), content="fp", embedding=[float(x) for x in r.vector],
                                             meta=self._metadata(r)) for r in records])

    def _remove(self, ids: Sequence[str]) -> None:
        self.store.delete_documents([hex_text(i) for i in ids])

    def _refusal(self, record: Record) -> str | None:
        return refusal({"id": hex_text(record.id)})  # the primary key: a VARCHAR of 65,535

    def _natives(self, where: PolicyFilter) -> list[Any]:
        return [compile_filter(where, self.groups, text=hex_text)]

    def _query(self, vector: Any, k: int, native: Any | None, path: Any = None) -> list[tuple[str, float | None]]:
        return [(from_hex_text(doc_id), score)
                for doc_id, score in super()._query(vector, k, native, path)]

    def _cosine(self, score: float) -> float:
        return 2.0 * score - 1.0  # the store maps COSINE to (cosine + 1) / 2

    def _release(self) -> None:
        self._release_clients()
        self.store = None


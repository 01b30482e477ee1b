"""``langchain-milvus``: the policy through ``langchain_milvus.Milvus`` over Milvus Lite, as a raw ``expr=`` string.

The integration (langchain-milvus 0.3) stores metadata as typed fields, not JSON: on a
new collection it creates one field per key of the *first* ``add_texts`` metadata dict
(types inferred, or taken from ``metadata_schema``; a list cannot be inferred), and it
drops without a word every later key that is not a field. Every document therefore
carries the same keys, the ``milvus`` backend's (``milvus.expr.stored_fields``), each of
the engine's type (``METADATA_SCHEMA``: VARCHAR, INT64, ARRAY<VARCHAR>, BOOL): the
collection is the engine adapter's but for the framework's own ``pk``, ``text`` and
``vector``, and the filter is the engine's compiler's output (``milvus.expr.compile_expr``)
passed as ``expr=``, the integration's documented filter. A search returns the row's
fields as ``Document.metadata``; our id is ``pk`` (escaped).

The bridge creates that collection itself, exactly as the first batch would have it
(``_schema``), with its index built as ``shared.build_index`` does, and hands it to
``Milvus`` (langchain-milvus opens an existing collection as it is): langchain-milvus's
own creation waits 0.5 s in pymilvus's index wait for each store, which is most of a
conformance class's time and nothing a filter depends on.

Three integration facts the bridge works with:

* ``Milvus.col`` opens a pymilvus ORM ``Collection`` under the client's alias, which
  pymilvus >= 2.6.10 no longer registers (``ConnectionNotExistException`` at the first
  ``add_texts``, or at ``Milvus()`` on an existing collection; langchain-milvus #128,
  #130, open PR #132): the bridge registers the alias with ``connections.connect``, as an
  application must.
* ``delete(ids=...)`` builds ``pk in <repr of the list>``; Milvus Lite cannot read the
  ``\\xNN``/``\\uNNNN`` escapes of ``repr``, so an id holding a no-break space, a
  zero-width space or any other character ``repr`` escapes is not deleted, and
  ``delete`` returns False with an error logged instead of raising
  (``bench/repro/langchain_milvus_delete.py``). The bridge deletes with its own escaped
  expression (``delete(expr=...)``) and raises when ``delete`` reports a failure. MMR
  fetches the candidates' vectors through the same ``repr`` (it raises for such an id).
* Scores: with COSINE, ``similarity_search_with_score_by_vector`` returns the cosine and
  the relevance function is (cosine + 1) / 2, so cosine = 2 x relevance - 1.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from langchain_core.documents import Document
from langchain_milvus import Milvus
from pymilvus import DataType, MilvusClient

from filterproof.adapters import textcodec
from filterproof.adapters.base import AdapterError, Record
from filterproof.adapters.bridges import milvus as shared
from filterproof.adapters.bridges.langchain_stores import ShimEmbeddings, _LangChainBridge
from filterproof.adapters.bridges.options import MilvusBridgeOptions
from filterproof.adapters.milvus import expr as mx
from filterproof.adapters.milvus.limits import MAX_CAPACITY, MAX_LENGTH
from filterproof.policy import PolicyFilter

PK, TEXT, VECTOR = "pk", "text", "vector"
"""langchain-milvus's own fields (the defaults of ``primary_field``, ``text_field``, ``vector_field``)."""
ID_BATCH = 1_000
VARCHAR = {"dtype": DataType.VARCHAR, "kwargs": {"max_length": MAX_LENGTH}}
METADATA_SCHEMA: dict[str, dict[str, Any]] = {  # langchain-milvus's metadata_schema form
    **{name: VARCHAR for name in mx.TEXT_FIELDS},
    **{name: {"dtype": DataType.INT64} for name in mx.INT_FIELDS},
    mx.GROUPS: {"dtype": DataType.ARRAY, "kwargs": {"element_type": DataType.VARCHAR, "max_capacity": MAX_CAPACITY,
                                                     "max_length": MAX_LENGTH}},
    mx.CURRENT: {"dtype": DataType.BOOL},
}
"""The engine adapter's field types (as langchain-milvus's ``metadata_schema`` would take them)."""


class LangChainMilvusBridge(shared.LiteBridge, _LangChainBridge):
    """``langchain_milvus.Milvus`` on Milvus Lite in a temporary directory (COSINE, FLAT by default)."""

    name = "langchain-milvus"
    Options = MilvusBridgeOptions
    options: MilvusBridgeOptions
    filter_keyword = "expr"
    dynamic_field = False
    """True: metadata goes to the dynamic JSON field as given (the matrix's probe store), no schema."""

    def __init__(self, options: MilvusBridgeOptions | Mapping[str, Any] | None = None) -> None:
        super().__init__(options)
        self._open_lite()
        self.store: Milvus | None = None

    def _create(self, dim: int) -> None:
        """A new store on a new collection, or (same width) the same one emptied through the store."""
        if self.store is not None and dim == self._width:
            if not self.store.delete(expr=f'{PK} != ""'):
                raise AdapterError(f"{self.name}: could not empty the collection (logged by langchain_milvus)")
            return
        self._release()
        client = self._connect()  # the store's client shares its connection
        self._width = dim
        if client.has_collection(shared.COLLECTION):  # another width's
            client.drop_collection(shared.COLLECTION)
        client.create_collection(shared.COLLECTION, schema=self._schema(client, dim), consistency_level="Strong")
        shared.build_index(client, shared.COLLECTION, VECTOR, self.options)
        self.store = Milvus(ShimEmbeddings(self.keys), collection_name=shared.COLLECTION,
                            connection_args={"uri": self._lite.path}, consistency_level="Strong",
                            index_params=shared.index_params(self.options), auto_id=False,
                            enable_dynamic_field=self.dynamic_field)
        if self.store.alias != self._alias:
            raise AdapterError(f"{self.name}: langchain-milvus opened a connection of its own ({self.store.alias})")

    def _schema(self, client: MilvusClient, dim: int) -> Any:
        """What langchain-milvus creates from a first batch of our rows (its ``pk``, ``text`` and ``vector``, one
        field per stored key, typed as ``METADATA_SCHEMA`` says), or only its own fields and the dynamic one."""
        schema = client.create_schema(auto_id=False, enable_dynamic_field=self.dynamic_field)
        schema.add_field(TEXT, DataType.VARCHAR, max_length=MAX_LENGTH)
        schema.add_field(PK, DataType.VARCHAR, is_primary=True, max_length=MAX_LENGTH)
        schema.add_field(VECTOR, DataType.FLOAT_VECTOR, dim=dim)
        for name, spec in ({} if self.dynamic_field else METADATA_SCHEMA).items():
            schema.add_field(name, spec["dtype"], **spec.get("kwargs", {}))
        return schema

    def _metadata(self, record: Record) -> dict[str, Any]:
        return mx.stored_fields(record.metadata)

    def _refusal(self, record: Record) -> str | None:
        return shared.row_refusal(PK, record.id, self._metadata(record))

    def _store_ids(self, ids: Sequence[str]) -> list[str]:
        return [shared.stored_id(i) for i in ids]

    def _texts(self, records: Sequence[Record]) -> list[str]:
        return shared.text_keys(self.keys, [r.vector for r in records])

    def _remove(self, ids: Sequence[str]) -> None:
        """``delete(expr=...)`` with every id escaped (not ``delete(ids=...)``: see the module)."""
        for start in range(0, len(ids), ID_BATCH):
            if not self.store.delete(expr=shared.id_filter(PK, ids[start:start + ID_BATCH])):
                raise AdapterError(f"{self.name}: delete of {len(ids)} documents failed (logged by "
                                   "langchain_milvus); refusing to go on with them still searchable")

    def _doc_id(self, doc: Document) -> str:
        return textcodec.unescape(str(doc.metadata[PK]))

    def _natives(self, where: PolicyFilter) -> list[Any]:
        return [mx.compile_expr(where, self._keys_of(where.active, where.principal.tenant))]

    def _plain(self, vector: list[float], k: int, native: Any) -> list[tuple[Document, float]]:
        extra = {} if native is None else {self.filter_keyword: native}
        return self.store.similarity_search_with_score_by_vector(vector, k=k, **extra)

    def _cosine_of_relevance(self, relevance: float) -> float:
        return 2.0 * relevance - 1.0

    def _release(self) -> None:
        """Close the clients (ours and the store's; its async one holds no server state) and the ORM alias."""
        self._release_clients(self.store.client if self.store is not None else None)
        self.store, self._width = None, 0

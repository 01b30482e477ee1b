"""``haystack-pgvector``: the policy through Haystack's pgvector integration (pgvector-haystack), in Haystack's filters.

``PgvectorDocumentStore`` keeps a document's meta in one JSONB column and reads a filter's key with ``meta->>'key'``,
cast by the Python type of the compared value (``::integer`` for an int, none for a string), so the flat encoding's
integer dates compare as numbers and the rest as text. Groups are one key per group (``hex``): its ``in`` on a list
field would compare the list's JSON text. A table of its own (``filterproof``) on a database of its own, dropped on
close (``bridges.pgvector.Database``: the ``pgvector`` backend's throwaway server unless ``dsn`` or
``$PGVECTOR_DSN`` names one); exact nearest neighbours (its ``search_strategy`` default), ``1 - cosine distance`` as
the score. Not to be shared between threads: its one cursor hands a retrieval another's rows
(``bench/repro/haystack_pgvector_shared_store.py``).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from filterproof.adapters.base import Capabilities, Record
from filterproof.adapters.bridges.flat import Groups
from filterproof.adapters.bridges.haystack_stores import HaystackBridge
from filterproof.adapters.bridges.options import HaystackPgOptions
from filterproof.adapters.bridges.pgvector import OwnDatabase, id_refusal


class HaystackPgvectorBridge(OwnDatabase, HaystackBridge):
    """Haystack's ``PgvectorDocumentStore`` searched by ``PgvectorEmbeddingRetriever``."""

    name = "haystack-pgvector"
    Options = HaystackPgOptions
    options: HaystackPgOptions
    groups: Groups = "hex"
    engine_capabilities = Capabilities(native_filter=True, exact=True, persistent=False, lifecycle=True,
                                       thread_safe=False)
    """``thread_safe=False``: the store runs every retrieval on one cursor (execute, then fetch), so threads sharing
    it read each other's rows (findings/integration.md#finding-16); an application opens a store per thread."""

    def __init__(self, options: HaystackPgOptions | Mapping[str, Any] | None = None) -> None:
        super().__init__(options)
        self._open_server()

    def _document_store(self, dim: int) -> Any:
        from haystack.utils import Secret
        from haystack_integrations.document_stores.pgvector import PgvectorDocumentStore

        database = self._new_database()
        return PgvectorDocumentStore(connection_string=Secret.from_token(database.dsn), table_name="filterproof",
                                     embedding_dimension=dim, vector_function="cosine_similarity",
                                     search_strategy="exact_nearest_neighbor")

    def _new_retriever(self, store: Any) -> Any:
        from haystack_integrations.components.retrievers.pgvector import PgvectorEmbeddingRetriever

        return PgvectorEmbeddingRetriever(document_store=store)

    def _refusal(self, record: Record) -> str | None:
        return id_refusal(record.id)  # its id column: VARCHAR, as given

    def close(self) -> None:
        if self.store is not None:
            store, self.store = self.store, None
            store.close()
        self._drop_database()

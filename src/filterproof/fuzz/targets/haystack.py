"""Haystack's filter dicts through its document stores: ``haystack-qdrant`` (qdrant-haystack over qdrant-client's
local mode) and ``haystack-memory`` (Haystack's own ``InMemoryDocumentStore``, its filters' reference semantics).

The neutral filter is rendered into the dict an application hands a Haystack store (``haystack_dicts``: what the
language can and cannot say, and why); each integration translates it into its engine's filter, so a finding is
the integration's translation (or the engine under it: ``qdrant-local`` fuzzes that alone). The two targets (and
``haystack-chroma``, ``haystack_chroma``) are one family, ``haystack``: run together, the fuzzer diffs every answer
of an integration against the in-memory store, which evaluates the dict with ``haystack.utils.filters`` itself.

``haystack-memory`` is registered beside ``haystack-qdrant`` (the store descriptor's second fuzz target, as
``llamaindex-lancedb`` hangs off LanceDB's): it is no backend of its own (the reference is the suite's oracle),
only the side of the differential that says what Haystack means.

Vias, each what an application calls: ``search`` (the store's embedding retriever component, ``run(query_embedding,
filters, top_k=every document)``), ``filter`` (``filter_documents(filters)``) and ``count``
(``count_documents_by_filter(filters)``). Both stores read NOT as the complement (Python's ``not``; Qdrant's
``must_not``): two-valued.
"""

from __future__ import annotations

import os
from abc import abstractmethod
from typing import Any, ClassVar

from filterproof.adapters.filterlang import Expr
from filterproof.fuzz.generate import Allows
from filterproof.fuzz.target import Docs, Script, Target
from filterproof.fuzz.targets.haystack_dicts import COMPARISONS, SPELLINGS, haystack_source

os.environ.setdefault("HAYSTACK_TELEMETRY_ENABLED", "False")  # no network: Haystack reads it when first imported
QUERY = [1.0, 0.0]
"""The query vector: every document's embedding is near it (``embedding``), so a search with k = all finds all."""


def embedding(i: int) -> list[float]:
    return [1.0, 0.01 * (i + 1)]


class HaystackTarget(Target):
    """A Haystack document store and its embedding retriever, reloaded per world: what the two targets share."""

    engine_errors: ClassVar[tuple[type[BaseException], ...]] = (Exception,)  # as every built-in (Target)
    allows = Allows(ops=tuple(COMPARISONS))  # what Haystack's comparisons say (haystack_dicts.NO_FORM: the rest)
    two_valued = True
    vias: ClassVar[tuple[str, ...]] = ("search", "filter", "count")
    spellings = SPELLINGS
    equivalent = (1,)  # NOT [A, B] and NOT [AND [A, B]]: Haystack's NOT is "not all of its conditions"

    def __init__(self) -> None:
        self.store: Any = None
        self.retriever: Any = None
        self.ids: list[str] = []

    def render(self, expr: Expr, spelling: int = 0) -> str:
        return haystack_source(expr, spelling, self.name)

    @abstractmethod
    def open_store(self) -> tuple[Any, Any]:
        """A new, empty store and its embedding retriever."""

    @abstractmethod
    def empty(self) -> None:
        """Delete every document of the store."""

    def load(self, docs: Docs) -> None:
        from haystack import Document
        from haystack.document_stores.types import DuplicatePolicy

        if self.store is None:
            self.store, self.retriever = self.open_store()
        elif self.ids:
            self.empty()
        self.ids = list(docs)
        documents = [Document(id=d, content=d, embedding=embedding(i), meta=dict(docs[d]))
                     for i, d in enumerate(self.ids)]
        if documents:
            self.store.write_documents(documents, policy=DuplicatePolicy.OVERWRITE)

    def ask(self, source: str, via: str = "search", indexed: bool = False) -> set[str]:
        if via not in self.vias:
            raise ValueError(f"unknown via {via!r}")
        if not self.ids:
            return set()
        native = self.native(source)
        if via == "count":  # a count answers with that many placeholders: the paths oracle compares sizes
            return {f"#{i}" for i in range(self.store.count_documents_by_filter(native))}
        if via == "filter":
            return {d.id for d in self.store.filter_documents(native)}
        found = self.retriever.run(query_embedding=QUERY, filters=native, top_k=len(self.ids))["documents"]
        return {d.id for d in found}


class HaystackQdrant(HaystackTarget):
    """``QdrantDocumentStore(location=":memory:")`` and ``QdrantEmbeddingRetriever`` (qdrant-haystack)."""

    name = "haystack-qdrant"
    packages = ("haystack-ai", "qdrant-haystack", "qdrant-client")

    def namespace(self) -> dict[str, Any]:
        from haystack_integrations.document_stores.qdrant import QdrantDocumentStore  # noqa: F401  # installed()

        return {}

    def open_store(self) -> tuple[Any, Any]:
        from haystack_integrations.components.retrievers.qdrant import QdrantEmbeddingRetriever
        from haystack_integrations.document_stores.qdrant import QdrantDocumentStore

        store = QdrantDocumentStore(location=":memory:", index="fuzz", embedding_dim=2, similarity="cosine",
                                    recreate_index=True, progress_bar=False)
        return store, QdrantEmbeddingRetriever(document_store=store)

    def empty(self) -> None:
        self.store.delete_all_documents()

    def script(self, docs: Docs) -> Script:
        return Script("import os", _QDRANT_SETUP, "ask_haystack_qdrant")

    def close(self) -> None:
        client = getattr(self.store, "_client", None)  # created on first use, and closed by no method of the store
        if client is not None:
            client.close()
        self.store = self.retriever = None
        self.ids = []


class HaystackMemory(HaystackTarget):
    """Haystack's ``InMemoryDocumentStore`` and ``InMemoryEmbeddingRetriever``: ``haystack.utils.filters`` itself."""

    name = "haystack-memory"
    packages = ("haystack-ai",)
    # One kind per field: a range over a text that is no ISO date (a text in `n`) raises FilterError for the whole
    # query, as Haystack documents ("Strings are only comparable if they are ISO formatted dates").
    allows = Allows(mixed=False, ops=tuple(COMPARISONS))

    def namespace(self) -> dict[str, Any]:
        from haystack.document_stores.in_memory import InMemoryDocumentStore  # noqa: F401  # installed()

        return {}

    def open_store(self) -> tuple[Any, Any]:
        from haystack.components.retrievers.in_memory import InMemoryEmbeddingRetriever
        from haystack.document_stores.in_memory import InMemoryDocumentStore

        store = InMemoryDocumentStore()
        return store, InMemoryEmbeddingRetriever(document_store=store)

    def empty(self) -> None:
        self.store.delete_all_documents()

    def script(self, docs: Docs) -> Script:
        return Script("import os", _MEMORY_SETUP, "ask_haystack_memory")

    def close(self) -> None:
        self.store = self.retriever = None
        self.ids = []


ASK_SCRIPT = """

def ask_{name}(native, via, indexed):
    if not DOCS:
        return set()
    if via == "count":
        return {{f"#{{i}}" for i in range({store}.count_documents_by_filter(native))}}
    if via == "filter":
        return {{d.id for d in {store}.filter_documents(native)}}
    found = {retriever}.run(query_embedding=[1.0, 0.0], filters=native, top_k=len(DOCS))["documents"]
    return {{d.id for d in found}}
"""
DOCUMENTS_SCRIPT = """\
hs_documents = [Document(id=d, content=d, embedding=[1.0, 0.01 * (i + 1)], meta=dict(DOCS[d]))
                for i, d in enumerate(DOCS)]"""
_QDRANT_SETUP = f"""
os.environ.setdefault("HAYSTACK_TELEMETRY_ENABLED", "False")  # no network: read when haystack is first imported
from haystack import Document  # noqa: E402
from haystack_integrations.components.retrievers.qdrant import QdrantEmbeddingRetriever  # noqa: E402
from haystack_integrations.document_stores.qdrant import QdrantDocumentStore  # noqa: E402

hs_qdrant = QdrantDocumentStore(location=":memory:", index="fuzz", embedding_dim=2, similarity="cosine",
                                recreate_index=True, progress_bar=False)
{DOCUMENTS_SCRIPT}
hs_qdrant.write_documents(hs_documents)
hs_qdrant_retriever = QdrantEmbeddingRetriever(document_store=hs_qdrant)
""" + ASK_SCRIPT.format(name="haystack_qdrant", store="hs_qdrant", retriever="hs_qdrant_retriever")
_MEMORY_SETUP = f"""
os.environ.setdefault("HAYSTACK_TELEMETRY_ENABLED", "False")  # no network: read when haystack is first imported
from haystack import Document  # noqa: E402
from haystack.components.retrievers.in_memory import InMemoryEmbeddingRetriever  # noqa: E402
from haystack.document_stores.in_memory import InMemoryDocumentStore  # noqa: E402

hs_memory = InMemoryDocumentStore()
{DOCUMENTS_SCRIPT}
hs_memory.write_documents(hs_documents)
hs_memory_retriever = InMemoryEmbeddingRetriever(document_store=hs_memory)
""" + ASK_SCRIPT.format(name="haystack_memory", store="hs_memory", retriever="hs_memory_retriever")

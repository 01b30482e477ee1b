"""LlamaIndex's filter objects (``MetadataFilters``) through llama-index-vector-stores-chroma, over an in-process
Chroma: what an application built on LlamaIndex hands its Chroma store, translated into a ``where`` dict by the
integration's own ``_to_chroma_filter``.

A finding here is the framework's translation or its storage (the ``chroma`` target fuzzes the engine alone).
What the integration does, read from llama-index-vector-stores-chroma 0.6.0 and written down once:

* operators EQ NE GT GTE LT LTE IN NIN become ``$eq $ne $gt $gte $lt $lte $in $nin``; any other (CONTAINS, ANY,
  IS_EMPTY...) raises ValueError, and so does the condition NOT: negation is pushed to the leaves as the
  ``chroma`` target does (EQ/NE, IN/NIN and a range and its opposite swap; De Morgan), which is how a user
  says NOT here;
* ``flat_metadata`` (the default) refuses a list value at ``add``: no list field, hence no contains;
* ``add`` stores an explicit null as the empty string ``""``: the store holds no null, and a null field is
  text to every operator (EQ "" selects it; the neutral evaluator leaves conditions on a null unknown);
* an empty ``MetadataFilters`` is ``{}``, no filter at all, so an empty AND or OR has no faithful form;
  one child is rendered as itself, several as ``$and``/``$or``;
* ``MetadataFilter.value`` is a strict int, float, text or a list of one of them: no bool, no date (a date is
  stored as its ISO text, which Chroma's ranges refuse); Chroma refuses an empty or mixed ``$in``.

Vias: ``search`` (a query embedding, k = the collection size), ``get`` (no embedding: the store's ``get`` with
the same ``where``) and ``mmr`` (``VectorStoreQueryMode.MMR``, every candidate fetched and kept).
"""

from __future__ import annotations

import tempfile
from datetime import date
from typing import Any, ClassVar

from filterproof.adapters.filterlang import RANGE_OPS, Cond, Expr, Unsupported
from filterproof.fuzz.generate import Allows
from filterproof.fuzz.target import Docs, Script, Target
from filterproof.fuzz.targets.metadata_filters import LI_IMPORTS, metadata_filter, pushed_down

OPERATORS = {"eq": "EQ", "ne": "NE", "in": "IN", "nin": "NIN", "gt": "GT", "gte": "GTE", "lt": "LT", "lte": "LTE"}


def chroma_metadata_filters(expr: Expr) -> str:
    """The filter as ``MetadataFilters(...)`` source, negation pushed to the leaves (a lone condition in an AND)."""
    return pushed_down(expr, _condition, "llamaindex-chroma")


def _condition(c: Cond, op: str) -> str:
    if op not in OPERATORS:
        raise Unsupported(f"llamaindex-chroma: no operator for {op} (the integration maps EQ NE GT GTE LT LTE "
                          "IN NIN; flat metadata holds no list)")
    values = c.value if isinstance(c.value, tuple) else (c.value,)
    if any(isinstance(v, bool) for v in values):
        raise Unsupported("llamaindex-chroma: MetadataFilter's value is a strict int, float or text (no bool)")
    if any(isinstance(v, date) for v in values):
        raise Unsupported("llamaindex-chroma: no date type (a date is stored as text, which ranges refuse)")
    if isinstance(c.value, tuple) and (not c.value or len({type(v) for v in c.value}) > 1):
        raise Unsupported("llamaindex-chroma: Chroma's $in/$nin take a non-empty list of one type")
    if op in RANGE_OPS and isinstance(c.value, str):
        raise Unsupported("llamaindex-chroma: Chroma's ranges take a number")
    return metadata_filter(c.key, OPERATORS[op], list(c.value) if isinstance(c.value, tuple) else c.value)


class LlamaIndexChroma(Target):
    """``ChromaVectorStore.query(VectorStoreQuery(filters=MetadataFilters(...)))`` over a Chroma store of its own."""

    engine_errors: ClassVar[tuple[type[BaseException], ...]] = (Exception,)  # as every built-in (Target)
    name = "llamaindex-chroma"
    packages = ("llama-index-core", "llama-index-vector-stores-chroma", "chromadb")
    allows = Allows(lists=False, empty_lists=False, null_in_lists=False, ops=tuple(OPERATORS))  # what it maps
    two_valued = False  # as Chroma's: a range and its opposite both leave out a document without a number there
    vias: ClassVar[tuple[str, ...]] = ("search", "get", "mmr")

    def __init__(self) -> None:
        self.client: Any = None
        self.store: Any = None
        self.ids: list[str] = []
        self._home: tempfile.TemporaryDirectory[str] | None = None

    def render(self, expr: Expr, spelling: int = 0) -> str:
        return chroma_metadata_filters(expr)

    def namespace(self) -> dict[str, Any]:
        from llama_index.core.vector_stores import types
        from llama_index.vector_stores.chroma import ChromaVectorStore  # noqa: F401  # installed() looks for it

        return {"li": types}

    def load(self, docs: Docs) -> None:
        from llama_index.core.schema import TextNode
        from llama_index.vector_stores.chroma import ChromaVectorStore

        if self.client is None:
            import logging

            import chromadb
            from chromadb.config import Settings

            # A store of its own, not the process's shared EphemeralClient (chroma-core/chroma#7594: a dropped
            # collection's list values reach the next collection's records; see the chroma target).
            self._home = tempfile.TemporaryDirectory(prefix="filterproof-fuzz-li-chroma-", ignore_cleanup_errors=True)
            self.client = chromadb.PersistentClient(self._home.name, Settings(anonymized_telemetry=False))
            self.store = ChromaVectorStore(chroma_collection=self.client.create_collection("fuzz"))
            # MMR with fewer matches than k falls back to a plain query, warning each time (the answer is kept).
            logging.getLogger("llama_index.vector_stores.chroma.base").setLevel(logging.ERROR)
        if self.ids:
            self.store.delete_nodes(node_ids=self.ids)
        self.ids = list(docs)
        nodes = [TextNode(id_=d, text=d, embedding=[1.0, 0.01 * (i + 1)], metadata=dict(docs[d]))
                 for i, d in enumerate(self.ids)]
        if nodes:
            self.store.add(nodes)

    def ask(self, source: str, via: str = "search", indexed: bool = False) -> set[str]:
        from llama_index.core.vector_stores.types import VectorStoreQuery, VectorStoreQueryMode

        if not self.ids:
            return set()
        if via not in self.vias:
            raise ValueError(f"unknown via {via!r}")
        query = VectorStoreQuery(query_embedding=None if via == "get" else [1.0, 0.0],
                                 similarity_top_k=len(self.ids), filters=self.native(source),
                                 mode=VectorStoreQueryMode.MMR if via == "mmr" else VectorStoreQueryMode.DEFAULT)
        return set(self.store.query(query).ids or [])

    def script(self, docs: Docs) -> Script:
        return Script(f"{LI_IMPORTS}\nimport chromadb\nfrom llama_index.core.schema import TextNode\n"
                      "from llama_index.vector_stores.chroma import ChromaVectorStore", _SETUP, "ask_llamaindex_chroma")

    def close(self) -> None:
        self.store = self.client = None
        self.ids = []
        if self._home is not None:
            self._home.cleanup()
            self._home = None


_SETUP = """
li_chroma_ids = list(DOCS)
li_chroma = ChromaVectorStore(chroma_collection=chromadb.EphemeralClient().create_collection("fuzz"))
if li_chroma_ids:
    li_chroma.add([TextNode(id_=d, text=d, embedding=[1.0, 0.01 * (i + 1)], metadata=dict(DOCS[d]))
                   for i, d in enumerate(li_chroma_ids)])


def ask_llamaindex_chroma(native, via, indexed):
    if not li_chroma_ids:
        return set()
    mode = li.VectorStoreQueryMode.MMR if via == "mmr" else li.VectorStoreQueryMode.DEFAULT
    query = li.VectorStoreQuery(query_embedding=None if via == "get" else [1.0, 0.0],
                                similarity_top_k=len(li_chroma_ids), filters=native, mode=mode)
    return set(li_chroma.query(query).ids or [])
"""

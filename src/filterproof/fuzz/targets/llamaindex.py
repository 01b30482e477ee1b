"""LlamaIndex's filter objects (``MetadataFilters``) through llama-index-vector-stores-qdrant, over Qdrant's local
mode: what an application built on LlamaIndex hands its vector store, translated by the integration's own code.

The neutral filter is rendered into the objects a LlamaIndex user writes, and the integration turns them into
Qdrant's filter; so a finding here is the framework's translation (or the engine under it: the ``qdrant-local``
target fuzzes the engine alone). The renderer uses the operators the integration documents it supports (EQ, NE,
GT, GTE, LT, LTE, IN, NIN, IS_EMPTY) and the conditions AND, OR, NOT:

* ``contains`` / ``contains_any`` on a list field are EQ / IN (Qdrant matches an element of a list; the store
  refuses CONTAINS and ANY);
* ``MetadataFilter.value`` is a strict int, float, text or a list of one of them: no bool, no mixed list;
* a range takes a number (the store writes ``Range``, no date), so a date range has no form;
* no test for "null" alone or "present" (IS_EMPTY is missing, null or ``[]``);
* an empty ``MetadataFilters`` is skipped by the store (no constraint), so an empty AND or OR has no faithful form.

Qdrant's NOT is ``must_not``, the complement: the target is two-valued.
"""

from __future__ import annotations

import uuid
import warnings
from datetime import date
from typing import Any, ClassVar

from filterproof.adapters.filterlang import And, Cond, Expr, Not, Or, Unsupported
from filterproof.fuzz.generate import BY_NAME, Allows
from filterproof.fuzz.target import Docs, Script, Target
from filterproof.fuzz.targets.metadata_filters import LI_IMPORTS, join_filters

OPERATORS = {"eq": "EQ", "ne": "NE", "in": "IN", "nin": "NIN", "gt": "GT", "gte": "GTE", "lt": "LT", "lte": "LTE",
             "contains": "EQ", "contains_any": "IN", "is_empty": "IS_EMPTY"}


def metadata_filters(expr: Expr) -> str:
    """The filter as ``MetadataFilters(...)`` source (a lone condition wrapped in an AND)."""
    found = _render(expr)
    return found if found.startswith("li.MetadataFilters(") else join_filters([found], "AND")


def _render(expr: Expr) -> str:
    match expr:
        case Cond():
            return _condition(expr)
        case And(parts) | Or(parts):
            if not parts:
                raise Unsupported("llamaindex-qdrant: an empty MetadataFilters is skipped by the store (no constraint)")
            return join_filters([_render(p) for p in parts], "AND" if isinstance(expr, And) else "OR")
        case Not(part):
            return join_filters([_render(part)], "NOT")
    raise TypeError(f"unknown expression {expr!r}")


def _condition(c: Cond) -> str:
    if c.op not in OPERATORS:
        raise Unsupported(f"llamaindex-qdrant: no operator for {c.op} (IS_EMPTY is missing, null or [])")
    kind = BY_NAME[c.key].kind
    if c.op in ("contains", "contains_any") and not kind.endswith("list"):
        raise Unsupported("llamaindex-qdrant: contains is EQ/IN on a list field only")
    values = c.value if isinstance(c.value, tuple) else (c.value,)
    if any(isinstance(v, bool) for v in values):
        raise Unsupported("llamaindex-qdrant: MetadataFilter's value is a strict int, float or text (no bool)")
    if any(isinstance(v, date) for v in values):
        raise Unsupported("llamaindex-qdrant: the store writes a range as Range (a number), no date")
    if isinstance(c.value, tuple) and len({type(v) for v in c.value}) > 1:
        raise Unsupported("llamaindex-qdrant: MetadataFilter's list holds one type")
    if c.op in ("gt", "gte", "lt", "lte") and isinstance(c.value, str):
        raise Unsupported("llamaindex-qdrant: the store writes a range as Range (a number)")
    value = list(c.value) if isinstance(c.value, tuple) else c.value
    return f"li.MetadataFilter(key={c.key!r}, operator=li.FilterOperator.{OPERATORS[c.op]}, value={value!r})"


def node_id(i: int) -> str:
    return str(uuid.UUID(int=i + 1))  # Qdrant takes a UUID or an integer as a point id


class LlamaIndexQdrant(Target):
    """``QdrantVectorStore.query(VectorStoreQuery(filters=MetadataFilters(...)))`` over ``QdrantClient(":memory:")``."""

    engine_errors: ClassVar[tuple[type[BaseException], ...]] = (Exception,)  # as every built-in (Target)
    name = "llamaindex-qdrant"
    packages = ("llama-index-core", "llama-index-vector-stores-qdrant", "qdrant-client")
    allows = Allows(ops=tuple(OPERATORS))  # what it maps: no is_null, no exists
    vias: ClassVar[tuple[str, ...]] = ("search",)

    def __init__(self) -> None:
        self.client: Any = None
        self.ids: dict[str, str] = {}

    def render(self, expr: Expr, spelling: int = 0) -> str:
        return metadata_filters(expr)

    def namespace(self) -> dict[str, Any]:
        from llama_index.core.vector_stores import types

        return {"li": types}

    def load(self, docs: Docs) -> None:
        from llama_index.core.schema import TextNode
        from llama_index.vector_stores.qdrant import QdrantVectorStore
        from qdrant_client import QdrantClient

        if self.client is None:
            self.client = QdrantClient(":memory:")
        if self.client.collection_exists("fuzz"):
            self.client.delete_collection("fuzz")
        self.store = QdrantVectorStore(collection_name="fuzz", client=self.client)
        self.ids = {node_id(i): d for i, d in enumerate(docs)}
        nodes = [TextNode(id_=node_id(i), text=d, embedding=[1.0, 0.01 * (i + 1)], metadata=dict(docs[d]))
                 for i, d in enumerate(docs)]
        if nodes:
            with warnings.catch_warnings():  # its first add creates a payload index, a no-op in local mode: it warns
                warnings.filterwarnings("ignore", message="Payload indexes have no effect")
                self.store.add(nodes)

    def ask(self, source: str, via: str = "search", indexed: bool = False) -> set[str]:
        from llama_index.core.vector_stores.types import VectorStoreQuery

        if not self.ids:
            return set()
        query = VectorStoreQuery(query_embedding=[1.0, 0.0], similarity_top_k=len(self.ids),
                                 filters=self.native(source))
        return {self.ids[i] for i in self.store.query(query).ids or []}

    def script(self, docs: Docs) -> Script:
        return Script(f"{LI_IMPORTS}\nimport uuid\nfrom llama_index.core.schema import TextNode\n"
                      "from llama_index.vector_stores.qdrant import QdrantVectorStore\n"
                      "from qdrant_client import QdrantClient", _SETUP, "ask_llamaindex")

    def close(self) -> None:
        if self.client is not None:
            self.client.close()
            self.client = None


_SETUP = """
li_ids = {str(uuid.UUID(int=i + 1)): d for i, d in enumerate(DOCS)}
li_store = QdrantVectorStore(collection_name="fuzz", client=QdrantClient(":memory:"))
li_store.add([TextNode(id_=n, text=d, embedding=[1.0, 0.01 * (i + 1)], metadata=dict(DOCS[d]))
              for i, (n, d) in enumerate(li_ids.items())])


def ask_llamaindex(native, via, indexed):
    query = li.VectorStoreQuery(query_embedding=[1.0, 0.0], similarity_top_k=len(li_ids), filters=native)
    return {li_ids[i] for i in li_store.query(query).ids or []}
"""

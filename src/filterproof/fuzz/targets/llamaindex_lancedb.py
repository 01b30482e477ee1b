"""LlamaIndex's filter objects (``MetadataFilters``) through llama-index-vector-stores-lancedb's ``LanceDBVectorStore``
in an embedded LanceDB: what an application built on LlamaIndex hands its LanceDB store, turned into a ``WHERE``
string by the integration's own ``_to_lance_filter``.

The store writes each node's metadata into a ``metadata`` struct column whose fields Arrow infers from the first
batch (so no list, ``flat_metadata``, and no key of two kinds across documents). What the integration does, read
from llama-index-vector-stores-lancedb 0.6.0 and written down once:

* one level only: each item's ``key``, ``operator`` and ``value`` are read, so a nested ``MetadataFilters`` has no
  form, nor has the condition NOT (it is read as AND); negation is pushed to the leaves, as for the other
  integrations, and an AND or OR must then hold conditions only;
* EQ GT GTE LT LTE IN are ``metadata.k = v``, ``metadata.k > v``..., ``metadata.k IN ('a','b')``; NE is
  ``metadata.k NOT LIKE '%v%'``; NIN, CONTAINS, ANY and IS_EMPTY have no mapping (a KeyError);
* a key is prefixed ``metadata.`` only when the *first* node added had it (``_metadata_keys``);
* a text value of EQ or a range is written ``'v'`` unescaped; in IN each text has ``'`` doubled; a number is ``str()``;
* a query that selects nothing raises ``Warning("query results are empty..")``: ``ask`` reads that one exception as
  the empty answer, so that the oracles judge what the filters select (``test_fuzz_llamaindex_lancedb.py`` holds the
  exception itself as a strict xfail, with its reproducer).

The renderer writes what LlamaIndex's operator comments admit (no bool value, no text range, a date as its ISO text,
lists of one type, not empty). SQL's three-valued logic: ``two_valued = False``. Vias: ``search`` (k = the rows).
"""

from __future__ import annotations

import logging
import os
import shutil
import tempfile
import uuid
from datetime import date
from typing import Any, ClassVar

from filterproof.adapters.filterlang import RANGE_OPS, And, Cond, Expr, Or, Unsupported
from filterproof.fuzz.generate import Allows
from filterproof.fuzz.target import Docs, Script, Target
from filterproof.fuzz.targets.metadata_filters import (
    LI_IMPORTS,
    join_filters,
    metadata_filter,
    negation_normal_form,
    search_all,
)

OPERATORS = {"eq": "EQ", "ne": "NE", "in": "IN", "gt": "GT", "gte": "GTE", "lt": "LT", "lte": "LTE"}
NAME = "llamaindex-lancedb"
EMPTY = "query results are empty.."
"""What ``LanceDBVectorStore.query`` raises (as a ``Warning``) when nothing matched."""


def lance_metadata_filters(expr: Expr) -> str:
    """The filter as one level of ``MetadataFilters(...)`` source, negation pushed to the leaves."""
    flat = negation_normal_form(expr, NAME)
    parts = (flat,) if isinstance(flat, Cond) else flat.parts if isinstance(flat, And | Or) else ()
    if not all(isinstance(p, Cond) for p in parts):
        raise Unsupported(f"{NAME}: one level only (the integration reads each item's key, operator and value)")
    return join_filters([_condition(p) for p in parts if isinstance(p, Cond)], "OR" if isinstance(flat, Or) else "AND")


def _condition(c: Cond) -> str:
    if c.op not in OPERATORS:
        raise Unsupported(f"{NAME}: no operator for {c.op} (the integration maps EQ NE GT GTE LT LTE IN)")
    values = tuple(v.isoformat() if isinstance(v, date) else v
                   for v in (c.value if isinstance(c.value, tuple) else (c.value,)))
    if any(isinstance(v, bool) for v in values):
        raise Unsupported(f"{NAME}: MetadataFilter's value is a strict int, float or text (no bool)")
    if isinstance(c.value, tuple) and (not values or len({type(v) for v in values}) > 1):
        raise Unsupported(f"{NAME}: a list of one type, not empty (IN () is an SQL syntax error)")
    if c.op in RANGE_OPS and isinstance(c.value, str):
        raise Unsupported(f"{NAME}: the ranges are documented on int and float")
    return metadata_filter(c.key, OPERATORS[c.op], list(values) if isinstance(c.value, tuple) else values[0])


class LlamaIndexLanceDB(Target):
    """``LanceDBVectorStore.query(VectorStoreQuery(filters=MetadataFilters(...)))``, a new table per world."""

    engine_errors: ClassVar[tuple[type[BaseException], ...]] = (Exception,)  # as every built-in (Target)
    name = NAME
    packages = ("llama-index-core", "llama-index-vector-stores-lancedb", "lancedb")
    allows = Allows(lists=False, empty_lists=False, null_in_lists=False, mixed=False, ops=tuple(OPERATORS))
    two_valued = False
    vias: ClassVar[tuple[str, ...]] = ("search",)

    def __init__(self) -> None:
        self.root: str | None = None
        self.store: Any = None
        self.ids: list[str] = []

    def render(self, expr: Expr, spelling: int = 0) -> str:
        return lance_metadata_filters(expr)

    def namespace(self) -> dict[str, Any]:
        os.environ.setdefault("LANCE_LOG", "error")  # read when lance first loads, if this is the first to load it
        from llama_index.core.vector_stores import types
        from llama_index.vector_stores.lancedb import LanceDBVectorStore  # noqa: F401  # installed() looks for it

        return {"li": types}

    def load(self, docs: Docs) -> None:
        from llama_index.core.schema import TextNode
        from llama_index.vector_stores.lancedb import LanceDBVectorStore

        if self.root is None:
            self.root = tempfile.mkdtemp(prefix="filterproof-fuzz-li-lance-")
            # Each world's new table is announced twice: "doesn't exist yet" (the store), "will be created" (Lance).
            logging.getLogger("llama_index.vector_stores.lancedb.base").setLevel(logging.ERROR)
        self.ids = list(docs)
        # A table per world: its schema is inferred from the first batch, as in an application.
        self.store = LanceDBVectorStore(uri=self.root, table_name=f"t{uuid.uuid4().hex[:12]}", mode="overwrite")
        if self.ids:
            self.store.add([TextNode(id_=d, text=d, embedding=[1.0, 0.01 * (i + 1)], metadata=dict(docs[d]))
                            for i, d in enumerate(self.ids)])

    def ask(self, source: str, via: str = "search", indexed: bool = False) -> set[str]:
        if via not in self.vias:
            raise ValueError(f"unknown via {via!r}")
        try:
            return search_all(self.store, self.ids, self.native(source))
        except Warning as empty:
            if str(empty) != EMPTY:
                raise
            return set()

    def script(self, docs: Docs) -> Script:
        return Script(f"{LI_IMPORTS}\nimport tempfile\nfrom llama_index.core.schema import TextNode\n"
                      "from llama_index.vector_stores.lancedb import LanceDBVectorStore", _SETUP,
                      "ask_llamaindex_lancedb")

    def close(self) -> None:
        self.store = None
        self.ids = []
        if self.root is not None:
            shutil.rmtree(self.root, ignore_errors=True)
            self.root = None


_SETUP = """
li_lance_ids = list(DOCS)
li_lance = LanceDBVectorStore(uri=tempfile.mkdtemp(prefix="li-lance-"), table_name="fuzz", mode="overwrite")
if li_lance_ids:
    li_lance.add([TextNode(id_=d, text=d, embedding=[1.0, 0.01 * (i + 1)], metadata=dict(DOCS[d]))
                  for i, d in enumerate(li_lance_ids)])


def ask_llamaindex_lancedb(native, via, indexed):
    if not li_lance_ids:
        return set()
    query = li.VectorStoreQuery(query_embedding=[1.0, 0.0], similarity_top_k=len(li_lance_ids), filters=native)
    try:
        return set(li_lance.query(query).ids or [])
    except Warning as empty:  # LanceDBVectorStore raises this when nothing matched
        if str(empty) != "query results are empty..":
            raise
        return set()
"""

"""``haystack-chroma``: Haystack's filter dicts through chroma-haystack's ``ChromaDocumentStore``, over an in-process
Chroma (``chromadb.Client()``, a collection of its own): what an application built on Haystack hands its Chroma store,
translated into a ``where`` by the integration's ``_convert_filters``.

A finding here is the integration's translation or Chroma under it (the ``chroma`` target fuzzes the engine alone);
in the ``haystack`` family, the fuzzer diffs it with ``haystack-memory``, Haystack's own semantics. What
chroma-haystack 5.0.0 does, read from its ``filters.py`` and ``document_store.py`` and written down once:

* the comparisons become ``$eq $ne $gt $gte $lt $lte $in $nin``, AND and OR ``$and``/``$or``; NOT is no operator
  of its (``ChromaDocumentStoreFilterError: Unknown operator NOT``), so negation is pushed to the leaves, as a user
  of this store must write it, where Haystack's own semantics make that exact: ``not ==`` is ``!=`` and ``not in``
  is ``not in`` (``haystack.utils.filters`` defines each as the other's ``not``), AND and OR swap (De Morgan, in
  two-valued logic); a negated range has no form (``not x > 1`` selects a document without ``x``, ``x <= 1`` does
  not);
* Chroma refuses an ``$and``/``$or`` of fewer than two conditions (one is written as itself; none has no form:
  chroma-haystack fails with an IndexError on it), an empty or mixed ``$in``/``$nin``, and a range over anything
  but a number (so no date range: chroma-haystack passes the ISO text on);
* ``write_documents`` drops a null, an empty list and a list of mixed types with a warning (Haystack reads a null
  as missing anyway); no list field is asked (``haystack_dicts``: Haystack has no list operator);
* a field keeps only the last dotted segment of its name (integration finding 12), which the fuzzer's flat field
  names never show; ``OVERWRITE`` merges metadata (finding 11), which a store emptied between worlds never shows.

Chroma selects a document without the field under ``$ne``/``$nin``, as Haystack does: the target is two-valued.
"""

from __future__ import annotations

import contextlib
import uuid
from typing import Any, ClassVar

from filterproof.adapters.filterlang import And, Cond, Expr, Or, Unsupported
from filterproof.fuzz.generate import FIELDS, Allows
from filterproof.fuzz.target import Docs, Script
from filterproof.fuzz.targets.haystack import ASK_SCRIPT, DOCUMENTS_SCRIPT, HaystackTarget
from filterproof.fuzz.targets.haystack_dicts import COMPARISONS, Filter, condition, logic, pushed

NAME = "haystack-chroma"


def chroma_filter(expr: Expr) -> Filter:
    """``expr`` as a Haystack filter dict chroma-haystack accepts: no NOT, no AND/OR of one, no empty list."""
    return _node(pushed(expr, NAME, "chroma-haystack"))


def chroma_source(expr: Expr) -> str:
    return repr(chroma_filter(expr))


def _node(expr: Expr) -> Filter:
    if isinstance(expr, Cond):
        return leaf(expr)
    if not isinstance(expr, And | Or):
        raise TypeError(f"{NAME}: not in negation normal form: {expr!r}")
    if not expr.parts:  # chroma-haystack reads the first condition to tell a content filter: IndexError
        raise Unsupported(f"{NAME}: an AND or OR of no conditions fails in chroma-haystack (IndexError)")
    if len(expr.parts) == 1:
        return _node(expr.parts[0])  # Chroma wants two conditions or more; all([x]) and any([x]) are x
    return logic("AND" if isinstance(expr, And) else "OR", [_node(p) for p in expr.parts])


def leaf(c: Cond) -> Filter:
    if c.op in ("in", "nin") and (not c.value or len({type(v) for v in c.value}) > 1):
        raise Unsupported(f"{NAME}: Chroma's $in/$nin take a non-empty list of one type")
    if c.op in ("gt", "gte", "lt", "lte") and (isinstance(c.value, bool) or not isinstance(c.value, int | float)):
        # a date too: chroma-haystack passes its ISO text on, which Chroma refuses
        raise Unsupported(f"{NAME}: Chroma's ranges take a number, not {type(c.value).__name__}")
    return condition(c, NAME)


class HaystackChroma(HaystackTarget):
    """``ChromaDocumentStore`` in memory and ``ChromaEmbeddingRetriever`` (chroma-haystack)."""

    name = NAME
    packages = ("haystack-ai", "chroma-haystack", "chromadb")
    # No date field: Chroma's ranges take a number, and chroma-haystack passes an ISO date on as text (refused).
    allows = Allows(fields=tuple(f.name for f in FIELDS if f.kind != "date"), ops=tuple(COMPARISONS))
    spellings = 1  # no NOT to spell two ways
    equivalent: ClassVar[tuple[int, ...]] = ()

    def render(self, expr: Expr, spelling: int = 0) -> str:
        return chroma_source(expr)

    def namespace(self) -> dict[str, Any]:
        from haystack_integrations.document_stores.chroma import ChromaDocumentStore  # noqa: F401  # installed()

        return {}

    def open_store(self) -> tuple[Any, Any]:
        import logging

        from haystack_integrations.components.retrievers.chroma import ChromaEmbeddingRetriever
        from haystack_integrations.document_stores.chroma import ChromaDocumentStore

        # It warns for each null or empty list it drops from a document's meta: the world holds many.
        logging.getLogger("haystack_integrations.document_stores.chroma.document_store").setLevel(logging.ERROR)
        # A collection of our own in the process's in-memory Chroma, emptied between worlds and never dropped
        # (chroma-core/chroma#7594: a dropped collection's list values reach the next collection's records).
        store = ChromaDocumentStore(collection_name=f"filterproof-fuzz-{uuid.uuid4().hex[:12]}",
                                    distance_function="cosine", client_settings={"anonymized_telemetry": False})
        return store, ChromaEmbeddingRetriever(document_store=store)

    def empty(self) -> None:
        self.store.delete_all_documents()

    def script(self, docs: Docs) -> Script:
        return Script("import os\nimport uuid", _SETUP, "ask_haystack_chroma")

    def close(self) -> None:
        if self.store is not None and self.store._client is not None:
            with contextlib.suppress(Exception):  # best effort: the collection is ours alone
                self.store._client.delete_collection(self.store._collection_name)
        self.store = self.retriever = None
        self.ids = []


_SETUP = f"""
os.environ.setdefault("HAYSTACK_TELEMETRY_ENABLED", "False")  # no network: read when haystack is first imported
from haystack import Document  # noqa: E402
from haystack_integrations.components.retrievers.chroma import ChromaEmbeddingRetriever  # noqa: E402
from haystack_integrations.document_stores.chroma import ChromaDocumentStore  # noqa: E402

hs_chroma = ChromaDocumentStore(collection_name=f"filterproof-fuzz-{{uuid.uuid4().hex}}", distance_function="cosine",
                                client_settings={{"anonymized_telemetry": False}})
{DOCUMENTS_SCRIPT}
hs_chroma.write_documents(hs_documents)
hs_chroma_retriever = ChromaEmbeddingRetriever(document_store=hs_chroma)
""" + ASK_SCRIPT.format(name="haystack_chroma", store="hs_chroma", retriever="hs_chroma_retriever")

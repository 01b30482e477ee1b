"""``haystack-milvus``: Haystack's filter dicts through milvus-haystack's ``MilvusDocumentStore`` over Milvus Lite: what
an application built on Haystack hands its Milvus store, turned into a Milvus boolean expression by the integration's
``parse_filters``.

The store keeps its default schema (``id``, ``text``, ``vector`` and Milvus's dynamic field): every meta key is a key
of the row's ``$meta`` JSON, named bare in the expression. A finding here is the integration's translation or Lite's
JSON fields (the ``milvus`` target fuzzes typed fields alone); in the ``haystack`` family the fuzzer diffs it with
``haystack-memory``, Haystack's own semantics. What milvus-haystack 0.0.18 does, read from its ``filters.py`` and
``document_store.py`` and measured, written down once:

* a comparison is ``(k <op> v)``: a string value pasted between double quotes as it is (nothing escaped:
  integration finding 14; the fuzzer's strings hold quotes, backslashes and newlines, so it meets it by itself), any
  other value, a list too, as Python's ``str()`` (so a list's strings are ``repr``-quoted and escaped);
* AND and OR join their parts with `` and ``/`` or ``; NOT is ``not (A and B ...)``, "not all of its conditions", as
  Haystack reads it: both of ``haystack_dicts``'s spellings are written;
* an AND, OR or NOT of no conditions becomes ``()``, which Milvus does not parse (Haystack reads them as
  all/any), and Milvus refuses a list whose values are not of one kind (an int and a float are one; a bool is no
  number): neither has a form here;
* ``write_documents`` drops a None and an empty list from a document's meta (``_discard_invalid_meta``), which
  Haystack reads as missing anyway; the store has no ``count_documents_by_filter``.

Milvus is three-valued on a missing key (``k != "a"`` and ``not (k == "a")`` leave out a row without ``k``, where
Haystack reads the field as None and selects it): ``two_valued = False``, so the partition oracle asks only that P
and NOT P share nothing, and the differential with ``haystack-memory`` is what sees it. Vias: ``search``
(``MilvusEmbeddingRetriever``, a FLAT index, top_k = every document) and ``filter`` (``filter_documents``).
"""

from __future__ import annotations

import logging
import warnings
from typing import Any, ClassVar

from filterproof.adapters.filterlang import And, Cond, Expr, Not, Or, Unsupported, kind, nodes
from filterproof.fuzz.generate import Allows
from filterproof.fuzz.target import Docs, Script
from filterproof.fuzz.targets.haystack import ASK_SCRIPT, DOCUMENTS_SCRIPT, HaystackTarget
from filterproof.fuzz.targets.haystack_dicts import COMPARISONS, Filter, haystack_filter

NAME = "haystack-milvus"
COLLECTION = "fuzz"
EVERYTHING = 'id != ""'
"""The delete expression that empties the collection between worlds (every id is a non-empty text)."""
LOGGERS = ("pymilvus", "milvus_lite", "grpc._server", "milvus_haystack", "milvus_haystack.document_store")
"""Lite logs the calls it answers as unimplemented; the store logs each query Milvus refuses before raising it."""


def milvus_filter(expr: Expr, spelling: int = 0) -> Filter:
    """``expr`` as a Haystack filter dict milvus-haystack can send: no empty AND/OR/NOT, lists of one kind."""
    for node in nodes(expr):
        refused(node)
    return haystack_filter(expr, spelling, NAME)


def milvus_source(expr: Expr, spelling: int = 0) -> str:
    return repr(milvus_filter(expr, spelling))


def refused(node: Expr) -> None:
    """``Unsupported`` where milvus-haystack writes what Milvus does not parse, whatever the world holds."""
    if isinstance(node, And | Or) and not node.parts:
        raise Unsupported(f"{NAME}: an AND or OR of no conditions is written `()`, which Milvus does not parse")
    if isinstance(node, Cond) and node.op in ("in", "nin") and len({_list_kind(v) for v in node.value}) > 1:
        raise Unsupported(f"{NAME}: Milvus refuses a list whose values are not of one kind")
    if not isinstance(node, Cond | And | Or | Not):
        raise TypeError(f"{NAME}: unknown expression {node!r}")


def _list_kind(value: Any) -> str | None:
    found = kind(value)
    return "number" if found in ("int", "float") else found  # Milvus compares an int and a float in one list


class HaystackMilvus(HaystackTarget):
    """``MilvusDocumentStore`` and ``MilvusEmbeddingRetriever`` over a Lite file of its own (removed on close)."""

    name = NAME
    packages = ("haystack-ai", "milvus-haystack", "pymilvus", "milvus-lite")
    allows = Allows(ops=tuple(COMPARISONS))
    two_valued = False
    vias: ClassVar[tuple[str, ...]] = ("search", "filter")

    def __init__(self) -> None:
        super().__init__()
        self.lite: Any = None
        self.client: Any = None

    def render(self, expr: Expr, spelling: int = 0) -> str:
        return milvus_source(expr, spelling)

    def namespace(self) -> dict[str, Any]:
        from milvus_haystack import MilvusDocumentStore  # noqa: F401  # installed() looks for it

        return {}

    def open_store(self) -> tuple[Any, Any]:
        from milvus_haystack import MilvusDocumentStore, MilvusEmbeddingRetriever
        from pymilvus import MilvusClient, connections

        from filterproof.adapters.milvus.lite import LiteDirectory

        for logger in LOGGERS:
            logging.getLogger(logger).setLevel(logging.CRITICAL)
        self.lite = LiteDirectory(prefix="filterproof-fuzz-hs-milvus-")
        # pymilvus >= 2.6.10 no longer registers the ORM alias the store opens its collection under: an application
        # registers it first (as bridges.haystack_milvus does), or the store fails when it creates the collection.
        self.client = MilvusClient(uri=self.lite.path)
        connections.connect(alias=self.client._using, uri=self.lite.path)
        store = MilvusDocumentStore(collection_name=COLLECTION, connection_args={"uri": self.lite.path},
                                    consistency_level="Strong", drop_old=True,
                                    index_params={"index_type": "FLAT", "metric_type": "COSINE", "params": {}},
                                    search_params={"metric_type": "COSINE", "params": {}})
        return store, MilvusEmbeddingRetriever(document_store=store)

    def empty(self) -> None:
        if self.store.col is not None:  # the collection is created by the first write
            self.store.col.delete(EVERYTHING)  # delete_documents pastes ids unescaped (finding 14): not used

    def script(self, docs: Docs) -> Script:
        return Script("import atexit\nimport logging\nimport os\nimport shutil\nimport tempfile", _SETUP,
                      "ask_haystack_milvus")

    def close(self) -> None:
        from pymilvus import connections

        if self.client is not None:
            with warnings.catch_warnings():  # pymilvus 2.6 deprecates the ORM call the store needs the alias for
                warnings.simplefilter("ignore", FutureWarning)
                connections.disconnect(self.client._using)
            self.client.close()
            self.client = None
        if self.lite is not None:
            self.lite.remove()
            self.lite = None
        self.store = self.retriever = None
        self.ids = []


_SETUP = f"""
os.environ.setdefault("HAYSTACK_TELEMETRY_ENABLED", "False")  # no network: read when haystack is first imported
from haystack import Document  # noqa: E402
from milvus_haystack import MilvusDocumentStore, MilvusEmbeddingRetriever  # noqa: E402
from pymilvus import MilvusClient, connections  # noqa: E402

for logger in {LOGGERS!r}:
    logging.getLogger(logger).setLevel(logging.CRITICAL)
hs_milvus_dir = tempfile.mkdtemp(prefix="hs-milvus-")
atexit.register(shutil.rmtree, hs_milvus_dir, True)  # the Lite file and its directory, removed at exit
hs_milvus_uri = os.path.join(hs_milvus_dir, "fuzz.db")
# pymilvus >= 2.6.10 no longer registers the ORM alias the store opens its collection under: register it first.
hs_milvus_client = MilvusClient(uri=hs_milvus_uri)
connections.connect(alias=hs_milvus_client._using, uri=hs_milvus_uri)
hs_milvus = MilvusDocumentStore(collection_name="fuzz", connection_args={{"uri": hs_milvus_uri}},
                                consistency_level="Strong", drop_old=True,
                                index_params={{"index_type": "FLAT", "metric_type": "COSINE", "params": {{}}}},
                                search_params={{"metric_type": "COSINE", "params": {{}}}})
{DOCUMENTS_SCRIPT}
hs_milvus.write_documents(hs_documents)
hs_milvus_retriever = MilvusEmbeddingRetriever(document_store=hs_milvus)
""" + ASK_SCRIPT.format(name="haystack_milvus", store="hs_milvus", retriever="hs_milvus_retriever")
